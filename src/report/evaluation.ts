// The report of an evaluation as the doors show it: the comparison's report, or the head alone with
// why there is no baseline, the notices first and the lost runs' warning last.
import { GATE_DEFAULTS, type Config } from "../config/schema.js";
import type { Comparison } from "../compare/compare.js";
import type { TrendPoint } from "../history/history.js";
import type { SuiteResults } from "../results/schema.js";
import { incompleteNote, noBaselineRule } from "./gate.js";
import { inert } from "./inert.js";
import { renderReport, renderResults } from "./markdown.js";

export interface RenderOptions {
  /** Trajectory links by run directory. */
  links?: Record<string, string>;
  fullReportUrl?: string;
  /** Where the HTML viewer is (an artifact page, or a path). */
  viewerUrl?: string;
  /** A few lines shown before everything else (e.g. which config judged a pull request). */
  notices?: string[];
}

/** Environment facts for the report's footer, read from the head's results. */
export function environmentFacts(head: SuiteResults): Record<string, string | null> {
  return {
    agent: head.agent.imageDigest ?? head.agent.image ?? head.agent.description,
    executor: head.environment.executor,
    ...(head.environment.runtime ? { runtime: head.environment.runtime } : {}),
    GPU: head.environment.gpuModel,
    "time limit": `${head.environment.timeLimitSecs}s`,
    ...(head.environment.unsandboxed
      ? { sandbox: `none, the agent ran unsandboxed (${head.environment.unsandboxed})` }
      : {}),
  };
}

/** The report for a comparison, or for the head alone (with the reason there is no baseline). */
export function renderEvaluation(
  head: SuiteResults,
  comparison: Comparison | null,
  baselineNote: string | null,
  opts: RenderOptions & { gate?: Config["gate"]; trend?: TrendPoint[] } = {},
  base: SuiteResults | null = null,
): string {
  const gate = opts.gate ?? GATE_DEFAULTS;
  const lost = incompleteNote(head, base);
  const viewer = opts.viewerUrl
    ? `\n[Open the trajectory viewer](${opts.viewerUrl}) (runs, logs, code).\n`
    : "";
  const text = comparison
    ? renderReport(comparison, {
        links: opts.links,
        environment: environmentFacts(head),
        fullReportUrl: opts.fullReportUrl,
        viewerUrl: opts.viewerUrl,
        trend: opts.trend,
      })
    : `> ⚠️ **No baseline**: ${baselineNote ?? "none was given"}. ${noBaselineRule(gate, lost !== null, head)}\n\n${renderResults(head, { links: opts.links })}${viewer}`;
  const first = opts.notices?.length ? `${opts.notices.join("\n\n")}\n\n` : "";
  return first + (lost ? `${text}\n> ⚠️ ${inert(lost, 4000)}\n` : text);
}
