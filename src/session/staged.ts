// The staged sharded workflow's entry points, written once for both doors: after stage k, stop or
// continue (decideStage); at the end, the report over the stages that ran (reportStages).
import { UserError } from "../errors.js";
import type { History } from "../history/history.js";
import type { SuiteResults } from "../results/schema.js";
import { readResults } from "../suite/store.js";
import { evaluate, type Evaluation } from "./evaluate.js";
import type { BaselineInput, Session } from "./input.js";
import { everyStageRuns, stopsEarly } from "./rules.js";
import type { PlanFile } from "./shards.js";
import { decideAfterStage, mergeStages, stagesOfShards, type MergedStages } from "./stages.js";

/** The stages that ran, merged: `ran` of them, in order. */
export type RanStages = Pick<MergedStages, "results" | "byStage"> & { ran: number };

export interface StagesReportInput {
  session: Session;
  resultsDir: string;
  stages: RanStages;
  /** The plan's stage count. */
  planned: number;
  baseline: BaselineInput;
  /** Whether this is a pull request; undefined where there is no event (the CLI). */
  pr?: boolean;
  history?: History;
  notices?: string[];
  log?: (line: string) => void;
}

/**
 * The report over the stages that ran, judged by the same monitor as the decide step (one look per
 * stage). `incomplete` says why the check fails when stages are missing and no verdict came before them.
 */
export async function reportStages(
  input: StagesReportInput,
): Promise<{ ev: Evaluation; incomplete: string | null }> {
  const { session, stages, planned } = input;
  const ev = await evaluate({
    session,
    resultsDir: input.resultsDir,
    baseline: input.baseline,
    head: stages.results,
    history: input.history,
    notices: input.notices,
    log: input.log,
    monitor: stopsEarly(session.config, input.pr),
    stages: { byStage: stages.byStage, planned },
  });
  const stopped = ev.comparison?.monitor && ev.comparison.monitor.decision !== "continue";
  const incomplete =
    stages.ran < planned && !stopped
      ? `stages ${stages.ran + 1}..${planned} uploaded no results, and the verdict was not reached before them`
      : null;
  return { ev, incomplete };
}

export interface DecideInput {
  session: Session;
  /** The stage that finished (1-based) and the plan's stage count. */
  stage: number;
  planned: number;
  stages: RanStages;
  pr?: boolean;
  /** The baseline, read only when the head may stop early. */
  baseline: () => Promise<BaselineInput>;
}

/** After stage k: `stop` (the verdict reached, or the last stage) or `continue`, and the sentence why. */
export async function decideStage(input: DecideInput) {
  const { session, stage: k, planned, stages, pr } = input;
  const { config } = session;
  if (stages.ran < k)
    throw new UserError(`stage ${stages.ran + 1} uploaded no results: it cannot be decided on`, 1);
  const early = k < planned && stopsEarly(config, pr);
  const baseline = early ? await input.baseline() : null;
  return decideAfterStage({
    stage: k,
    planned,
    everyStageRuns: early ? null : everyStageRuns(config, pr),
    base: baseline?.kind === "results" ? baseline.results : null,
    baseDescription: baseline?.kind === "results" ? baseline.description : "none",
    head: stages.results,
    byStage: stages.byStage,
    config,
    plan: session.plan,
  });
}

/** A staged plan's stage count and each stage's shard count; refused when it is no staged plan of this suite. */
export function stagedPlan(planFile: PlanFile, planPath: string, session: Session) {
  if (!planFile.stages)
    throw new UserError(`${planPath}: a plan without stages; plan them: medalist plan --stages K --json`);
  if (planFile.suite.hash !== session.plan.suiteHash)
    throw new UserError(
      `${planPath} is for suite ${planFile.suite.hash} but this config is suite ${session.plan.suiteHash}: plan again`,
    );
  return planFile.stages.map((st) => st.count);
}

/** Head shard results files of stages 1..k, merged by stage (`medalist decide`). */
export function stagesFromFiles(
  session: Session,
  stageShards: number[],
  files: string[],
): RanStages & Pick<MergedStages, "missing"> {
  const { seeds } = session.config;
  const docs: SuiteResults[] = files.map((f) => readResults(f));
  const stages = stagesOfShards(docs, files, seeds, stageShards);
  return { ...mergeStages(stages, seeds, stageShards.length), ran: stages.length };
}

/** The base's results file for the staged workflow, described as the decide step names it. */
export function stagedFileBaseline(path: string): BaselineInput & { kind: "results" } {
  return { kind: "results", results: readResults(path), description: `file ${path}` };
}
