import type { Command } from "../command.js";
import { runCommand } from "./run.js";
import { demoCommand } from "./demo.js";
import { compareCommand } from "./compare.js";
import { reportCommand } from "./report.js";
import { schemaCommand } from "./schema.js";
import { competitionsCommand } from "./competitions.js";
import { prepareCommand } from "./prepare.js";
import { leaderboardsCommand } from "./leaderboards.js";
import { gradeCommand } from "./grade.js";
import { rankCommand } from "./rank.js";
import { migrateCommand } from "./migrate.js";
import { viewCommand } from "./view.js";
import { planCommand } from "./plan.js";
import { mergeCommand } from "./merge.js";
import { decideCommand } from "./decide.js";
import { exportCommand } from "./export.js";
import { importCommand } from "./import.js";
import { trendCommand } from "./trend.js";
import { mlebenchEnvCommand } from "./mlebench-env.js";
import { checkCommand } from "./check.js";

/** Every CLI command; each lives in its own file in this folder. */
export const commands: Command[] = [
  checkCommand,
  planCommand,
  runCommand,
  mergeCommand,
  decideCommand,
  demoCommand,
  compareCommand,
  reportCommand,
  viewCommand,
  trendCommand,
  schemaCommand,
  competitionsCommand,
  prepareCommand,
  leaderboardsCommand,
  gradeCommand,
  rankCommand,
  migrateCommand,
  exportCommand,
  importCommand,
  mlebenchEnvCommand,
];
