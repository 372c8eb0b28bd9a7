// run/: one shard of each side that runs; its results uploaded as a uniquely named artifact.
import { join, resolve } from "node:path";
import * as core from "@actions/core";
import { attemptSuffix } from "../targets/artifacts.js";
import { runShardJob } from "../../session/entry.js";
import { artifactName, filesUnder, notesText, uploadFiles, withheldBy } from "../artifacts.js";
import { boundRuns, uploadBound } from "../bounded-upload.js";
import { Outputs, StepInputs } from "../constants.js";
import type { Deps } from "../deps.js";
import type { EventInfo } from "../event.js";
import { runStoreDir } from "../inputs.js";
import { actionBaseline, type ActionSession } from "../load.js";
import { recordTrust } from "../run-records.js";
import { sealShard } from "../shard-seal.js";
import { shardArtifactPrefix, stageArtifactPrefix } from "../stages.js";
import { readRunInputs } from "../step-inputs.js";
import { artifactsOrFail, headGit } from "./common.js";

/** run/: one shard of each side that runs; its results uploaded as a uniquely named artifact. */
export async function runStep(
  deps: Deps,
  s: ActionSession,
  event: EventInfo,
  signal: AbortSignal,
): Promise<void> {
  const { session, settings } = s;
  const { which, stage, planFile } = readRunInputs();
  const dir = resolve(settings.resultsDir);
  const paths = await runShardJob({
    session,
    resultsDir: dir,
    baselineSource: settings.baseline.source,
    stageField: `input "${StepInputs.Stage}"`,
    door: "action",
    baseline: () => actionBaseline(deps, s, event, { shard: true }),
    // On a pull request, nothing in its checkout is reused (the report job has no comment line for it).
    store: () => {
      const trust = recordTrust({
        resultsDir: dir,
        storeDir: runStoreDir(settings.runsDir, deps.env),
        event,
        env: deps.env,
      });
      for (const note of trust.notes) core.info(`medalist: ${note}`);
      if (trust.notice) core.warning(`medalist: ${trust.notice.replace(/^> ⚠️ /, "").replace(/\*\*/g, "")}`);
      return { storeDir: trust.storeDir, untrustedRecords: trust.untrusted };
    },
    which,
    planFile,
    stage,
    headGit: headGit(event),
    log: (l) => core.info(l),
    signal,
    runSuite: deps.runSuite,
    around: (shard) => core.group("Evaluate the shard", shard),
  });
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
  // Run folders hold files the agent named: a name the service refuses is renamed, not fatal.
  const { id, notes } = await uploadFiles(
    api,
    name,
    dir,
    bounded.files,
    withheldBy(dir, { binaryFiles: session.config.upload.binaryFiles }),
  );
  if (notes.length) core.info(`medalist: shard results uploaded with changes: ${notesText(notes)}`);
  core.info(`shard results uploaded as ${name}${id !== undefined ? ` (artifact ${id})` : ""}`);
  // Uploaded first (the report job fails closed on them too); the shard's check fails with the cause.
  if (paths.setupFailed) core.setFailed(`medalist: ${paths.setupFailed}`);
}
