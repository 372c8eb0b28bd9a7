// Grading speed and memory: Medalist's grader against pandas + scikit-learn doing the same
// work (MLE-bench's recipe), each in its own process, on generated files:
//   - binary ROC AUC, 1,000,000 rows (16-hex ids), submission in answers order and shuffled;
//   - multi-class log loss, 100,000 rows × 120 classes (shuffled), probabilities written with
//     9 significant digits and at full precision (17 digits, as pandas' to_csv writes them);
//   - RMSE in new-york-city-taxi's shape (answers with its 8 columns and text keys, submission
//     key,fare_amount shuffled; rows paired by sorting both on key), 1M rows, and 10M rows with
//     MEDALIST_BENCH_TAXI_10M=1 (about 1.5 GB of files and minutes of pandas time).
// The ratio is of whole processes (wall time from spawn to exit: interpreter start, imports,
// reading, grading); the time inside each process after its libraries load is shown beside it.
// Medalist runs as a bundle (as dist/ ships), pandas as upstream runs it. Peak memory is the
// process's max RSS. Ratios are reported, never asserted. Run alone: npx tsx bench/grade.ts
import { spawnSync } from "node:child_process";
import { createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { once } from "node:events";
import { performance } from "node:perf_hooks";

const here = fileURLToPath(new URL(".", import.meta.url));

/** mulberry32 */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function writeLines(
  path: string,
  header: string,
  n: number,
  line: (i: number) => string,
): Promise<void> {
  const out = createWriteStream(path);
  out.write(header + "\n");
  let buf = "";
  for (let i = 0; i < n; i++) {
    buf += line(i) + "\n";
    if (buf.length > 1 << 20) {
      if (!out.write(buf)) await once(out, "drain");
      buf = "";
    }
  }
  out.end(buf);
  await once(out, "finish");
}

function shuffled(n: number, rand: () => number): Int32Array {
  const p = Int32Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    const t = p[i];
    p[i] = p[j];
    p[j] = t;
  }
  return p;
}

interface Run {
  /** Inside the process, after its libraries are loaded. */
  seconds: number;
  /** The whole process, spawn to exit. */
  wall: number;
  maxRssKb: number;
  score: number | null;
  error?: string | null;
}

const PYTHON_REFERENCE = String.raw`
import sys, json, time, resource
import numpy as np, pandas as pd
from sklearn.metrics import roc_auc_score, log_loss, mean_squared_error
kind, sub_path, ans_path = sys.argv[1:4]
t0 = time.perf_counter()
sub = pd.read_csv(sub_path, float_precision="round_trip")
ans = pd.read_csv(ans_path, float_precision="round_trip")
if kind == "auc":
    I, T = "id", "label"
    assert I in sub.columns and T in sub.columns and len(sub) == len(ans)
    sub[T] = pd.to_numeric(sub[T])
    assert not (sub[T].min() < 0 or sub[T].max() > 1)
    sub = sub.sort_values(I); ans = ans.sort_values(I)
    assert (sub[I].values == ans[I].values).all()
    score = roc_auc_score(ans[T], sub[T])
elif kind == "taxi":
    # upstream's new-york-city-taxi grade: both sorted by key, fares compared by position
    assert "fare_amount" in sub.columns and "key" in sub.columns
    sub = sub.sort_values("key"); ans = ans.sort_values("key")
    score = np.sqrt(mean_squared_error(ans["fare_amount"], sub["fare_amount"]))
else:
    classes = [c for c in ans.columns if c != "id"]
    assert all(c in sub.columns for c in classes) and "id" in sub.columns and len(sub) == len(ans)
    assert np.isclose(sub[classes].sum(axis=1), 1, atol=1e-6).all()
    assert ((sub[classes] >= 0) & (sub[classes] <= 1)).all().all()
    sub = sub[["id"] + classes].sort_values("id"); ans = ans.sort_values("id")
    assert (sub["id"].values == ans["id"].values).all()
    score = log_loss(ans[classes].values, sub[classes].values)
seconds = time.perf_counter() - t0
print(json.dumps({"seconds": seconds, "maxRssKb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "score": float(score)}))
`;

function findPython(): string | null {
  for (const py of ["/usr/bin/python3", "python3"]) {
    const r = spawnSync(py, ["-c", "import pandas, sklearn"], { encoding: "utf8" });
    if (r.status === 0) return py;
  }
  return null;
}

function runJson(cmd: string, args: string[]): Run {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { encoding: "utf8", maxBuffer: 1 << 24 });
  const wall = (performance.now() - t0) / 1000;
  if (r.status !== 0)
    throw new Error(`${cmd} failed: ${(r.stderr || r.stdout).trim().split("\n").slice(-3).join(" / ")}`);
  return { ...(JSON.parse(r.stdout.trim().split("\n").pop()!) as Run), wall };
}

/** grade-run.ts bundled into one file, as dist/ ships the grader (no TypeScript at run time). */
async function bundleRunner(dir: string): Promise<string> {
  const { build } = await import("esbuild");
  const outfile = join(dir, "grade-run.mjs");
  await build({
    entryPoints: [join(here, "grade-run.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
    logLevel: "silent",
  });
  return outfile;
}

function ours(runner: string, spec: object, sub: string, ans: string): Run {
  return runJson(process.execPath, [runner, JSON.stringify(spec), sub, ans]);
}

/** Best of `times` runs (least disturbed by other load) for time; memory of that run. */
function best(times: number, f: () => Run): Run {
  let b: Run | null = null;
  for (let i = 0; i < times; i++) {
    const r = f();
    if (!b || r.wall < b.wall) b = r;
  }
  return b!;
}

/**
 * new-york-city-taxi's answers (its 8 test columns; keys like `2009-06-15 17:26:21.0000001`,
 * distinct) and a shuffled `key,fare_amount` submission.
 */
async function writeTaxi(dir: string, n: number, rand: () => number): Promise<{ ans: string; sub: string }> {
  const t0 = Date.UTC(2009, 0, 1) / 1000;
  const keyOf = (i: number) => {
    const t = new Date((t0 + Math.floor(i * 18.7)) * 1000).toISOString();
    return `${t.slice(0, 10)} ${t.slice(11, 19)}.${String(1 + (i % 9999999)).padStart(7, "0")}`;
  };
  const fare = Float64Array.from({ length: n }, () => Math.round((2.5 + rand() * 40) * 100) / 100);
  const coord = () => (-74 + rand() * 0.3).toFixed(6) + "," + (40.6 + rand() * 0.3).toFixed(6);
  const ans = join(dir, `taxi-${n}-answers.csv`),
    sub = join(dir, `taxi-${n}-submission.csv`);
  await writeLines(
    ans,
    "key,fare_amount,pickup_datetime,pickup_longitude,pickup_latitude,dropoff_longitude,dropoff_latitude,passenger_count",
    n,
    (i) => {
      const k = keyOf(i);
      return `${k},${fare[i]},${k.slice(0, 19)} UTC,${coord()},${coord()},${1 + Math.floor(rand() * 6)}`;
    },
  );
  const perm = shuffled(n, rand);
  await writeLines(sub, "key,fare_amount", n, (q) => {
    const i = perm[q];
    return `${keyOf(i)},${(fare[i] + (rand() - 0.5) * 8).toFixed(4)}`;
  });
  return { ans, sub };
}

const mb = (kb: number) => (kb / 1024).toFixed(0);

export async function benchGrade(opts: { repeats?: number } = {}): Promise<string> {
  const repeats = opts.repeats ?? 2;
  const dir = mkdtempSync(join(tmpdir(), "medalist-bench-grade-"));
  try {
    const rand = prng(2026);
    // Binary AUC, 1M rows.
    const n = 1_000_000;
    const ids = Array.from(
      { length: n },
      (_, i) =>
        (Math.imul(i, 2654435761) >>> 0).toString(16).padStart(8, "0") + i.toString(16).padStart(8, "0"),
    );
    const label = Uint8Array.from({ length: n }, () => (rand() < 0.3 ? 1 : 0));
    const prob = Float64Array.from({ length: n }, (_, i) => Math.min(1, 0.35 * label[i] + 0.65 * rand()));
    const aucAns = join(dir, "auc-answers.csv"),
      aucSame = join(dir, "auc-ordered.csv"),
      aucShuf = join(dir, "auc-shuffled.csv");
    await writeLines(aucAns, "id,label", n, (i) => `${ids[i]},${label[i]}`);
    await writeLines(aucSame, "id,label", n, (i) => `${ids[i]},${prob[i]}`);
    const perm = shuffled(n, rand);
    await writeLines(aucShuf, "id,label", n, (k) => `${ids[perm[k]]},${prob[perm[k]]}`);

    // Log loss, 100k rows × 120 classes.
    const m = 100_000,
      k = 120;
    const classes = Array.from({ length: k }, (_, j) => `class_${String(j).padStart(3, "0")}`);
    const llIds = Array.from(
      { length: m },
      (_, i) => (Math.imul(i + 7, 2246822519) >>> 0).toString(16).padStart(8, "0") + i.toString(16),
    );
    const truth = Int32Array.from({ length: m }, () => Math.floor(rand() * k));
    const llAns = join(dir, "ll-answers.csv"),
      llSub = join(dir, "ll-shuffled.csv");
    await writeLines(llAns, ["id", ...classes].join(","), m, (i) => {
      const row = new Array<string>(k).fill("0");
      row[truth[i]] = "1";
      return `${llIds[i]},${row.join(",")}`;
    });
    const perm2 = shuffled(m, rand);
    // The same probabilities at full precision (what pandas' to_csv writes): 17 significant digits.
    const llFull = join(dir, "ll-full.csv");
    await writeLines(llSub, ["id", ...classes].join(","), m, (q) => {
      const i = perm2[q];
      const w = Array.from({ length: k }, (_, j) => (j === truth[i] ? 5 : 0) + rand());
      const sum = w.reduce((a, b) => a + b, 0);
      return `${llIds[i]},${w.map((x) => (x / sum).toPrecision(9)).join(",")}`;
    });
    const rand2 = prng(7);
    await writeLines(llFull, ["id", ...classes].join(","), m, (q) => {
      const i = perm2[q];
      const w = Array.from({ length: k }, (_, j) => (j === truth[i] ? 5 : 0) + rand2());
      const sum = w.reduce((a, b) => a + b, 0);
      return `${llIds[i]},${w.map((x) => String(x / sum)).join(",")}`;
    });

    const cases: {
      name: string;
      rows: number;
      spec: object;
      py: string;
      sub: string;
      ans: string;
      once?: boolean;
    }[] = [
      {
        name: "binary AUC, 1M rows, rows in answers order",
        rows: n,
        spec: { kind: "binary-auc", id: "id", target: "label" },
        py: "auc",
        sub: aucSame,
        ans: aucAns,
      },
      {
        name: "binary AUC, 1M rows, rows shuffled",
        rows: n,
        spec: { kind: "binary-auc", id: "id", target: "label" },
        py: "auc",
        sub: aucShuf,
        ans: aucAns,
      },
      {
        name: "log loss, 100k rows × 120 classes, shuffled, 9 digits",
        rows: m,
        spec: { kind: "multiclass-logloss", id: "id", classes },
        py: "logloss",
        sub: llSub,
        ans: llAns,
      },
      {
        name: "log loss, 100k rows × 120 classes, shuffled, full precision",
        rows: m,
        spec: { kind: "multiclass-logloss", id: "id", classes },
        py: "logloss",
        sub: llFull,
        ans: llAns,
      },
    ];
    const taxiSpec = { kind: "rmse", id: "key", target: "fare_amount", ids: "sort-only" };
    const taxi1 = await writeTaxi(dir, 1_000_000, rand);
    cases.push({
      name: "RMSE (nyc-taxi), 1M rows, shuffled, text keys",
      rows: 1_000_000,
      spec: taxiSpec,
      py: "taxi",
      ...taxi1,
    });
    if (process.env.MEDALIST_BENCH_TAXI_10M === "1") {
      const taxi10 = await writeTaxi(dir, 10_000_000, rand);
      cases.push({
        name: "RMSE (nyc-taxi), 10M rows, shuffled, text keys",
        rows: 10_000_000,
        spec: taxiSpec,
        py: "taxi",
        ...taxi10,
        once: true,
      });
    }
    const runner = await bundleRunner(dir);
    // The files just written are flushed first: writing them back would slow whichever case runs first.
    spawnSync("sync");
    const python = findPython();
    const pyScript = join(dir, "reference.py");
    if (python) {
      const { writeFileSync } = await import("node:fs");
      writeFileSync(pyScript, PYTHON_REFERENCE);
    }
    const lines = [
      "## Grading",
      "",
      `Best of ${repeats} runs each (10M rows: one run). Whole process = wall time from spawn to exit (interpreter start, imports, reading both CSVs, validating, aligning ids, the metric); "inside" = the same after the libraries are loaded. Peak memory = the process's max RSS (Node running the bundled grader vs Python with pandas).`,
      "",
      "| case | submission | Medalist whole (inside) | peak | pandas + scikit-learn whole (inside) | peak | speed-up, whole process | memory |",
      "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ];
    const notes: string[] = [];
    for (const c of cases) {
      const times = c.once ? 1 : repeats;
      const a = best(times, () => ours(runner, c.spec, c.sub, c.ans));
      if (a.error) notes.push(`${c.name}: Medalist said invalid: ${a.error}`);
      const size = `${(statSync(c.sub).size / 2 ** 20).toFixed(0)} MB`;
      const mine = `${a.wall.toFixed(2)} s (${a.seconds.toFixed(2)} s)`;
      if (!python) {
        lines.push(`| ${c.name} | ${size} | ${mine} | ${mb(a.maxRssKb)} MB | skipped | | | |`);
        continue;
      }
      const p = best(times, () => runJson(python, [pyScript, c.py, c.sub, c.ans]));
      lines.push(
        `| ${c.name} | ${size} | ${mine} | ${mb(a.maxRssKb)} MB | ${p.wall.toFixed(2)} s (${p.seconds.toFixed(2)} s) | ${mb(p.maxRssKb)} MB | ${(p.wall / a.wall).toFixed(1)}× | ${(a.maxRssKb / p.maxRssKb).toFixed(2)}× |`,
      );
      if (a.score !== null && Math.abs(a.score - p.score!) > 1e-6)
        notes.push(`${c.name}: scores differ (${a.score} vs ${p.score})`);
    }
    lines.push("");
    lines.push(
      python
        ? "Speed-up = pandas whole-process time / Medalist whole-process time; memory = Medalist peak / pandas peak (below 1 is less)."
        : "Python with pandas and scikit-learn not found (e.g. `apt-get install -y python3-pandas python3-sklearn`): reference skipped.",
    );
    for (const note of notes) lines.push("", `Note: ${note}`);
    return lines.join("\n");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) {
  console.log(await benchGrade());
}
