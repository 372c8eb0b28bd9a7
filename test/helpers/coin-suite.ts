// A suite of M copies of toy-species ("toy-coin-NN") and a seeded stochastic agent whose medal
// probability per competition comes from its env (MEDAL_P, or MEDAL_P_<id with _>): a copied
// sample submission beats the whole leaderboard (gold), no submission is no medal. SALT varies
// the draws; SLOW=<secs> makes every run after seed 0 take that long. Shared by the monitoring and history-informed end-to-end tests.
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Comparison } from "../../src/compare/compare.js";
import type { SuiteResults } from "../../src/results/schema.js";

/** What `medalist run` wrote to `out`: both sides' results (the base's when it ran), the comparison, the report. */
export function readRun(out: string) {
  const json = <T>(f: string) => JSON.parse(readFileSync(join(out, f), "utf8")) as T;
  return {
    head: json<SuiteResults>("head/results.json"),
    base: existsSync(join(out, "base/results.json")) ? json<SuiteResults>("base/results.json") : null,
    cmp: json<Comparison>("comparison.json"),
    report: readFileSync(join(out, "report.md"), "utf8"),
  };
}

export interface CoinSuite {
  ids: string[];
  /** A config file with this head agent (and a base agent run as the baseline when given), plus `extra` lines. */
  yml(name: string, head: Record<string, string>, base?: Record<string, string>, extra?: string[]): string;
}

export function coinSuite(
  dir: string,
  m: number,
  seedsLine = "seeds: { max: 3, adaptive: true }",
): CoinSuite {
  const root = join(import.meta.dirname, "..", "..");
  const ids = Array.from({ length: m }, (_, i) => `toy-coin-${String(i).padStart(2, "0")}`);
  for (const id of ids) {
    const to = join(dir, "registry", id);
    cpSync(join(root, "competitions", "toy-species"), to, { recursive: true });
    const c = JSON.parse(readFileSync(join(to, "competition.json"), "utf8")) as Record<string, unknown>;
    writeFileSync(join(to, "competition.json"), JSON.stringify({ ...c, id, splits: ["coin"] }));
    const rows = Array.from({ length: 50 }, (_, i) => {
      const s = (2 + i / 50).toFixed(4);
      return `${s},${100000 + i},True,2024-01-01T00:00:00,${s},True`;
    });
    writeFileSync(
      join(to, "leaderboard.csv"),
      ["scoreNullable,teamId,hasTeamName,submissionDate,score,hasScore", ...rows].join("\n") + "\n",
    );
  }
  writeFileSync(
    join(dir, "agent.mjs"),
    [
      'import { copyFileSync, mkdirSync } from "node:fs";',
      'import { join } from "node:path";',
      "const e = process.env;",
      "const id = e.COMPETITION_ID;",
      'const p = Number(e["MEDAL_P_" + id.replace(/-/g, "_")] ?? e.MEDAL_P ?? 0);',
      "let h = 2166136261;",
      "for (const ch of `${e.SALT}:${id}:${e.SEED}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;",
      "if (Number(e.SEED) >= 1 && e.SLOW) await new Promise((r) => setTimeout(r, Number(e.SLOW) * 1000));",
      "if (h / 4294967296 < p) {",
      "  mkdirSync(e.SUBMISSION_DIR, { recursive: true });",
      '  copyFileSync(join(e.DATA_DIR, "sample_submission.csv"), join(e.SUBMISSION_DIR, "submission.csv"));',
      "}",
      "",
    ].join("\n"),
  );
  const env = (vars: Record<string, string>) =>
    `{ ${Object.entries(vars)
      .map(([k, v]) => `${k}: "${v}"`)
      .join(", ")} }`;
  const agent = (vars: Record<string, string>) =>
    `{ command: node ${join(dir, "agent.mjs")}, env: ${env(vars)} }`;
  const yml = (
    name: string,
    head: Record<string, string>,
    base?: Record<string, string>,
    extra: string[] = [],
  ) => {
    writeFileSync(
      join(dir, `${name}.yml`),
      [
        `name: ${name}`,
        "competitions: { split: coin }",
        ...(extra.some((l) => l.startsWith("seeds:")) ? [] : [seedsLine]),
        "executor: local",
        `agent: ${agent(head)}`,
        "limits: { time: 60s }",
        "dataDir: data",
        "registryDir: registry",
        ...(base ? [`baseline: { source: run, agent: ${agent(base)} }`] : []),
        ...extra,
        "",
      ].join("\n"),
    );
    return join(dir, `${name}.yml`);
  };
  return { ids, yml };
}
