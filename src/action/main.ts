// The action's front door: read the inputs, open the session, evaluate, hand the Evaluation to
// the report targets (publish.ts). The sub-actions plan/, run/, report/ and decide/ are in steps.ts.
import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import * as core from "@actions/core";
import { UserError } from "../errors.js";
import { createClient } from "../github/client.js";
import { cancelOnSignals } from "../session/cancel.js";
import { evaluate } from "../session/evaluate.js";
import { readTail } from "../execute/run-log.js";
import { Outputs } from "./constants.js";
import { defaultDeps, type Deps } from "./deps.js";
import { readEvent, type EventInfo } from "./event.js";
import { readSettings, runStoreDir, type Settings } from "./inputs.js";
import { actionBaseline, loadSession, type ActionSession } from "./load.js";
import { loadHistory, publish } from "./publish.js";
import { COMMENT_ARTIFACT, downloadCommentFiles, relayComment } from "./relay.js";
import { judgeConfig } from "./judge.js";
import { checkRuntimeGate } from "./runtime-gate.js";
import { recordTrust, refuseLinkedResultsDir } from "./run-records.js";
import { readStep } from "./step-inputs.js";
import { decideStep, planStep, reportStep, runStep } from "./steps.js";

export type { Deps } from "./deps.js";

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
  const deps = { ...defaultDeps, ...overrides };
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
  // The key that seals run records and shard results; shared by shards on several runners.
  if (settings.runKey) {
    core.setSecret(settings.runKey);
    deps.env.MEDALIST_RUN_KEY = settings.runKey;
    process.env.MEDALIST_RUN_KEY = settings.runKey;
  }

  if (event.workflowRun) return relay(settings, event);

  const refusal = forkRefusal(event, settings);
  if (refusal) {
    core.setFailed(refusal);
    await core.summary.addHeading("Medalist: not run", 3).addRaw(refusal, true).write();
    return;
  }

  const step = readStep();
  const judged = await judgeConfig(settings, event, deps.env, (line) => core.info(line));
  refuseLinkedResultsDir(settings.resultsDir, event, deps.env);
  if (step === "plan") return planStep(settings, judged);
  // Only the steps that run agents need the daemon: a pull request's agent needs a sandboxing runtime.
  if (step === "all" || step === "run") await checkRuntimeGate(judged.config, event, settings);
  const s = loadSession(settings, judged);
  mkdirSync(resolve(settings.resultsDir), { recursive: true });
  // A cancelled job gets SIGINT then SIGTERM: the first stops the runs, the second kills them.
  const cancel = cancelOnSignals((line) => core.info(line));
  try {
    if (step === "run") return await runStep(deps, s, event, cancel.signal);
    if (step === "report") return await reportStep(deps, s, event);
    if (step === "decide") return await decideStep(deps, s, event);
    await evaluateAndPublish(deps, s, event, cancel.signal);
  } finally {
    cancel.dispose();
  }
}

/** The whole evaluation in this job: the baseline, the head, the comparison, the report targets. */
async function evaluateAndPublish(deps: Deps, s: ActionSession, event: EventInfo, signal: AbortSignal) {
  const { session, settings } = s;
  const log = (line: string) => core.info(line);
  // The cache restore comes first: a broken cache service fails the job before any GPU time is spent.
  const baseline = await actionBaseline(deps, s, event);
  // On a pull request, nothing in its checkout is reused; what was found there is named first.
  const trust = recordTrust({
    resultsDir: settings.resultsDir,
    storeDir: runStoreDir(settings.runsDir, deps.env),
    event,
    env: deps.env,
  });
  for (const note of trust.notes) log(`medalist: ${note}`);
  // Every rendering of the report (comment, summary, report.md) starts with the notices.
  if (trust.notice) settings.notices = [...(settings.notices ?? []), trust.notice];
  const storeDir = trust.storeDir;
  if (storeDir) log(`finished runs persist in ${storeDir} (keyed by run identity; input runs-dir)`);
  const history = await loadHistory(deps, session.config.name);
  // No enclosing group: each finished run is its own group (groups do not nest).
  const ev = await evaluate({
    history,
    notices: settings.notices,
    untrustedRecords: trust.untrusted,
    progress: { runDone: runGroup },
    session,
    resultsDir: resolve(settings.resultsDir),
    baseline,
    headGit: { sha: event.pr?.headSha || event.sha || null, ref: event.ref || null },
    log,
    signal,
    runSuite: deps.runSuite,
    storeDir,
    // Only a pull request stops early: the default branch's results become later baselines.
    monitor: !!event.pr,
  });
  await publish({
    deps,
    settings,
    event,
    ev,
    session,
    history,
  });
}

/** A finished run as a log group: its line, then the last lines its agent wrote. */
function runGroup(line: string, runDir: string): void {
  core.startGroup(line);
  const tail = readTail(join(runDir, "run.log"), 16 * 1024)
    .split("\n")
    .slice(-40)
    .join("\n");
  // The agent's lines must not act as workflow commands (::add-mask::, ::error::, …).
  const token = randomUUID();
  process.stdout.write(`::stop-commands::${token}\n${tail || "(no output)"}\n::${token}::\n`);
  core.endGroup();
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
