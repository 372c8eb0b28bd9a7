// Everything after the evaluation: the report targets (artifacts, report.md, the sticky comment,
// the job summary), then the default branch's history and baseline cache, the outputs and the gate.
import { join, resolve } from "node:path";
import * as core from "@actions/core";
import { appendAndSave, restoreHistory } from "../history/cache.js";
import { emptyHistory, entryOf, type History } from "../history/history.js";
import {
  attemptSuffix,
  reportArtifactsTarget,
  trajectoriesTarget,
  type ArtifactPlace,
} from "./targets/artifacts.js";
import { stickyCommentTarget } from "./targets/comment.js";
import { reportFileTarget } from "./targets/report-file.js";
import { jobSummaryTarget } from "./targets/summary.js";
import { deliverAll, newDelivery } from "./targets/target.js";
import type { Evaluation } from "../session/evaluate.js";
import type { Session } from "../session/input.js";
import { plainSentence } from "../report/gate.js";
import { NO_CACHE_SERVICE, saveToCache } from "./baseline.js";
import { Outputs } from "./constants.js";
import type { Deps } from "./deps.js";
import { isGhes, runUrl, type EventInfo } from "./event.js";
import type { EffectiveSettings } from "./inputs.js";
import { COMMENT_FILE } from "./relay.js";

/** Where the default branch's history is restored to and saved from (a fixed path: the cache version depends on it). */
const HISTORY_DIR = ".medalist/history-cache";

const fmt = (x: number | null | undefined) =>
  x === null || x === undefined || Number.isNaN(x) ? "" : x.toFixed(4);

/** The default branch's history (the cache), for the trend; a missing or broken history only warns. */
export async function loadHistory(deps: Deps, suite: string): Promise<History> {
  // Without a cache service, @actions/cache would only fail after a retry (10 s): say so at once.
  if (deps.cache.available?.() === false) {
    core.warning(`medalist: history not restored: ${NO_CACHE_SERVICE}`);
    return emptyHistory();
  }
  const restored = await restoreHistory(deps.cache, resolve(HISTORY_DIR), suite);
  if (restored.problem) core.warning(`medalist: ${restored.problem}`);
  return restored.history;
}

/** The artifact service of this job, or why there is none. */
function artifactPlace(
  deps: Deps,
  settings: EffectiveSettings,
  event: EventInfo,
  suite: string,
  binaryFiles: boolean,
): ArtifactPlace {
  const unsupported = isGhes(event)
    ? "GitHub Enterprise Server does not support artifact uploads from this action"
    : !deps.env.ACTIONS_RUNTIME_TOKEN
      ? "no artifact service in this job: ACTIONS_RUNTIME_TOKEN is not set"
      : null;
  return {
    api: unsupported ? null : deps.artifacts({ retentionDays: settings.retentionDays }),
    unsupported,
    page: (id) => `${runUrl(event)}/artifacts/${id}`,
    attempt: attemptSuffix(deps.env),
    suite,
    resultsDir: resolve(settings.resultsDir),
    binaryFiles,
  };
}

export interface PublishInput {
  deps: Deps;
  settings: EffectiveSettings;
  event: EventInfo;
  ev: Evaluation;
  /** The judged config and its plan: the suite's name, hash and upload settings. */
  session: Session;
  /** The history restored before the evaluation; this head joins it on the default branch. */
  history: History;
  /** Where a head run's folder is (merged shards keep theirs apart); default: head/ here. */
  runFolder?: (runId: string) => string;
}

export async function publish(p: PublishInput): Promise<void> {
  const { deps, settings, event, ev } = p;
  const { config } = p.session;
  const suite = config.name;
  const resultsDir = resolve(settings.resultsDir);
  const place = artifactPlace(deps, settings, event, suite, config.upload.binaryFiles);
  const d = newDelivery(
    ev,
    { fullReportUrl: runUrl(event), notices: settings.notices },
    { warn: (m) => core.warning(m), info: (m) => core.info(m) },
  );
  await deliverAll(
    [
      trajectoriesTarget(place, p.runFolder ?? (() => join(resultsDir, "head"))),
      reportFileTarget(ev.paths.report),
      reportArtifactsTarget(
        place,
        event.pr ?? null,
        deps.env.GITHUB_RUN_ATTEMPT,
        join(resultsDir, COMMENT_FILE),
      ),
      stickyCommentTarget({
        mode: settings.comment,
        token: settings.token,
        apiUrl: event.apiUrl,
        owner: event.owner,
        repo: event.repo,
        pr: event.pr?.number ?? null,
        workflow: event.workflow,
        suite,
        fullReportUrl: runUrl(event),
      }),
      jobSummaryTarget(),
    ],
    d,
  );
  await saveForDefaultBranch(p);
  const cmp = ev.comparison;
  core.setOutput(Outputs.MedalRate, fmt(ev.medalRate));
  core.setOutput(Outputs.BaselineMedalRate, fmt(cmp?.base.medalRate));
  core.setOutput(Outputs.Delta, fmt(cmp?.delta));
  core.setOutput(Outputs.Verdict, cmp?.verdict ?? "inconclusive");
  core.setOutput(Outputs.ResultsPath, ev.paths.head);
  core.setOutput(Outputs.ReportPath, ev.paths.report);
  core.setOutput(Outputs.CommentUrl, d.commentUrl ?? "");
  if (ev.gate.fails) core.setFailed(`medalist: ${plainSentence(ev.gate)}`);
}

/** On the default branch: the history grows by this head and its results become a cached baseline. */
async function saveForDefaultBranch(p: PublishInput): Promise<void> {
  const { deps, event, settings, ev } = p;
  const { config, plan } = p.session;
  if (!event.onDefaultBranch) return;
  if (deps.cache.available?.() === false) {
    const what = settings.baseline.source === "none" ? "history" : "history and baseline";
    core.warning(`medalist: ${what} not saved to the cache: ${NO_CACHE_SERVICE}`);
    return;
  }
  const saved = await appendAndSave(
    deps.cache,
    resolve(HISTORY_DIR),
    config.name,
    p.history,
    entryOf(ev.head),
  );
  if (saved.problem) core.warning(`medalist: ${saved.problem}`);
  if (settings.baseline.source === "none") return;
  const problem = await saveToCache(deps.cache, ev.paths.head, plan.suiteHash, event.sha);
  if (problem) core.warning(`medalist: baseline not saved to the cache: ${problem}`);
  else core.info(`baseline saved for suite ${plan.suiteHash} at ${event.sha.slice(0, 7)}`);
}
