// The main action: the whole evaluation in this job (baseline, head, comparison), then the report targets.
import { randomUUID } from "node:crypto";
import { join, resolve } from "node:path";
import * as core from "@actions/core";
import { runEvaluation } from "../../session/entry.js";
import { readTail } from "../../execute/run-log.js";
import type { Deps } from "../deps.js";
import type { EventInfo } from "../event.js";
import { runStoreDir } from "../inputs.js";
import { actionBaseline, type ActionSession } from "../load.js";
import { loadHistory } from "../publish.js";
import { recordTrust } from "../run-records.js";
import { headGit, publishEvaluation } from "./common.js";

/** The whole evaluation in this job: the baseline, the head, the comparison, the report targets. */
export async function allStep(deps: Deps, s: ActionSession, event: EventInfo, signal: AbortSignal) {
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
  const ev = await runEvaluation({
    history,
    notices: settings.notices,
    untrustedRecords: trust.untrusted,
    progress: { runDone: runGroup },
    session,
    resultsDir: resolve(settings.resultsDir),
    baseline,
    headGit: headGit(event),
    log,
    signal,
    runSuite: deps.runSuite,
    storeDir,
    pr: !!event.pr,
  });
  await publishEvaluation(deps, s, event, ev, history);
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
