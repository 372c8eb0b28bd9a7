import type { RunResult, SuiteResults } from "../results/schema.js";
import type { Comparison } from "../compare/compare.js";
import type { Bounded, FileEntry } from "./read.js";
import type { Metrics, TablePreview, TrajectoryEvent, TreeNode } from "./parse.js";

/** Everything a run page shows, gathered from the results and the run folder (see load.ts). */
export interface RunData {
  side: "base" | "head";
  result: RunResult;
  /** The page's file name, relative to the site root. */
  page: string;
  /** Folder of the log page files, relative to the site root (used when `log` is set). */
  logDir: string | null;
  /** run.log: its size, the pages written (starts), the last error lines; null without one. */
  log: {
    bytes: number;
    truncated: boolean;
    /** Bytes of the log shown in the pages when cut by reading (null: cut by the output bound). */
    shownBytes?: number | null;
    lines: number;
    starts: number[];
    tail: string[];
  } | null;
  metrics: Metrics | null;
  files: FileEntry[];
  filesMore: boolean;
  /** Text of plain files under code/ and logs/ (bounded), by path relative to the run folder. */
  texts: Record<string, Bounded>;
  submission: { preview: TablePreview; bytes: number; truncated: boolean } | null;
  tree: { file: string; nodes: TreeNode[] } | null;
  events: { file: string; events: TrajectoryEvent[] } | null;
  /** The run folder was not found beside the results file. */
  missingFolder: boolean;
  /** The page of the image build log when the suite's setup failed (set by the writer). */
  buildLog?: { page: string; name: string } | null;
  /** Links to the paired run, the code diff and the neighbouring runs (set by the writer). */
  nav?: RunNav;
}

/** A run page's neighbours, as paths relative to the site root (null: there is none). */
export interface RunNav {
  /** The other side's run of the same competition and seed. */
  pair: string | null;
  /** The base → head code diff of this competition and seed. */
  diff: string | null;
  /** The previous and next run of the same side, by competition and seed. */
  prev: string | null;
  next: string | null;
}

export interface LeaderboardData {
  scores: (number | null)[];
  source: string;
}

import type { TrendPoint } from "../history/history.js";

export interface SiteData {
  head: SuiteResults;
  base: SuiteResults | null;
  runs: RunData[];
  leaderboards: Record<string, LeaderboardData | null>;
  /** Default-branch trend, this run last (empty without a history). */
  history: TrendPoint[];
  /**
   * The comparison the index leads with (the one the comment and the CLI report); null without a
   * baseline. `comparisonNote` says where it came from when the viewer computed it itself, or why
   * there is none.
   */
  comparison?: Comparison | null;
  comparisonNote?: string | null;
}

export const runKey = (r: { competitionId: string; seed: number }) => `${r.competitionId}#${r.seed}`;
