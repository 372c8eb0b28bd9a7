#!/usr/bin/env node
// A weak baseline agent: it learns only the simplest statistic from the training data
// (the mean, the class priors, or the one most correlated feature).
import { fileURLToPath } from "node:url";
import { env, log, loadTask, writeSubmission, saveCode, random } from "../lib/contract.mjs";

const task = loadTask();
log(`weak agent on ${env.competition} (seed ${env.seed}): ${task.kind}, ${task.X.length} training rows`);
saveCode(fileURLToPath(import.meta.url));

// A bootstrap sample of the training rows, so that seeds differ.
const u = random(env.seed + 1);
const sample = task.X.map(() => Math.floor(u() * task.X.length));
const ys = sample.map((i) => task.y[i]);

let rows;
if (task.kind === "regression") {
  const mean = ys.reduce((a, b) => a + b, 0) / ys.length;
  rows = task.ids.map((id) => [id, mean.toFixed(5)]);
} else if (task.kind === "binary") {
  // Score by the single feature most correlated with the label.
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let best = 0;
  let bestCorr = 0;
  task.features.forEach((_, j) => {
    const xs = sample.map((i) => task.X[i][j]);
    const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
    let sxy = 0;
    let sxx = 0;
    xs.forEach((x, k) => {
      sxy += (x - mx) * (ys[k] - my);
      sxx += (x - mx) ** 2;
    });
    const c = sxy / Math.sqrt(sxx * ys.length * my * (1 - my));
    if (Math.abs(c) > Math.abs(bestCorr)) [best, bestCorr] = [j, c];
  });
  log(`using feature ${task.features[best]} (correlation ${bestCorr.toFixed(3)})`);
  rows = task.Xtest.map((x, k) => [
    task.ids[k],
    (1 / (1 + Math.exp(-Math.sign(bestCorr) * x[best]))).toFixed(6),
  ]);
} else {
  const counts = task.classes.map(() => 1);
  ys.forEach((c) => counts[c]++);
  const total = counts.reduce((a, b) => a + b, 0);
  const priors = counts.map((c) => (c / total).toFixed(6));
  rows = task.ids.map((id) => [id, ...priors]);
}
writeSubmission([task.idCol, ...task.targetCols], rows);
log(`wrote ${rows.length} predictions`);
