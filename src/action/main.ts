import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import * as core from "@actions/core";
import type { Comparison } from "../compare/compare.js";
import { loadConfig, type LoadedConfig } from "../config/load.js";
import type { Config } from "../config/schema.js";
import { UserError } from "../errors.js";
import { createClient } from "../github/client.js";
import { upsertStickyComment } from "../github/comment.js";
import { commentMarker } from "../github/marker.js";
import { fitComment } from "../github/truncate.js";
import {
  evaluate,
  gateFails,
  incompleteNote,
  openSession,
  type BaselineInput,
  type Evaluation,
} from "../session/evaluate.js";
import { gateSentence } from "../report/verdict.js";
import { runSuite } from "../suite/run.js";
import { planStep, reportStep, runStep } from "./steps.js";
import {
  actionsArtifacts,
  artifactName,
  notesText,
  uploadTrajectories,
  uploadFolder,
  type ArtifactApi,
} from "./artifacts.js";
import { appendAndSave, restoreHistory } from "../history/cache.js";
import { entryOf, type History } from "../history/history.js";
import { readTail } from "../suite/heartbeat.js";
import {
  actionsCache,
  fromFile,
  keysTried,
  restoreFromCache,
  saveToCache,
  type CacheApi,
} from "./baseline.js";
import { checkoutBase } from "./base-ref.js";
import { Outputs } from "./constants.js";
import { isGhes, readEvent, runUrl, type EventInfo } from "./event.js";
import {
  effectiveSettings,
  readSettings,
  runStoreDir,
  type EffectiveSettings,
  type Settings,
} from "./inputs.js";
import {
  COMMENT_ARTIFACT,
  COMMENT_FILE,
  downloadCommentFiles,
  commentArtifactName,
  relayComment,
  writeCommentFile,
} from "./relay.js";

/** Outside world the action touches; tests may replace any of it. */
export interface Deps {
  env: NodeJS.ProcessEnv;
  runSuite: typeof runSuite;
  cache: CacheApi;
  artifacts: () => ArtifactApi;
  checkoutBase: typeof checkoutBase;
}

const defaults: Deps = {
  env: process.env,
  runSuite,
  cache: actionsCache,
  artifacts: actionsArtifacts,
  checkoutBase,
};

/** Where the default branch's history is restored to and saved from (a fixed path: the cache version depends on it). */
const HISTORY_DIR = ".medalist/history-cache";

const fmt = (x: number | null | undefined) =>
  x === null || x === undefined || Number.isNaN(x) ? "" : x.toFixed(4);

/** Refuses pull requests from forks on self-hosted runners unless the workflow opted in. */
export function forkRefusal(event: EventInfo, settings: Settings): string | null {
  if (!event.pr?.isFork || settings.allowForkPrs) return null;
  if (event.runnerEnvironment === "github-hosted") return null;
  return (
    `medalist: refusing to run pull request #${event.pr.number} from the fork ${event.pr.headRepo ?? "(deleted)"} on a self-hosted runner: ` +
    "its code would run on your machine with access to whatever the runner can reach. " +
    "Review the change and set `allow-fork-prs: true` to accept such runs, or use the two-workflow pattern in docs/action.md."
  );
}

/** The action's entry; testable without side effects on import. */
export async function run(overrides: Partial<Deps> = {}): Promise<void> {
  const deps = { ...defaults, ...overrides };
  try {
    await main(deps);
  } catch (e) {
    if (e instanceof UserError) core.setFailed(`medalist: ${e.message}`);
    else {
      core.setFailed(`medalist: unexpected error: ${(e as Error)?.message ?? String(e)}`);
      core.debug((e as Error)?.stack ?? "");
    }
  }
}

async function main(deps: Deps): Promise<void> {
  if (!deps.env.GITHUB_ACTIONS) {
    throw new UserError(
      "this is the GitHub Action entry point; outside GitHub Actions use the CLI (npx medalist --help).",
    );
  }
  const settings = readSettings();
  const event = readEvent(deps.env);
  if (settings.token) core.setSecret(settings.token);

  if (event.workflowRun) return relay(settings, event);

  const refusal = forkRefusal(event, settings);
  if (refusal) {
    core.setFailed(refusal);
    await core.summary.addHeading("Medalist: not run", 3).addRaw(refusal, true).write();
    return;
  }

  const step = core.getInput("step") || "all";
  if (step === "plan") return planStep(settings);
  const { loaded, config, session, suiteHash, settings: eff } = loadSession(settings);
  const resultsDir = resolve(settings.resultsDir);
  mkdirSync(resultsDir, { recursive: true });
  const log = (line: string) => core.info(line);
  // A cancelled job gets SIGINT then SIGTERM: stop the runs (the executor's close removes what it started).
  const abort = new AbortController();
  const onSignal = () => abort.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  if (step === "run") {
    const base: BaselineInput =
      eff.baseline.source === "run" ? baseRefBaseline(deps, loaded, config, event) : { kind: "none" };
    return runStep(deps, eff, event, session, base, abort.signal);
  }
  if (step !== "all" && step !== "report")
    throw new UserError(`input "step": expected all, plan, run or report, got ${JSON.stringify(step)}`);

  // The cache restore comes first: a broken cache service fails the job before any GPU time is spent.
  const b = eff.baseline;
  let baseline: BaselineInput = await restoreBaseline(deps, eff, event, suiteHash);
  if (b.source === "run" && step === "all") baseline = baseRefBaseline(deps, loaded, config, event);
  if (step === "report") return reportStep(deps, eff, event, session, baseline);

  const storeDir = runStoreDir(settings.runsDir, deps.env);
  if (storeDir) log(`finished runs persist in ${storeDir} (keyed by run identity; input runs-dir)`);
  // The default branch's history, for the trend; a missing or broken history only warns.
  const historyDir = resolve(HISTORY_DIR);
  const restored = await restoreHistory(deps.cache, historyDir, config.name);
  if (restored.problem) core.warning(`medalist: ${restored.problem}`);
  const history: History = restored.history;

  // No enclosing group: each finished run is its own group (groups do not nest).
  const ev = await evaluate({
    history,
    // Each finished run is a log group: its line, then the last lines its agent wrote.
    progress: {
      runDone: (line, runDir) => {
        core.startGroup(line);
        const tail = readTail(join(runDir, "run.log"), 16 * 1024)
          .split("\n")
          .slice(-40)
          .join("\n");
        // The agent's lines must not act as workflow commands (::add-mask::, ::error::, …).
        const token = randomUUID();
        process.stdout.write(`::stop-commands::${token}\n${tail || "(no output)"}\n::${token}::\n`);
        core.endGroup();
      },
    },
    session,
    resultsDir,
    baseline,
    headGit: { sha: event.pr?.headSha || event.sha || null, ref: event.ref || null },
    log,
    signal: abort.signal,
    runSuite: deps.runSuite,
    storeDir,
  });
  await publish(deps, eff, event, session.config, ev, suiteHash, undefined, history);
}

/**
 * Everything after the evaluation: trajectories and report artifacts, the sticky comment, the
 * job summary, the baseline cache (default branch), the outputs and the gate.
 */
export async function publish(
  deps: Deps,
  settings: EffectiveSettings,
  event: EventInfo,
  config: Config,
  ev: Evaluation,
  suiteHash: string,
  runFolders: (runId: string) => string = () => join(resolve(settings.resultsDir), "head"),
  /** The history restored before the evaluation (restored here when absent, for the default branch). */
  history?: History,
): Promise<void> {
  const resultsDir = resolve(settings.resultsDir);
  const log = (line: string) => core.info(line);
  const b = settings.baseline;
  const { head, comparison, baselineNote } = ev;
  const headResults = ev.paths.head;
  const reportPath = ev.paths.report;
  let viewerUrl: string | undefined;
  const render = (links?: Record<string, string>) =>
    ev.render({ links, fullReportUrl: runUrl(event), viewerUrl });
  writeFileSync(reportPath, render());

  // Trajectories, then the final report with links to them.
  const unsupported = isGhes(event)
    ? "GitHub Enterprise Server does not support artifact uploads from this action"
    : !deps.env.ACTIONS_RUNTIME_TOKEN
      ? "no artifact service in this job: ACTIONS_RUNTIME_TOKEN is not set"
      : null;
  const artifacts = unsupported ? null : deps.artifacts();
  const page = (id: number) => `${runUrl(event)}/artifacts/${id}`;
  // Names are unique per workflow run: a matrix of suites, and re-run attempts, must not collide.
  const attempt =
    deps.env.GITHUB_RUN_ATTEMPT && deps.env.GITHUB_RUN_ATTEMPT !== "1"
      ? `-attempt${deps.env.GITHUB_RUN_ATTEMPT}`
      : "";
  // Head runs, then base runs when the baseline ran in this job (their folders are here).
  const sides = [
    { label: "head", results: head },
    ...(ev.paths.base && ev.base ? [{ label: "base", results: ev.base }] : []),
  ];
  const uploaded = await uploadTrajectories(
    artifacts,
    sides.flatMap((side) =>
      side.results.runs.map((r) => ({
        name: `medalist-${config.name}-${side.label}-${r.runId}${attempt}`,
        runDir: r.runDir,
        resultsDir: side.label === "head" ? runFolders(r.runId) : join(resultsDir, "base"),
      })),
    ),
    page,
    unsupported,
  );
  for (const u of uploaded.uploads) {
    const notes = notesText(u.notes);
    if (notes) core.info(`medalist: ${u.runDir} uploaded with changes: ${notes}`);
    if (u.error) core.warning(`medalist: ${u.runDir} not uploaded: ${u.error.split("\n")[0]}`);
  }
  const links: Record<string, string> = {};
  for (const u of uploaded.uploads.slice(0, head.runs.length)) if (u.url) links[u.runDir] = u.url;
  // The viewer, one artifact; the comment links it.
  if (artifacts && !uploaded.warning && ev.paths.viewer) {
    try {
      const id = await uploadFolder(
        artifacts,
        artifactName(`medalist-${config.name}-viewer${attempt}`),
        ev.paths.viewer,
      );
      if (id !== undefined) viewerUrl = page(id);
    } catch (e) {
      core.warning(`medalist: viewer artifact not uploaded: ${(e as Error).message}`);
    }
  }
  let reportArtifactUrl: string | null = null;
  if (uploaded.warning) {
    core.warning(
      `medalist: trajectories not uploaded: ${uploaded.warning}. They are on the runner under ${join(resultsDir, "head", "runs")}`,
    );
  }
  const report = render(Object.keys(links).length ? links : undefined);
  writeFileSync(reportPath, report);
  const commentFile = join(resultsDir, COMMENT_FILE);
  if (event.pr) {
    writeCommentFile(commentFile, {
      version: 1,
      pr: event.pr.number,
      headSha: event.pr.headSha,
      suite: config.name,
      body: report,
    });
  }
  if (artifacts && !uploaded.warning) {
    if (event.pr) {
      // For the workflow_run relay (fork pull requests): see docs/action.md.
      await artifacts
        .upload(
          artifactName(commentArtifactName(config.name, deps.env.GITHUB_RUN_ATTEMPT)),
          [commentFile],
          resultsDir,
        )
        .catch((e: Error) => {
          core.warning(`medalist: comment artifact not uploaded: ${e.message}`);
        });
    }
    try {
      const files = [reportPath, headResults, ...(ev.paths.base ? [ev.paths.base] : [])];
      const { id } = await artifacts.upload(
        artifactName(`medalist-${config.name}-report${attempt}`),
        files,
        resultsDir,
      );
      if (id !== undefined) reportArtifactUrl = page(id);
    } catch (e) {
      core.warning(`medalist: report artifact not uploaded: ${(e as Error).message}`);
    }
  }

  const verdict = comparison?.verdict ?? "inconclusive";
  const incomplete = incompleteNote(head, ev.base);
  const gateLine =
    incomplete && settings.failOn !== "never"
      ? `**Gate: failed** — ${incomplete}`
      : gateText(comparison, settings, baselineNote, config.gate.missingBaseline ?? "pass");
  const summaryParts = [report, "", gateLine];

  // The sticky comment.
  let commentUrl = "";
  const commentProblem = await postComment(
    settings,
    event,
    config,
    comparison,
    report,
    reportArtifactUrl,
  ).then((r) => {
    commentUrl = r.url ?? "";
    return r.problem;
  });
  if (commentProblem) summaryParts.push("", `> ⚠️ ${commentProblem}`);
  if (uploaded.warning) {
    summaryParts.push(
      "",
      `> ℹ️ Trajectories were not uploaded: ${uploaded.warning}. They are on the runner under \`${join(resultsDir, "head", "runs")}\`.`,
    );
  }
  await core.summary.addRaw(summaryParts.join("\n"), true).write();

  // The history grows on the default branch only; a failed save only warns.
  if (event.onDefaultBranch) {
    const historyDir = resolve(HISTORY_DIR);
    let past = history;
    if (!past) {
      const restored = await restoreHistory(deps.cache, historyDir, config.name);
      if (restored.problem) core.warning(`medalist: ${restored.problem}`);
      past = restored.history;
    }
    const saved = await appendAndSave(deps.cache, historyDir, config.name, past, entryOf(head));
    if (saved.problem) core.warning(`medalist: ${saved.problem}`);
  }

  // Baselines are saved from the default branch only.
  if (event.onDefaultBranch && b.source !== "none") {
    const problem = await saveToCache(deps.cache, headResults, suiteHash, event.sha);
    if (problem) core.warning(`medalist: baseline not saved to the cache: ${problem}`);
    else log(`baseline saved for suite ${suiteHash} at ${event.sha.slice(0, 7)}`);
  }

  core.setOutput(Outputs.MedalRate, fmt(ev.medalRate));
  core.setOutput(Outputs.BaselineMedalRate, fmt(comparison?.base.medalRate));
  core.setOutput(Outputs.Delta, fmt(comparison?.delta));
  core.setOutput(Outputs.Verdict, verdict);
  core.setOutput(Outputs.ResultsPath, headResults);
  core.setOutput(Outputs.ReportPath, reportPath);
  core.setOutput(Outputs.CommentUrl, commentUrl);

  if (gateFails(comparison, config.gate, ev)) {
    core.setFailed(`medalist: ${gateLine.replace(/\*\*/g, "")}`);
  }
}

/**
 * The config as the action reads it (data and registry folders absolute) and the effective
 * settings: action input > config > default; inputs left at their default do not override the config.
 */
export function loadSession(settings: Settings) {
  const loaded = loadConfig(settings.configPath);
  const eff = effectiveSettings(settings, loaded.config, loaded.baseDir);
  const config: Config = {
    ...loaded.config,
    dataDir: resolve(settings.dataDir ?? resolve(loaded.baseDir, loaded.config.dataDir)),
    registryDir: loaded.config.registryDir ? resolve(loaded.baseDir, loaded.config.registryDir) : undefined,
    gate: { ...loaded.config.gate, failOn: eff.failOn },
  };
  // The registry is loaded and the suite planned once; the cache key needs the suite hash.
  const session = openSession(config, loaded.baseDir);
  return { loaded, config, session, suiteHash: session.plan.suiteHash, settings: eff };
}

/** The baseline from the cache or a file; "none" with the reason when the cache has none. */
async function restoreBaseline(
  deps: Deps,
  settings: EffectiveSettings,
  event: EventInfo,
  suiteHash: string,
): Promise<BaselineInput> {
  const b = settings.baseline;
  if (b.source === "cache" && !event.pr)
    return { kind: "none", note: "baseline: cache compares pull requests; this event has no base commit" };
  if (b.source === "cache" && event.pr) {
    // Throws (failing the job before any agent runs) when the cache service fails: not a miss.
    const cached = await restoreFromCache(deps.cache, suiteHash, event.pr.baseSha);
    if (!cached) {
      const note =
        `no cached baseline for suite ${suiteHash}: tried the ${keysTried(suiteHash, event.pr.baseSha)}; ` +
        "run the baseline workflow on the default branch, or use `baseline: run`";
      core.warning(`medalist: ${note}`);
      return { kind: "none", note };
    }
    core.info(`baseline: ${cached.description}`);
    return { kind: "results", ...cached };
  }
  if (b.source === "file") return { kind: "results", ...fromFile(resolve(b.path), b.path) };
  return { kind: "none", note: "baseline: none; only the head was evaluated" };
}

/** workflow_run: post the comment an evaluation run left as an artifact; runs no agent. */
async function relay(settings: Settings, event: EventInfo): Promise<void> {
  const run = event.workflowRun!;
  if (!["pull_request", "pull_request_target"].includes(run.event)) {
    core.info(`medalist: run ${run.id} was triggered by ${run.event}, not a pull request; nothing to relay`);
    return;
  }
  if (settings.comment === "never") return;
  if (!settings.token)
    throw new UserError(
      "relaying a comment needs github-token (with pull-requests: write and actions: read)",
    );
  const files = await downloadCommentFiles(settings.token, event.owner, event.repo, run.id);
  if (files.length === 0) {
    // A refused, cancelled or failed-early evaluation leaves no comment behind.
    core.info(`medalist: run ${run.id} left no ${COMMENT_ARTIFACT} artifact; nothing to relay`);
    return;
  }
  const client = createClient(settings.token, { baseUrl: event.apiUrl });
  const fullReport = `${event.serverUrl}/${event.owner}/${event.repo}/actions/runs/${run.id}`;
  let result: Awaited<ReturnType<typeof relayComment>> = null;
  for (const raw of files) {
    result = await relayComment(client, { owner: event.owner, repo: event.repo }, run, raw, fullReport);
    if (result) core.info(`comment ${result.action}: ${result.url}`);
  }
  core.setOutput(Outputs.CommentUrl, result?.url ?? "");
}

export function gateText(
  comparison: Comparison | null,
  settings: Pick<EffectiveSettings, "baseline" | "failOn">,
  baselineNote: string | null,
  missingBaseline: "pass" | "fail" = "pass",
): string {
  if (!comparison) {
    if (settings.failOn === "never") return "**Gate: off** (fail-on: never); no baseline to compare with.";
    const why = baselineNote ? "" : ` (baseline: ${settings.baseline.source})`;
    return missingBaseline === "fail"
      ? `**Gate: failed** — no baseline to compare with${why}, and gate.missingBaseline is fail.`
      : `**Gate: passed** — no baseline to compare with${why} (gate.missingBaseline: pass).`;
  }
  return gateSentence({ ...comparison, gate: { ...comparison.gate, failOn: settings.failOn } });
}

/** baseline: run — the base commit checked out and evaluated in this job. */
function baseRefBaseline(deps: Deps, loaded: LoadedConfig, config: Config, event: EventInfo): BaselineInput {
  const sha = event.pr?.baseSha;
  if (!sha) throw new UserError("baseline: run needs a pull_request event (the base ref comes from it)");
  const agent =
    config.baseline?.source === "run" && config.baseline.agent ? config.baseline.agent : config.agent;
  return {
    kind: "run",
    agent,
    description: `the base commit ${sha.slice(0, 7)} evaluated in this job`,
    git: { sha, ref: event.pr?.baseRef ?? null },
    checkout: (log) => deps.checkoutBase(sha, loaded.baseDir, log),
  };
}

async function postComment(
  settings: Settings,
  event: EventInfo,
  config: Config,
  comparison: Comparison | null,
  report: string,
  reportArtifactUrl: string | null,
): Promise<{ url: string | null; problem: string | null }> {
  if (settings.comment === "never" || !event.pr) return { url: null, problem: null };
  if (!settings.token) return { url: null, problem: "no github-token: the report is in this summary only." };
  const marker = commentMarker(event.workflow, config.name);
  const body = fitComment(`${marker}\n${report}`, reportArtifactUrl ?? runUrl(event));
  // "Nothing changed": the same medal rate and a verdict the gate passes.
  const changed =
    !comparison ||
    comparison.verdict === "regressed" ||
    comparison.verdict === "error" ||
    (comparison.delta ?? 0) !== 0;
  try {
    const client = createClient(settings.token, {
      baseUrl: event.apiUrl,
      onRetry: (r) =>
        core.info(
          `GitHub ${r.method} ${r.url}: ${r.status ?? "no answer"}; retry ${r.attempt} in ${r.waitMs} ms`,
        ),
    });
    const result = await upsertStickyComment(
      client,
      { owner: event.owner, repo: event.repo, issueNumber: event.pr.number, marker },
      body,
      { create: settings.comment === "always" || changed },
    );
    if (result) core.info(`comment ${result.action}: ${result.url}`);
    return { url: result?.url ?? null, problem: null };
  } catch (e) {
    const status = (e as { status?: number }).status;
    const problem =
      status === 403
        ? "could not comment on the pull request (403: the token is read-only, as for pull requests from forks); the report is in this job summary and the report artifact. See docs/action.md for the workflow_run pattern."
        : `could not comment on the pull request (${status ?? ""} ${(e as Error).message}); the report is in this job summary.`;
    core.warning(`medalist: ${problem}`);
    return { url: null, problem };
  }
}
