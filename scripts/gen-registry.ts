/**
 * Generates competitions/<id>/competition.json for MLE-bench's competitions from the facts in
 * scripts/mlebench-facts (competitions.csv, splits/*.txt, leaderboard_lfs_pointers.csv, lite-prepare.md)
 * and the native recipes in src/prepare/recipes.ts. Run once; the output is committed:
 *   npx tsx scripts/gen-registry.ts [FACTS_DIR]
 */
import { readFileSync, readdirSync, writeFileSync, mkdirSync } from "node:fs";
import { join, resolve, dirname, basename } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { format } from "prettier";
import { parseCsvRecords } from "../src/prepare/csv.js";
import { SPLIT_RECIPES } from "../src/prepare/recipes.js";
import { CompetitionSchema } from "../src/registry/schema.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const DEFAULT_FACTS_DIR =
  process.env.MEDALIST_MLEBENCH_FACTS ?? resolve(repoRoot, "scripts", "mlebench-facts");

/** Upstream's known issues as normalised flags. */
const FLAG_RULES: [RegExp, string][] = [
  [/leak|derivable from public/i, "leaked-test-labels"],
  [/crowded leaderboard/i, "crowded-leaderboard"],
  [/checksum mismatch/i, "checksum-mismatch"],
  [/missing from|sample_submission missing/i, "incomplete-data"],
  [/prepare\.py/i, "broken-preparation"],
  [/validate_submission/i, "grader-bug"],
];

export function flagsOf(knownIssue: string): string[] {
  if (!knownIssue.trim()) return [];
  const flags = FLAG_RULES.filter(([re]) => re.test(knownIssue)).map(([, f]) => f);
  if (flags.length === 0) throw new Error(`no flag rule matches known issue "${knownIssue}"`);
  return [...new Set(flags)];
}

/** Upstream MD5 checksums per lite competition, parsed from lite-prepare.md §2. */
export function parseChecksums(
  md: string,
): Map<string, { zip?: string; public: Record<string, string>; private: Record<string, string> }> {
  const out = new Map<
    string,
    { zip?: string; public: Record<string, string>; private: Record<string, string> }
  >();
  const sections = md.split(/^### 2\.\d+ /m).slice(1);
  for (const sec of sections) {
    const id = sec.split(/\s/)[0];
    const at = sec.indexOf("Checksums:");
    if (at < 0) continue;
    const text = sec.slice(at + "Checksums:".length).split(/\n\n|\n\* |\n###|\n---/)[0];
    const entry = {
      public: {} as Record<string, string>,
      private: {} as Record<string, string>,
      zip: undefined as string | undefined,
    };
    let side: "public" | "private" = "private";
    const re = /\b(private|public)\b|`([^`]+)`\s+([0-9a-f]{32})|\bzip\s+([0-9a-f]{32})/g;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      if (m[1]) side = m[1] as "public" | "private";
      else if (m[2]) entry[side][m[2]] = m[3];
      else if (m[4]) entry.zip = m[4];
    }
    out.set(id, entry);
  }
  return out;
}

/** MD5 of each lite competition's description.md, from lite-prepare.md §3's summary table. */
export function parseDescriptionMd5s(md: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of md.matchAll(/^\| ([A-Za-z0-9][\w.-]*) \|.*\| ([0-9a-f]{32}) \|$/gm)) out.set(m[1], m[2]);
  return out;
}

function num(v: string): number | undefined {
  return v.trim() === "" ? undefined : Number(v);
}

function bool(v: string): boolean {
  return v.trim().toLowerCase() === "true";
}

/** The generated files: path relative to competitions/ → file text. */
export async function generateRegistry(factsDir = DEFAULT_FACTS_DIR): Promise<Map<string, string>> {
  const rows = parseCsvRecords(readFileSync(join(factsDir, "competitions.csv"), "utf8"));
  const pointers = new Map(
    parseCsvRecords(readFileSync(join(factsDir, "leaderboard_lfs_pointers.csv"), "utf8")).map((r) => [
      r.competition_id,
      r,
    ]),
  );
  const splitFiles = readdirSync(join(factsDir, "splits"))
    .filter((f) => f.endsWith(".txt"))
    .sort();
  const splitsOf = new Map<string, string[]>();
  for (const f of splitFiles) {
    const name = basename(f, ".txt");
    for (const id of readFileSync(join(factsDir, "splits", f), "utf8")
      .split(/\r?\n/)
      .map((s) => s.trim())
      .filter(Boolean)) {
      splitsOf.set(id, [...(splitsOf.get(id) ?? []), name]);
    }
  }
  const lite = new Set(rows.filter((r) => (splitsOf.get(r.id) ?? []).includes("low")).map((r) => r.id));
  const litePrepare = readFileSync(join(factsDir, "lite-prepare.md"), "utf8");
  const checksums = parseChecksums(litePrepare);
  const descriptions = parseDescriptionMd5s(litePrepare);

  const files = new Map<string, string>();
  for (const r of rows) {
    const splits = [...(splitsOf.get(r.id) ?? [])];
    // MLE-bench's "all" is its 75 competitions (split75); the dev ones are not in it.
    if (r.in_75 === "True") splits.push("all");
    const privatePrefix = `${r.id}/prepared/private/`;
    const publicPrefix = `${r.id}/prepared/public/`;
    if (!r.answers_path.startsWith(privatePrefix))
      throw new Error(`${r.id}: unexpected answers path ${r.answers_path}`);
    const sample = r.sample_submission_path.startsWith(publicPrefix)
      ? r.sample_submission_path.slice(publicPrefix.length)
      : "../private/" + r.sample_submission_path.slice(privatePrefix.length);
    const pin = pointers.get(r.id);
    const sums = checksums.get(r.id);
    const recipe = lite.has(r.id)
      ? {
          zipMd5: sums?.zip,
          descriptionMd5: descriptions.get(r.id),
          checksums: sums ? { public: sums.public, private: sums.private } : undefined,
          split: SPLIT_RECIPES[r.id],
          note: SPLIT_RECIPES[r.id] ? undefined : "no native recipe",
        }
      : undefined;
    const competition = {
      id: r.id,
      name: r.name,
      category: r.category || "Other",
      splits: splits.sort(),
      metric: r.metric_family,
      isLowerBetter: bool(r.is_lower_better),
      grading: lite.has(r.id) ? "native" : "external",
      answers: r.answers_path.slice(privatePrefix.length),
      sampleSubmission: sample,
      leaderboardPin: pin ? { sha256: pin.lfs_oid_sha256, bytes: Number(pin.size_bytes) } : undefined,
      thresholds: {
        gold: Number(r.gold_threshold),
        silver: Number(r.silver_threshold),
        bronze: Number(r.bronze_threshold),
        median: Number(r.median_threshold),
        teamCount: num(r.num_teams_estimated),
        teamCountEstimated: true,
        source: r.thresholds_source,
      },
      flags: flagsOf(r.known_issue),
      source: "kaggle",
      upstream: {
        grader: r.grader_name_config,
        gradeFn: r.grade_fn,
        competitionType: r.competition_type,
        complexity: r.complexity_split,
        awardsMedals: bool(r.awards_medals_config),
        categorySource: r.category_source,
        datasetSizeGb: num(r.dataset_size_gb),
        hasGoldSubmission: bool(r.has_gold_submission),
        teamBracket: r.num_teams_bracket_estimated,
        sampleSubmissionScore: num(r.sample_submission_score),
        knownIssue: r.known_issue || undefined,
        rulesUrl: `https://www.kaggle.com/competitions/${r.id}/rules`,
      },
      prepare: recipe,
    };
    // Validate (throws on a bad field) but write the input form, which stays compact.
    CompetitionSchema.parse(competition);
    const text = await format(JSON.stringify(competition), { parser: "json", printWidth: 110 });
    files.set(`${r.id}/competition.json`, text);
  }
  return files;
}

async function main(): Promise<void> {
  const factsDir = process.argv[2] ? resolve(process.argv[2]) : DEFAULT_FACTS_DIR;
  const outDir = resolve(repoRoot, "competitions");
  const files = await generateRegistry(factsDir);
  for (const [rel, text] of files) {
    mkdirSync(dirname(join(outDir, rel)), { recursive: true });
    writeFileSync(join(outDir, rel), text);
  }
  console.log(`wrote ${files.size} competition.json files under ${outDir}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  await main();
}
