// plan/: the shards as a matrix for the run jobs, and what they are expected to cost.
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import * as core from "@actions/core";
import { refuseStagesWithRunBaseline } from "../../session/rules.js";
import { describePlan, planShards } from "../../session/shards.js";
import { writeAtomic } from "../../util/atomic.js";
import { PlanOutputs, StepInputs } from "../constants.js";
import type { Settings } from "../inputs.js";
import type { JudgedConfig } from "../judge.js";
import { loadSession } from "../load.js";
import { readPlanInputs } from "../step-inputs.js";

/** plan/: the shards as a matrix for the run jobs, and what they are expected to cost. */
export async function planStep(settings: Settings, judged?: JudgedConfig): Promise<void> {
  const { session, settings: effective } = loadSession(settings, judged);
  const input = readPlanInputs();
  refuseStagesWithRunBaseline(
    input.stages,
    effective.baseline.source,
    `input "${StepInputs.Stages}"`,
    "action",
  );
  const plan = planShards(session, {
    shards: input.shards ?? (input.maxShards === undefined ? 1 : undefined),
    maxShards: input.maxShards,
    targetSecs: input.targetSecs,
    durations: input.durations,
    usdPerGpuHour: input.usdPerGpuHour,
    stages: input.stages,
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
