// `npm run bench -- faults`, the API's part: after a toy suite (test/helpers/fault-suite.ts) wrote
// its results, the sticky comment is posted against the loopback fake of GitHub's API
// (test/fixtures/github/server.ts) while it fails at a seeded request: 5xx, 429 with retry-after,
// secondary rate limits, hung requests, a create whose answer is lost; the cache service down; and
// the job cancelled mid-suite and re-run (GITHUB_RUN_ATTEMPT 2) on the same runner. Lost: a result
// not on disk, or no comment; double-counted: a second comment or a run counted twice; a different
// verdict: a comment body or outcome other than the undisturbed one's; extra runs: runs executed again.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "../../src/github/client.js";
import { upsertStickyComment } from "../../src/github/comment.js";
import { commentMarker } from "../../src/github/marker.js";
import { restoreHistory } from "../../src/history/cache.js";
import { rng } from "../../src/prepare/random.js";
import type { SuiteResults } from "../../src/results/schema.js";
import { readResults } from "../../src/suite/store.js";
import { compareRuns } from "../../src/compare/compare.js";
import { faultSuite, tally } from "../../test/helpers/fault-suite.js";
import { FakeGitHub, type Fault } from "../../test/fixtures/github/server.js";
import { fakeCache } from "../../test/action/fake-cache.js";
import type { FaultOptions, FaultRow } from "./types.js";

const BACKEND = "loopback GitHub API fake";
const marker = commentMarker("Medalist PR", "faults");
const target = { owner: "acme", repo: "agent", issueNumber: 7, marker };

/** The faults one trial injects: 1–3 answers of one kind on a seeded endpoint. */
const kinds: { fault: string; make: (r: () => number) => Omit<Fault, "method" | "path"> }[] = [
  {
    fault: "GitHub API 5xx",
    make: (r) => ({ status: [500, 502, 503][Math.floor(r() * 3)], times: 1 + Math.floor(r() * 3) }),
  },
  {
    fault: "GitHub API 429 with retry-after",
    make: (r) => ({
      status: 429,
      times: 1 + Math.floor(r() * 2),
      headers: { "retry-after": String(Math.floor(r() * 2)) },
    }),
  },
  {
    fault: "GitHub API secondary rate limit (403)",
    make: (r) => ({
      status: 403,
      times: 1 + Math.floor(r() * 2),
      message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
      headers: { "retry-after": "0" },
    }),
  },
  { fault: "GitHub API request hangs (timeout)", make: () => ({ status: 503, times: 1, delayMs: 1500 }) },
  {
    fault: "GitHub API create answered 5xx after it succeeded",
    make: () => ({ status: 502, times: 1, after: true }),
  },
];
const endpoints: { method: string; path: RegExp }[] = [
  { method: "GET", path: /\/comments$/ },
  { method: "POST", path: /\/comments$/ },
  { method: "GET", path: /^\/user$/ },
];

export async function faultRows(opts: FaultOptions): Promise<FaultRow[]> {
  const work = mkdtempSync(join(tmpdir(), "medalist-bench-api-"));
  const gh = new FakeGitHub();
  await gh.start();
  try {
    const suite = faultSuite(join(work, "suite"), 2, 4, "head");
    const out = join(work, "out");
    const clean = await suite.run(out, { log: () => {} });
    const base = await faultSuite(join(work, "base"), 2, 4, "base").run(join(work, "base-out"), {
      log: () => {},
    });
    const verdict = compareRuns(base, clean, suite.config.gate).verdict;
    const body = `${marker}\nverdict: ${verdict}`;
    const client = createClient("t0ken", {
      baseUrl: gh.url,
      retryDelayMs: 5,
      timeoutMs: 400,
      maxWaitMs: 5000,
    });
    const rows: FaultRow[] = [];

    for (const [k, kind] of kinds.entries()) {
      const r = rng(opts.seed + 10 + k);
      const row: FaultRow = {
        fault: kind.fault,
        backend: BACKEND,
        trials: opts.trials,
        lost: 0,
        doubleCounted: 0,
        differentVerdicts: 0,
        extraRuns: 0,
      };
      for (let n = 0; n < opts.trials; n++) {
        gh.comments.clear();
        gh.faults = [];
        // Half the trials update an existing comment (an earlier push), half create it.
        if (r() < 0.5) gh.addComment("acme", "agent", 7, "medalist-bot", `${marker}\nolder`);
        const at = kind.fault.includes("create")
          ? endpoints[1]
          : endpoints[Math.floor(r() * endpoints.length)];
        gh.faults.push({ ...at, ...kind.make(r) });
        // The result is on disk before any API call.
        if (!existsSync(join(out, "results.json"))) row.lost++;
        try {
          await upsertStickyComment(client, target, body);
        } catch {
          row.lost++; // no comment posted (a warning in the job); results stay on disk
        }
        const mine = gh.thread("acme", "agent", 7).filter((c) => c.body.startsWith(marker));
        if (mine.length === 0) row.lost++;
        row.doubleCounted += Math.max(0, mine.length - 1);
        if (mine.some((c) => c.body !== body)) row.differentVerdicts++;
      }
      rows.push(row);
    }

    // The cache service down while the history is restored: a miss with a warning; the verdict stands.
    {
      const row: FaultRow = {
        fault: "cache service 5xx or 429 (history restore)",
        backend: "in-memory cache fake (test/action/fake-cache.ts)",
        trials: opts.trials,
        lost: 0,
        doubleCounted: 0,
        differentVerdicts: 0,
        extraRuns: 0,
      };
      const cache = fakeCache();
      const r = rng(opts.seed + 20);
      for (let n = 0; n < opts.trials; n++) {
        cache.status = [500, 502, 503, 429][Math.floor(r() * 4)];
        const restored = await restoreHistory(cache, join(work, `hist${n}`), "faults");
        if (restored.history.entries.length !== 0) row.differentVerdicts++;
        const again = readResults(join(out, "results.json"));
        if (compareRuns(base, again, suite.config.gate).verdict !== verdict) row.differentVerdicts++;
        if (again.runs.length !== suite.runIds.length) row.lost++;
      }
      rows.push(row);
    }

    // Attempt 1 cancelled at a seeded run; attempt 2 on the same runner: a fresh results folder
    // (RUNNER_TEMP is emptied per job), the same run store, the same comment.
    {
      const row: FaultRow = {
        fault: "job cancelled, re-run (GITHUB_RUN_ATTEMPT 2)",
        backend: "toy suite + loopback GitHub API fake",
        trials: opts.trials,
        lost: 0,
        doubleCounted: 0,
        differentVerdicts: 0,
        extraRuns: 0,
      };
      const r = rng(opts.seed + 30);
      for (let n = 0; n < opts.trials; n++) {
        const store = join(work, `store${n}`);
        const at = Math.floor(r() * suite.runIds.length);
        const ctl = new AbortController();
        suite.executed.length = 0;
        suite.hook = (spec) => {
          if (spec.runId === suite.runIds[at]) ctl.abort();
        };
        await suite
          .run(join(work, `a1-${n}`), { log: () => {}, storeDir: store, signal: ctl.signal })
          .catch(() => null);
        suite.hook = null;
        const attempt2: SuiteResults = await suite.run(join(work, `a2-${n}`), {
          log: () => {},
          storeDir: store,
        });
        const t = tally(suite.runIds, clean, attempt2, base, suite.config);
        row.lost += t.lost;
        row.doubleCounted += t.doubleCounted;
        row.differentVerdicts += t.differentVerdict || t.differentOutcomes > 0 ? 1 : 0;
        row.extraRuns += suite.executed.length - suite.runIds.length;
        // Both attempts post the sticky comment: one comment remains.
        gh.comments.clear();
        gh.faults = [];
        await upsertStickyComment(client, target, body);
        await upsertStickyComment(
          client,
          target,
          `${marker}\nverdict: ${compareRuns(base, attempt2, suite.config.gate).verdict}`,
        );
        const mine = gh.thread("acme", "agent", 7);
        row.doubleCounted += Math.max(0, mine.length - 1);
        if (mine.some((c) => c.body !== body)) row.differentVerdicts++;
        rmSync(store, { recursive: true, force: true });
      }
      rows.push(row);
    }
    return rows;
  } finally {
    await gh.stop();
    rmSync(work, { recursive: true, force: true });
  }
}
