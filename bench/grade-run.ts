// Child process of bench/grade.ts: grades one submission, prints {seconds, maxRssKb, score, error}.
// Does nothing when imported (bench/index.ts imports every bench file).
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { scoreSubmission } from "../src/grade/grade.js";
import { parseGraderSpec } from "../src/grade/spec.js";

export function gradeOnce(specJson: string, submission: string, answers: string): string {
  const t0 = performance.now();
  const r = scoreSubmission(parseGraderSpec(JSON.parse(specJson)), submission, answers);
  const seconds = (performance.now() - t0) / 1000;
  return JSON.stringify({
    seconds,
    maxRssKb: process.resourceUsage().maxRSS,
    score: r.score,
    error: r.error,
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [specJson, submission, answers] = process.argv.slice(2);
  console.log(gradeOnce(specJson, submission, answers));
}
