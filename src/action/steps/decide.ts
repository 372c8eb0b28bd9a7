// decide/: after stage k, `stop` once the verdict is reached (the report's sentence), else `continue`.
import * as core from "@actions/core";
import { refuseStagesWithRunBaseline } from "../../session/rules.js";
import { decideStage } from "../../session/staged.js";
import { DecideOutputs, StepInputs } from "../constants.js";
import type { Deps } from "../deps.js";
import type { EventInfo } from "../event.js";
import { actionBaseline, type ActionSession } from "../load.js";
import { readDecideInputs } from "../step-inputs.js";
import { downloadsOrFail, stagesSoFar } from "./common.js";

/** decide/: after stage k, `stop` once the verdict is reached (the report's sentence), else `continue`. */
export async function decideStep(deps: Deps, s: ActionSession, event: EventInfo): Promise<void> {
  const { stages: planned, stage: k } = readDecideInputs();
  refuseStagesWithRunBaseline(planned, s.settings.baseline.source, `input "${StepInputs.Stages}"`, "action");
  const api = downloadsOrFail(deps, s, event, "the stages' results cannot be downloaded");
  const got = await stagesSoFar(deps, s, api, planned, k);
  const d = await decideStage({
    session: s.session,
    stage: k,
    planned,
    stages: got,
    pr: !!event.pr,
    baseline: () => actionBaseline(deps, s, event),
  });
  if (d.comparison) core.setOutput(DecideOutputs.Verdict, d.comparison.verdict);
  core.setOutput(DecideOutputs.Decision, d.decision);
  core.setOutput(DecideOutputs.Sentence, d.why);
  core.info(`medalist: after stage ${k} of ${planned}: ${d.decision}. ${d.why}`);
}
