// The sub-actions plan/, run/, report/ and decide/: one suite sharded across runners, and after
// each stage of a staged suite the decision to go on or stop (docs/action.md).
import { mkdirSync } from "node:fs";
import { writeAtomic } from "../util/atomic.js";
import { join, resolve } from "node:path";
import * as core from "@actions/core";
import { UserError } from "../errors.js";
import { attemptSuffix } from "./targets/artifacts.js";
import type { SuiteResults } from "../results/schema.js";
import { evaluate } from "../session/evaluate.js";
import { mergeShards } from "../session/merge.js";
import { describePlan, planShards, runShard } from "../session/shards.js";
import {
  artifactName,
  filesUnder,
  notesText,
  uploadFiles,
  withheldBy,
  type ArtifactApi,
} from "./artifacts.js";
import { DecideOutputs, Outputs, PlanOutputs, StepInputs } from "./constants.js";
import type { Deps } from "./deps.js";
import { readDecideInputs, readPlanInputs, readReportInputs, readRunInputs } from "./step-inputs.js";
import { isGhes, type EventInfo } from "./event.js";
import { runStoreDir, type Settings } from "./inputs.js";
import { recordTrust } from "./run-records.js";
import { boundRuns, uploadBound } from "./bounded-upload.js";
import { readShardSide, refusedNotice, sealShard } from "./shard-seal.js";
import type { JudgedConfig } from "./judge.js";
import { actionBaseline, loadSession, type ActionSession } from "./load.js";
import { decideAfterStage } from "../session/stages.js";
import { loadHistory, publish } from "./publish.js";
import { downloadStages, shardArtifactPrefix, shardArtifacts, stageArtifactPrefix } from "./stages.js";

/** plan/: the shards as a matrix for the run jobs, and what they are expected to cost. */
export async function planStep(settings: Settings, judged?: JudgedConfig): Promise<void> {
  const { session, settings: effective } = loadSession(settings, judged);
  const input = readPlanInputs();
  const plan = planShards(session, {
    shards: input.shards ?? (input.maxShards === undefined ? 1 : undefined),
    maxShards: input.maxShards,
    targetSecs: input.targetSecs,
    durations: input.durations,
    usdPerGpuHour: input.usdPerGpuHour,
    stages: stagesAllowed(input.stages, effective),
  });
  const dir = resolve(settings.resultsDir);
  mkdirSync(dir, { recursive: true });
  const json = JSON.stringify(plan);
  writeAtomic(join(dir, "plan.json"), json + "\n");
  core.setOutput(PlanOutputs.Plan, json);
  core.setOutput(PlanOutputs.Matrix, JSON.stringify(plan.matrix));
  core.setOutput(PlanOutputs.Count, String(plan.count));
  // A matrix without entries fails the workflow: the run jobs check this instead.
  core.setOutput(PlanOutputs.Empty, plan.count === 0 ? "true" : "false");
  // Staged: one matrix per stage, read as fromJSON(needs.plan.outputs.stages)[k - 1].
  core.setOutput(PlanOutputs.Stages, plan.stages ? JSON.stringify(plan.stages.map((st) => st.matrix)) : "");
  core.info(describePlan(plan));
  await core.summary
    .addHeading(`Medalist plan · ${plan.suite.name}`, 3)
    .addRaw(describePlan(plan).replace(/\n/g, "\n\n"), true)
    .addTable([
      [
        { data: "shard", header: true },
        { data: "runs", header: true },
        { data: "expected", header: true },
      ],
      ...plan.shards.map((s) => [
        `${s.index}/${plan.count}`,
        String(s.runIds.length),
        `${Math.round(s.expectedSecs / 60)} min`,
      ]),
    ])
    .write();
}

/** Input "stages" (plan/, report/, decide/): refused with baseline run. */
function stagesAllowed<T extends number | undefined>(
  stages: T,
  settings: { baseline: { source: string } },
): T {
  if (stages !== undefined && settings.baseline.source === "run")
    throw new UserError(
      `input "${StepInputs.Stages}": stages need a baseline from the cache or a file; with baseline run the base would be cut short too`,
    );
  return stages;
}

function artifactsOrFail(deps: Deps, s: ActionSession, event: EventInfo, what: string): ArtifactApi {
  if (isGhes(event))
    throw new UserError(`${what}: GitHub Enterprise Server does not support artifacts from this action`, 1);
  if (!deps.env.ACTIONS_RUNTIME_TOKEN)
    throw new UserError(`${what}: no artifact service in this job (ACTIONS_RUNTIME_TOKEN is not set)`, 1);
  return deps.artifacts({ retentionDays: s.settings.retentionDays });
}

/** run/: one shard of each side that runs; its results uploaded as a uniquely named artifact. */
export async function runStep(
  deps: Deps,
  s: ActionSession,
  event: EventInfo,
  signal: AbortSignal,
): Promise<void> {
  const { session, settings } = s;
  const { which, stage, planFile } = readRunInputs();
  if (stage !== undefined && settings.baseline.source === "run")
    throw new UserError(
      `input "${StepInputs.Stage}": stages need a baseline from the cache or a file, not run`,
    );
  const dir = resolve(settings.resultsDir);
  const baseline = await actionBaseline(deps, s, event, { shard: true });
  // On a pull request, nothing in its checkout is reused (the report job has no comment line for it).
  const trust = recordTrust({
    resultsDir: dir,
    storeDir: runStoreDir(settings.runsDir, deps.env),
    event,
    env: deps.env,
  });
  for (const note of trust.notes) core.info(`medalist: ${note}`);
  if (trust.notice) core.warning(`medalist: ${trust.notice.replace(/^> ⚠️ /, "").replace(/\*\*/g, "")}`);
  const paths = await core.group("Evaluate the shard", () =>
    runShard({
      session,
      resultsDir: dir,
      baseline,
      which,
      planFile,
      stage,
      headGit: { sha: event.pr?.headSha || event.sha || null, ref: event.ref || null },
      log: (l) => core.info(l),
      signal,
      runSuite: deps.runSuite,
      storeDir: trust.storeDir,
      untrustedRecords: trust.untrusted,
    }),
  );
  core.setOutput(Outputs.ResultsPath, paths.head);
  // Sealed for this workflow run: the report and decide jobs accept only results that check.
  sealShard(dir, deps.env);
  // The results are on disk; the report job can only see them through the artifact.
  const api = artifactsOrFail(deps, s, event, "the shard's results cannot reach the report job");
  const prefix =
    stage === undefined
      ? shardArtifactPrefix(session.config.name)
      : stageArtifactPrefix(session.config.name, stage);
  const name = artifactName(`${prefix}${which.index}-of-${which.count}${attemptSuffix(deps.env)}`);
  // Bounded per run as the run store is: a huge (or sparse) file is left out, the result never.
  const bounded = boundRuns(
    dir,
    [...filesUnder(join(dir, "head")), ...filesUnder(join(dir, "base"))],
    uploadBound(deps.env),
  );
  for (const note of bounded.notes) core.info(`medalist: ${note}`);
  const files = bounded.files;
  // Run folders hold files the agent named: a name the service refuses is renamed, not fatal.
  const { id, notes } = await uploadFiles(
    api,
    name,
    dir,
    files,
    withheldBy(dir, { binaryFiles: session.config.upload.binaryFiles }),
  );
  if (notes.length) core.info(`medalist: shard results uploaded with changes: ${notesText(notes)}`);
  core.info(`shard results uploaded as ${name}${id !== undefined ? ` (artifact ${id})` : ""}`);
  // Uploaded first (the report job fails closed on them too); the shard's check fails with the cause.
  if (paths.setupFailed) core.setFailed(`medalist: ${paths.setupFailed}`);
}

/** report/: every shard's results downloaded and merged, compared once, one comment, the gate. */
export async function reportStep(deps: Deps, s: ActionSession, event: EventInfo): Promise<void> {
  const { session, settings } = s;
  const input = readReportInputs();
  const expect = input.shards;
  const dir = resolve(settings.resultsDir);
  const api = artifactsOrFail(deps, s, event, "the shards' results cannot be downloaded");
  if (!api.list || !api.download) throw new UserError("this artifact client cannot list or download", 1);
  const stages = stagesAllowed(input.stages, settings);
  if (stages !== undefined) return stagedReport(deps, s, event, api, stages);
  const prefix = shardArtifactPrefix(session.config.name);
  const chosen = await shardArtifacts(api, prefix);
  if (chosen.size === 0)
    throw new UserError(
      `no shard results were uploaded (no artifact named ${prefix}…): every run job failed before uploading`,
      1,
    );
  const heads: SuiteResults[] = [];
  const bases: SuiteResults[] = [];
  const shardOfRun = new Map<string, number>();
  const ranInShards = settings.baseline.source === "run";
  const refused: { what: string; runs: number }[] = [];
  for (const [index, id] of chosen) {
    const into = join(dir, "shards", String(index));
    await api.download(id, into);
    const what = `shard ${index}`;
    const head = readShardSide(join(into, "head"), what, deps.env);
    heads.push(head.results);
    for (const r of head.results.runs) shardOfRun.set(r.runId, index);
    let runs = head.refused ? head.results.runs.length : 0;
    if (head.refused) core.warning(`medalist: ${head.refused}`);
    if (ranInShards) {
      const base = readShardSide(join(into, "base"), `${what} (base)`, deps.env);
      bases.push(base.results);
      if (base.refused) core.warning(`medalist: ${base.refused}`);
      runs += base.refused ? base.results.runs.length : 0;
    }
    if (runs > 0) refused.push({ what, runs });
  }
  const refusal = refusedNotice(refused);
  // Every rendering of the report (comment, summary, report.md) starts with the notices.
  if (refusal) settings.notices = [...(settings.notices ?? []), refusal];
  const head = mergeShards(heads, { expectShards: expect });
  if (head.missing.length)
    core.warning(
      `medalist: ${head.missing.length} run(s) never ran: ${head.results.runs.find((r) => r.details.notRun)?.error}`,
    );
  const baseline = await actionBaseline(deps, s, event, {
    ranInShards: ranInShards ? mergeShards(bases, { expectShards: expect }).results : undefined,
  });
  const history = await loadHistory(deps, session.config.name);
  const ev = await evaluate({
    session,
    resultsDir: dir,
    baseline,
    head: head.results,
    history,
    notices: settings.notices,
  });
  await publish({
    deps,
    settings,
    event,
    ev,
    session,
    history,
    runFolder: (runId) => join(dir, "shards", String(shardOfRun.get(runId) ?? 0), "head"),
  });
}

/** The stages that ran, merged; fails when none uploaded anything. */
async function stagesSoFar(deps: Deps, s: ActionSession, api: ArtifactApi, planned: number, upTo: number) {
  const { session, settings } = s;
  const dir = resolve(settings.resultsDir);
  const got = await downloadStages(
    api,
    dir,
    session.config.name,
    session.config.seeds,
    planned,
    upTo,
    deps.env,
  );
  if (!got)
    throw new UserError(
      `no results of stage 1 were uploaded (no artifact named ${stageArtifactPrefix(session.config.name, 1)}…)`,
      1,
    );
  if (got.missing.length)
    core.warning(`medalist: ${got.missing.length} run(s) of the stages that ran never ran`);
  for (const line of got.refused) core.warning(`medalist: ${line}`);
  return got;
}

/** Only a pull request stops early, and only when the (judged) config asks for adaptive seeds. */
const stopsEarly = (s: ActionSession, event: EventInfo) =>
  !!event.pr && s.session.config.adaptiveSeeds && s.session.config.seeds > 1;

/** decide/: after stage k, `stop` once the verdict is reached (the report's sentence), else `continue`. */
export async function decideStep(deps: Deps, s: ActionSession, event: EventInfo): Promise<void> {
  const { stages: planned, stage: k } = readDecideInputs();
  stagesAllowed(planned, s.settings);
  const api = artifactsOrFail(deps, s, event, "the stages' results cannot be downloaded");
  if (!api.list || !api.download) throw new UserError("this artifact client cannot list or download", 1);
  const got = await stagesSoFar(deps, s, api, planned, k);
  if (got.ran < k)
    throw new UserError(`stage ${got.ran + 1} uploaded no results: it cannot be decided on`, 1);
  const out = (decision: "stop" | "continue", why: string) => {
    core.setOutput(DecideOutputs.Decision, decision);
    core.setOutput(DecideOutputs.Sentence, why);
    core.info(`medalist: after stage ${k} of ${planned}: ${decision}. ${why}`);
  };
  const early = k < planned && stopsEarly(s, event);
  const baseline = early ? await actionBaseline(deps, s, event) : null;
  const d = decideAfterStage({
    stage: k,
    planned,
    everyStageRuns: early
      ? null
      : event.pr
        ? "The config's seeds are not adaptive (seeds: { max: N, adaptive: true }): every stage runs."
        : "Not a pull request: every stage runs, so the results saved as later baselines are whole.",
    base: baseline?.kind === "results" ? baseline.results : null,
    baseDescription: baseline?.kind === "results" ? baseline.description : "none",
    head: got.results,
    byStage: got.byStage,
    config: s.session.config,
    plan: s.session.plan,
  });
  if (d.comparison) core.setOutput(DecideOutputs.Verdict, d.comparison.verdict);
  out(d.decision, d.why);
}

/** report/ with stages: the stages that ran, merged and judged by the same monitor, one comment, the gate. */
async function stagedReport(
  deps: Deps,
  s: ActionSession,
  event: EventInfo,
  api: ArtifactApi,
  planned: number,
) {
  const { session, settings } = s;
  const dir = resolve(settings.resultsDir);
  const got = await stagesSoFar(deps, s, api, planned, planned);
  if (got.refusedNotice) settings.notices = [...(settings.notices ?? []), got.refusedNotice];
  const baseline = await actionBaseline(deps, s, event);
  const history = await loadHistory(deps, session.config.name);
  const ev = await evaluate({
    session,
    resultsDir: dir,
    baseline,
    head: got.results,
    history,
    notices: settings.notices,
    monitor: stopsEarly(s, event),
    stages: { byStage: got.byStage, planned },
  });
  await publish({ deps, settings, event, ev, session, history, runFolder: got.runFolder });
  const stopped = ev.comparison?.monitor && ev.comparison.monitor.decision !== "continue";
  if (got.ran < planned && !stopped)
    core.setFailed(
      `medalist: stages ${got.ran + 1}..${planned} uploaded no results, and the verdict was not reached before them`,
    );
}
