// report/: every shard's results downloaded and merged (or the stages that ran), compared once,
// one comment, the gate.
import { join, resolve } from "node:path";
import * as core from "@actions/core";
import { UserError } from "../../errors.js";
import type { SuiteResults } from "../../results/schema.js";
import { reportShards } from "../../session/entry.js";
import { refuseStagesWithRunBaseline } from "../../session/rules.js";
import { reportStages } from "../../session/staged.js";
import type { ArtifactApi } from "../artifacts.js";
import { StepInputs } from "../constants.js";
import type { Deps } from "../deps.js";
import type { EventInfo } from "../event.js";
import { actionBaseline, type ActionSession } from "../load.js";
import { loadHistory } from "../publish.js";
import { readShardSide, refusedNotice } from "../shard-seal.js";
import { shardArtifactPrefix, shardArtifacts } from "../stages.js";
import { readReportInputs } from "../step-inputs.js";
import { downloadsOrFail, publishEvaluation, stagesSoFar } from "./common.js";

/** report/: every shard's results downloaded and merged, compared once, one comment, the gate. */
export async function reportStep(deps: Deps, s: ActionSession, event: EventInfo): Promise<void> {
  const { session, settings } = s;
  const input = readReportInputs();
  const dir = resolve(settings.resultsDir);
  const api = downloadsOrFail(deps, s, event, "the shards' results cannot be downloaded");
  const field = `input "${StepInputs.Stages}"`;
  refuseStagesWithRunBaseline(input.stages, settings.baseline.source, field, "action");
  if (input.stages !== undefined) return stagedReport(deps, s, event, api, input.stages);
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
    await api.download!(id, into);
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
  const { ev, history } = await reportShards({
    session,
    resultsDir: dir,
    heads,
    bases: ranInShards ? bases : null,
    expectShards: input.shards,
    warn: (line) => core.warning(line),
    baseline: (ran) => actionBaseline(deps, s, event, { ranInShards: ran }),
    history: () => loadHistory(deps, session.config.name),
    notices: settings.notices,
  });
  const runFolder = (runId: string) => join(dir, "shards", String(shardOfRun.get(runId) ?? 0), "head");
  await publishEvaluation(deps, s, event, ev, history, runFolder);
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
  const got = await stagesSoFar(deps, s, api, planned, planned);
  if (got.refusedNotice) settings.notices = [...(settings.notices ?? []), got.refusedNotice];
  const baseline = await actionBaseline(deps, s, event);
  const history = await loadHistory(deps, session.config.name);
  const { ev, incomplete } = await reportStages({
    session,
    resultsDir: resolve(settings.resultsDir),
    stages: got,
    planned,
    baseline,
    pr: !!event.pr,
    history,
    notices: settings.notices,
  });
  await publishEvaluation(deps, s, event, ev, history, got.runFolder);
  if (incomplete) core.setFailed(`medalist: ${incomplete}`);
}
