// Small dense linear algebra and models for the example agents.

/** Solves (A + lambda I) w = b for symmetric positive definite A by Cholesky. */
export function solve(A, b, lambda = 0) {
  const n = b.length;
  const L = Array.from({ length: n }, () => new Float64Array(n));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = A[i][j] + (i === j ? lambda : 0);
      for (let k = 0; k < j; k++) s -= L[i][k] * L[j][k];
      L[i][j] = i === j ? Math.sqrt(Math.max(s, 1e-12)) : s / L[j][j];
    }
  }
  const z = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = b[i];
    for (let k = 0; k < i; k++) s -= L[i][k] * z[k];
    z[i] = s / L[i][i];
  }
  const w = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    let s = z[i];
    for (let k = i + 1; k < n; k++) s -= L[k][i] * w[k];
    w[i] = s / L[i][i];
  }
  return w;
}

/** Bias, the features, their squares and pairwise products. */
export function expand(x) {
  const out = [1, ...x];
  for (let i = 0; i < x.length; i++) for (let j = i; j < x.length; j++) out.push(x[i] * x[j]);
  return out;
}

/** Column means and standard deviations (bias column untouched). */
export function scaler(X) {
  const d = X[0].length;
  const mean = new Float64Array(d);
  const sd = new Float64Array(d).fill(1);
  for (let j = 1; j < d; j++) {
    let m = 0;
    for (const r of X) m += r[j];
    m /= X.length;
    let v = 0;
    for (const r of X) v += (r[j] - m) ** 2;
    mean[j] = m;
    sd[j] = Math.sqrt(v / X.length) || 1;
  }
  return (r) => r.map((v, j) => (j === 0 ? 1 : (v - mean[j]) / sd[j]));
}

export function dot(w, x) {
  let s = 0;
  for (let j = 0; j < x.length; j++) s += w[j] * x[j];
  return s;
}

/** Ridge regression: weights for X (rows) → y. */
export function ridge(X, y, lambda) {
  const d = X[0].length;
  const A = Array.from({ length: d }, () => new Float64Array(d));
  const b = new Float64Array(d);
  for (let r = 0; r < X.length; r++) {
    const x = X[r];
    for (let i = 0; i < d; i++) {
      b[i] += x[i] * y[r];
      for (let j = 0; j <= i; j++) A[i][j] += x[i] * x[j];
    }
  }
  for (let i = 0; i < d; i++) for (let j = 0; j < i; j++) A[j][i] = A[i][j];
  return solve(A, b, lambda);
}

/** L2-regularised logistic regression by Newton's method (IRLS). */
export function logistic(X, y, lambda, iterations = 12) {
  const d = X[0].length;
  let w = new Float64Array(d);
  for (let it = 0; it < iterations; it++) {
    const H = Array.from({ length: d }, () => new Float64Array(d));
    const g = new Float64Array(d);
    for (let r = 0; r < X.length; r++) {
      const x = X[r];
      const p = 1 / (1 + Math.exp(-dot(w, x)));
      const s = p * (1 - p);
      for (let i = 0; i < d; i++) {
        g[i] += (p - y[r]) * x[i];
        for (let j = 0; j <= i; j++) H[i][j] += s * x[i] * x[j];
      }
    }
    for (let i = 0; i < d; i++) {
      g[i] += lambda * w[i];
      for (let j = 0; j < i; j++) H[j][i] = H[i][j];
    }
    const step = solve(H, g, lambda);
    w = w.map((v, i) => v - step[i]);
  }
  return w;
}
