import { describe, expect, it } from "vitest";
import { breather } from "../helpers/breathe.js";
import { mkdtempSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readAnswers, scoreSubmissionText } from "../../src/grade/grade.js";
import { loadGraderSpec } from "../../src/grade/spec.js";
import { vectorFiles } from "./helpers.js";

/** mulberry32: a small seeded PRNG. */
function prng(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TOKENS = [
  "",
  "NaN",
  "nan",
  "NA",
  "inf",
  "-inf",
  "1e400",
  "-1",
  "2",
  "0.5",
  "abc",
  "True",
  '"',
  '""',
  "\t",
  " ",
  ",",
  "\n",
  "\r",
  "\u0000",
  "é",
  "1_0",
  "-0",
  "1e-320",
];

function mutate(text: string, rand: () => number): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  let lines = text.split("\n");
  const rounds = 1 + Math.floor(rand() * 3);
  for (let r = 0; r < rounds; r++) {
    const row = 1 + Math.floor(rand() * Math.max(1, lines.length - 1));
    const cells = (lines[row] ?? "").split(",");
    switch (Math.floor(rand() * 12)) {
      case 0:
        lines.splice(row, 1);
        break;
      case 1:
        lines.splice(row, 0, lines[row] ?? "");
        break;
      case 2:
        cells[Math.floor(rand() * cells.length)] = pick(TOKENS);
        lines[row] = cells.join(",");
        break;
      case 3:
        cells.push(pick(TOKENS));
        lines[row] = cells.join(",");
        break;
      case 4:
        cells.pop();
        lines[row] = cells.join(",");
        break;
      case 5: {
        const h = lines[0].split(",");
        h[Math.floor(rand() * h.length)] = pick(["id", "x", "", h[0]]);
        lines[0] = h.join(",");
        break;
      }
      case 6:
        lines = lines.slice(0, 1 + Math.floor(rand() * lines.length));
        break;
      case 7: {
        const p = Math.floor(rand() * text.length);
        lines = (lines.join("\n").slice(0, p) + pick(TOKENS) + lines.join("\n").slice(p)).split("\n");
        break;
      }
      case 8:
        lines = lines.map((l) => l + "\r");
        break;
      case 9:
        lines[0] = "\ufeff" + lines[0];
        break;
      case 10: {
        const i = Math.floor(rand() * lines.length),
          j = Math.floor(rand() * lines.length);
        [lines[i], lines[j]] = [lines[j], lines[i]];
        break;
      }
      default: {
        const bytes = Buffer.from(lines.join("\n"));
        for (let k = 0; k < 3 && bytes.length; k++)
          bytes[Math.floor(rand() * bytes.length)] = Math.floor(rand() * 256);
        lines = bytes.toString("latin1").split("\n");
      }
    }
  }
  return lines.join("\n");
}

const dir = mkdtempSync(join(tmpdir(), "medalist-fuzz-"));
const files = vectorFiles();
const setups = files.map((f) => {
  const c = f.cases[0];
  const [name, answers] = Object.entries(c.answers)[0];
  const answersPath = join(dir, `${f.competition_id}-${name}`);
  writeFileSync(answersPath, answers);
  const spec = loadGraderSpec(join("competitions", f.competition_id))!;
  const random = f.cases.find((x) => x.name === "valid_random")!;
  const refAnswersPath = join(dir, `${f.competition_id}-ref.csv`);
  writeFileSync(refAnswersPath, Object.values(random.answers)[0]);
  return {
    id: f.competition_id,
    spec,
    answers: readAnswers(spec, answersPath),
    refAnswers: readAnswers(spec, refAnswersPath),
    base: c.submission_csv,
  };
});

// Case count from the environment: .ci/run sets the full 10,000; the default keeps a local run short.
const CASES = Number(process.env.MEDALIST_FUZZ_CASES ?? 2_000);

describe("fuzz: mutated submissions are valid or invalid, never a crash", () => {
  it(
    `${CASES} mutations across the 22 lite graders (MEDALIST_FUZZ_CASES)`,
    { timeout: 300_000 },
    async () => {
      const breathe = breather();
      const rand = prng(20261202);
      const perCompetition = Math.ceil(CASES / setups.length);
      let valid = 0,
        invalid = 0;
      for (const s of setups) {
        for (let k = 0; k < perCompetition; k++) {
          await breathe();
          const r = scoreSubmissionText(s.spec, mutate(s.base, rand), s.answers);
          if (r.valid) {
            valid++;
            expect(typeof r.score).toBe("number");
          } else {
            invalid++;
            expect(r.error, `${s.id}: invalid without a reason`).toMatch(/\S/);
          }
        }
      }
      expect(valid + invalid).toBeGreaterThanOrEqual(CASES);
      expect(valid).toBeGreaterThan(CASES / 100);
      expect(invalid).toBeGreaterThan(CASES / 100);
    },
  );
});

interface RefCase {
  competition: string;
  mutation: string;
  submission: string;
  valid: boolean;
  score: number | null;
  nan: boolean;
}
const refs = (
  JSON.parse(readFileSync("test/grade/fixtures/mutations-reference.json", "utf8")) as { cases: RefCase[] }
).cases;

describe("mutations agree with a pandas + scikit-learn reference", () => {
  it.each(refs.map((c, i) => [`${c.competition} #${i} ${c.mutation}`, c] as const))("%s", (_n, c) => {
    const s = setups.find((x) => x.id === c.competition)!;
    const r = scoreSubmissionText(s.spec, c.submission, s.refAnswers);
    expect(r.valid, r.error ?? "").toBe(c.valid);
    if (c.valid && c.nan) expect(r.score).toBeNaN();
    else if (c.valid) expect(Math.abs((r.score as number) - (c.score as number))).toBeLessThanOrEqual(1e-9);
  });
});
