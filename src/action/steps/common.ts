// What the action's steps share: the artifact service, the stages downloaded so far, the head's
// commit, and the report targets (publish) of an evaluation.
import { resolve } from "node:path";
import * as core from "@actions/core";
import { UserError } from "../../errors.js";
import type { History } from "../../history/history.js";
import type { Evaluation } from "../../session/evaluate.js";
import type { ArtifactApi } from "../artifacts.js";
import type { Deps } from "../deps.js";
import { isGhes, type EventInfo } from "../event.js";
import type { ActionSession } from "../load.js";
import { publish } from "../publish.js";
import { downloadStages, stageArtifactPrefix } from "../stages.js";

/** The head's commit as the event names it. */
export const headGit = (event: EventInfo) => ({
  sha: event.pr?.headSha || event.sha || null,
  ref: event.ref || null,
});

/** The artifact service, or a refusal naming `what` cannot happen without it. */
export function artifactsOrFail(deps: Deps, s: ActionSession, event: EventInfo, what: string): ArtifactApi {
  if (isGhes(event))
    throw new UserError(`${what}: GitHub Enterprise Server does not support artifacts from this action`, 1);
  if (!deps.env.ACTIONS_RUNTIME_TOKEN)
    throw new UserError(`${what}: no artifact service in this job (ACTIONS_RUNTIME_TOKEN is not set)`, 1);
  return deps.artifacts({ retentionDays: s.settings.retentionDays });
}

/** The artifact service that can list and download (report/, decide/). */
export function downloadsOrFail(deps: Deps, s: ActionSession, event: EventInfo, what: string) {
  const api = artifactsOrFail(deps, s, event, what);
  if (!api.list || !api.download) throw new UserError("this artifact client cannot list or download", 1);
  return api;
}

/** The stages that ran, merged; fails when none uploaded anything. */
export async function stagesSoFar(
  deps: Deps,
  s: ActionSession,
  api: ArtifactApi,
  planned: number,
  upTo: number,
) {
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

/** The evaluation's report targets: artifacts, report.md, the comment, the summary, the cache, the gate. */
export function publishEvaluation(
  deps: Deps,
  s: ActionSession,
  event: EventInfo,
  ev: Evaluation,
  history: History,
  runFolder?: (runId: string) => string,
): Promise<void> {
  return publish({ deps, settings: s.settings, event, ev, session: s.session, history, runFolder });
}
