#!/usr/bin/env node
// A better agent: quadratic features with a regularised linear model (ridge, logistic regression)
// or a Gaussian discriminant, with the regularisation chosen on a seeded validation split.
import { fileURLToPath } from "node:url";
import { env, log, metric, loadTask, writeSubmission, saveCode, random } from "../lib/contract.mjs";
import { expand, scaler, ridge, logistic, dot } from "../lib/linear.mjs";

const task = loadTask();
log(`strong agent on ${env.competition} (seed ${env.seed}): ${task.kind}, ${task.X.length} training rows`);
saveCode(fileURLToPath(import.meta.url), fileURLToPath(new URL("../lib/linear.mjs", import.meta.url)));

// A seeded 80/20 split of the training rows: fit on 80 %, choose on 20 %.
const u = random(env.seed + 7);
const order = task.X.map((_, i) => [u(), i])
  .sort((a, b) => a[0] - b[0])
  .map((p) => p[1]);
const cut = Math.floor(order.length * 0.8);
const fit = order.slice(0, cut);
const hold = order.slice(cut);

function auc(scores, labels) {
  const idx = scores.map((_, i) => i).sort((a, b) => scores[a] - scores[b]);
  let rank = 0;
  let pos = 0;
  let sumPos = 0;
  for (let k = 0; k < idx.length;) {
    let e = k;
    while (e + 1 < idx.length && scores[idx[e + 1]] === scores[idx[k]]) e++;
    const avg = (k + e + 2) / 2;
    for (let t = k; t <= e; t++) {
      if (labels[idx[t]] === 1) {
        sumPos += avg;
        pos++;
      }
    }
    rank = e + 1;
    k = e + 1;
  }
  const neg = rank - pos;
  return (sumPos - (pos * (pos + 1)) / 2) / (pos * neg);
}

const header = [task.idCol, ...task.targetCols];
let rows;
if (task.kind === "multiclass") {
  // Gaussian discriminant with a shared covariance (fitted on the 80 % split, shrinkage chosen on 20 %).
  const K = task.classes.length;
  const d = task.features.length;
  const model = (rowsIdx, shrink) => {
    const means = Array.from({ length: K }, () => new Float64Array(d));
    const counts = new Float64Array(K);
    for (const i of rowsIdx) {
      counts[task.y[i]]++;
      task.X[i].forEach((v, j) => (means[task.y[i]][j] += v));
    }
    means.forEach((m, k) => m.forEach((_, j) => (m[j] /= counts[k] || 1)));
    const varj = new Float64Array(d);
    for (const i of rowsIdx) task.X[i].forEach((v, j) => (varj[j] += (v - means[task.y[i]][j]) ** 2));
    varj.forEach((_, j) => (varj[j] = varj[j] / rowsIdx.length + shrink));
    const prior = [...counts].map((c) => (c + 1) / (rowsIdx.length + K));
    return (x) => {
      const logits = means.map(
        (m, k) => Math.log(prior[k]) - x.reduce((s, v, j) => s + (v - m[j]) ** 2 / (2 * varj[j]), 0),
      );
      const mx = Math.max(...logits);
      const e = logits.map((l) => Math.exp(l - mx));
      const z = e.reduce((a, b) => a + b, 0);
      return e.map((v) => Math.min(Math.max(v / z, 1e-4), 1));
    };
  };
  let best = { loss: Infinity, shrink: 0 };
  for (const shrink of [0, 0.05, 0.2, 0.5]) {
    const f = model(fit, shrink);
    const loss = hold.reduce((s, i) => s - Math.log(f(task.X[i])[task.y[i]]), 0) / hold.length;
    metric("val_logloss", loss, shrink);
    if (loss < best.loss) best = { loss, shrink };
  }
  log(`chose shrinkage ${best.shrink} (validation log loss ${best.loss.toFixed(4)})`);
  const f = model(fit, best.shrink);
  rows = task.Xtest.map((x, k) => {
    const p = f(x);
    const z = p.reduce((a, b) => a + b, 0);
    return [task.ids[k], ...p.map((v) => (v / z).toFixed(6))];
  });
} else {
  const F = task.X.map(expand);
  const scale = scaler(F);
  const Z = F.map(scale);
  const pick = (idx) => idx.map((i) => Z[i]);
  const ys = (idx) => idx.map((i) => task.y[i]);
  let best = { score: -Infinity, lambda: 1 };
  for (const lambda of [0.1, 1, 10, 100]) {
    let score;
    if (task.kind === "regression") {
      const w = ridge(pick(fit), ys(fit), lambda);
      score = -Math.sqrt(hold.reduce((s, i) => s + (dot(w, Z[i]) - task.y[i]) ** 2, 0) / hold.length);
      metric("val_rmse", -score, lambda);
    } else {
      const w = logistic(pick(fit), ys(fit), lambda, 8);
      score = auc(
        hold.map((i) => dot(w, Z[i])),
        ys(hold),
      );
      metric("val_auc", score, lambda);
    }
    if (score > best.score) best = { score, lambda };
  }
  log(
    `chose lambda ${best.lambda} (validation ${task.kind === "regression" ? "RMSE" : "AUC"} ${Math.abs(best.score).toFixed(4)})`,
  );
  const Zt = task.Xtest.map((x) => scale(expand(x)));
  if (task.kind === "regression") {
    const w = ridge(pick(fit), ys(fit), best.lambda);
    rows = Zt.map((z, k) => [task.ids[k], dot(w, z).toFixed(5)]);
  } else {
    const w = logistic(pick(fit), ys(fit), best.lambda, 8);
    rows = Zt.map((z, k) => [task.ids[k], (1 / (1 + Math.exp(-dot(w, z)))).toFixed(6)]);
  }
}
writeSubmission(header, rows);
log(`wrote ${rows.length} predictions`);
