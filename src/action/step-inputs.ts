// The sub-actions' own inputs (constants.ts StepInputs), read and checked once per sub-action.
import { resolve } from "node:path";
import * as core from "@actions/core";
import { UserError } from "../errors.js";
import { MAX_SHARDS } from "../plan/shards.js";
import { MAX_STAGES } from "../plan/stages.js";
import type { SuiteResults } from "../results/schema.js";
import { stageNumber, targetWallSecs, wholeNumberIn } from "../session/rules.js";
import { parseShardText, PlanFileSchema, type PlanFile } from "../session/shards.js";
import { readResults } from "../suite/store.js";
import { StepInputs as S } from "./constants.js";

export type Read = (name: string) => string;
const fromCore: Read = (name) => core.getInput(name);

export type Step = "all" | "plan" | "run" | "report" | "decide";
const STEPS: readonly Step[] = ["all", "plan", "run", "report", "decide"];

/** Which sub-action this bundle runs; the main action leaves `step` unset ("all"). */
export function readStep(read: Read = fromCore): Step {
  const text = read(S.Step).trim() || "all";
  if (!(STEPS as readonly string[]).includes(text))
    throw new UserError(`input "${S.Step}": expected ${STEPS.join(", ")}, got ${JSON.stringify(text)}`);
  return text as Step;
}

/** A whole number from `min` to `max`; undefined when left empty. */
function wholeInput(
  read: Read,
  name: string,
  min: number,
  max: number,
  parse = (text: string) => wholeNumberIn(text, min, max),
): number | undefined {
  const text = read(name).trim();
  if (text === "") return undefined;
  const n = parse(text);
  if (n === null)
    throw new UserError(
      `input "${name}": expected a whole number from ${min} to ${max}, got ${JSON.stringify(text)}`,
    );
  return n;
}

/** A number of 0 or more; undefined when left empty. */
function amountInput(read: Read, name: string): number | undefined {
  const text = read(name).trim();
  if (text === "") return undefined;
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0)
    throw new UserError(`input "${name}": expected a number of 0 or more, got ${JSON.stringify(text)}`);
  return n;
}

/** A stage number (stages, stage): the rule's parser, the input's sentence. */
const stageInput = (read: Read, name: string) => wholeInput(read, name, 1, MAX_STAGES, stageNumber);
const readStages = (read: Read) => stageInput(read, S.Stages);
const readShards = (read: Read) => wholeInput(read, S.Shards, 1, MAX_SHARDS);

export interface PlanInputs {
  shards?: number;
  maxShards?: number;
  targetSecs?: number;
  durations: SuiteResults[];
  usdPerGpuHour?: number;
  stages?: number;
}

export function readPlanInputs(read: Read = fromCore): PlanInputs {
  const target = read(S.TargetWall).trim();
  const targetSecs = target === "" ? undefined : (targetWallSecs(target) ?? undefined);
  if (target !== "" && targetSecs === undefined)
    throw new UserError(
      `input "${S.TargetWall}": expected a duration like 6h or 90m, got ${JSON.stringify(target)}`,
    );
  return {
    shards: readShards(read),
    maxShards: wholeInput(read, S.MaxShards, 1, MAX_SHARDS),
    targetSecs,
    durations: read(S.Durations)
      .split(/[\n,]/)
      .map((s) => s.trim())
      .filter(Boolean)
      .map((f) => readResults(resolve(f))),
    usdPerGpuHour: amountInput(read, S.UsdPerGpuHour),
    stages: readStages(read),
  };
}

export interface RunInputs {
  which: { index: number; count: number };
  stage?: number;
  planFile?: PlanFile;
}

export function readRunInputs(read: Read = fromCore): RunInputs {
  const planText = read(S.Plan).trim();
  let planFile: PlanFile | undefined;
  if (planText) {
    let json: unknown;
    try {
      json = JSON.parse(planText);
    } catch {
      json = undefined;
    }
    const parsed = PlanFileSchema.safeParse(json);
    if (!parsed.success) throw new UserError(`input "${S.Plan}": not a plan from the plan sub-action`);
    planFile = parsed.data;
  }
  return {
    which: parseShardText(read(S.Shard), `input "${S.Shard}"`),
    stage: stageInput(read, S.Stage),
    planFile,
  };
}

export interface ReportInputs {
  shards?: number;
  stages?: number;
}

export function readReportInputs(read: Read = fromCore): ReportInputs {
  return { shards: readShards(read), stages: readStages(read) };
}

export interface DecideInputs {
  stages: number;
  stage: number;
}

export function readDecideInputs(read: Read = fromCore): DecideInputs {
  const stages = readStages(read);
  const stage = stageInput(read, S.Stage);
  if (stages === undefined || stage === undefined || stage > stages)
    throw new UserError(
      `decide: give "${S.Stages}" (the plan's) and "${S.Stage}" (1..${S.Stages}, the stage that finished)`,
    );
  return { stages, stage };
}
