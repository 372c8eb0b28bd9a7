// Which run records the action may reuse: on a pull request, none from its checkout (links resolved).
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { recordTrust, refuseLinkedResultsDir, runRecordsIn } from "../../src/action/run-records.js";

const dirs: string[] = [];
const tmp = (p: string) => {
  const d = realpathSync(mkdtempSync(join(tmpdir(), p)));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const pr = { pr: { number: 7 } } as never;

/** A results folder holding `n` head records and one base record. */
function results(at: string, n: number): string {
  for (let i = 0; i < n; i++) {
    mkdirSync(join(at, "head", "runs", `c.s${i}`), { recursive: true });
    writeFileSync(join(at, "head", "runs", `c.s${i}`, "run.json"), "{}");
  }
  mkdirSync(join(at, "base", "runs", "c.s0"), { recursive: true });
  writeFileSync(join(at, "base", "runs", "c.s0", "run.json"), "{}");
  return at;
}

describe("recordTrust", () => {
  it("outside a pull request, or outside the checkout, records count when sealed", () => {
    const ws = tmp("medalist-ws-");
    const inside = results(join(ws, ".medalist", "results"), 2);
    const push = recordTrust({
      resultsDir: inside,
      storeDir: "/store",
      event: { pr: null } as never,
      env: { GITHUB_WORKSPACE: ws },
    });
    expect(push).toMatchObject({ untrusted: null, storeDir: "/store", ignored: [], notice: null });
    const outside = results(tmp("medalist-out-"), 2);
    const t = recordTrust({ resultsDir: outside, storeDir: null, event: pr, env: { GITHUB_WORKSPACE: ws } });
    expect(t).toMatchObject({ untrusted: null, ignored: [], notice: null });
  });

  it("on a pull request, records in the checkout are never reused and are counted", () => {
    const ws = tmp("medalist-ws-");
    const inside = results(join(ws, ".medalist", "results"), 3);
    const t = recordTrust({ resultsDir: inside, storeDir: null, event: pr, env: { GITHUB_WORKSPACE: ws } });
    expect(t.untrusted).toBe("it lies in the pull request's checkout (.medalist/results)");
    expect(t.ignored).toHaveLength(4);
    expect(t.notice).toBe(
      "> ⚠️ **4 run records found in the checkout were ignored** (.medalist/results/base/runs/c.s0/run.json, …): on a pull request Medalist reuses only runs this runner wrote and sealed, never files in the checkout.",
    );
  });

  it("a run store that resolves into the checkout is not used, its records counted", () => {
    const ws = tmp("medalist-ws-");
    mkdirSync(join(ws, "store", "c.s0-abc"), { recursive: true });
    writeFileSync(join(ws, "store", "c.s0-abc", "run.json"), "{}");
    // Named through a link outside the checkout: its real place decides.
    const link = join(tmp("medalist-links-"), "store");
    symlinkSync(join(ws, "store"), link);
    const t = recordTrust({
      resultsDir: tmp("medalist-out-"),
      storeDir: link,
      event: pr,
      env: { GITHUB_WORKSPACE: ws },
    });
    expect(t.storeDir).toBeNull();
    expect(t.ignored).toEqual(["store/c.s0-abc/run.json"]);
    expect(t.notes[0]).toMatch(/lies in the pull request's checkout: it is not used on this pull request/);
    expect(t.notice).toMatch(/^> ⚠️ \*\*1 run record found in the checkout was ignored\*\*/);
  });

  it("a results folder in the checkout that leads out through a link is refused", () => {
    const ws = tmp("medalist-ws-");
    const elsewhere = tmp("medalist-elsewhere-");
    symlinkSync(elsewhere, join(ws, ".medalist"));
    expect(() =>
      refuseLinkedResultsDir(join(ws, ".medalist", "results"), pr, { GITHUB_WORKSPACE: ws }),
    ).toThrow(/lies in the checkout but leads out of it through a link/);
    // Not a pull request: the workflow's own folder.
    expect(() =>
      refuseLinkedResultsDir(join(ws, ".medalist", "results"), { pr: null } as never, {
        GITHUB_WORKSPACE: ws,
      }),
    ).not.toThrow();
    expect(() => refuseLinkedResultsDir(join(ws, "out"), pr, { GITHUB_WORKSPACE: ws })).not.toThrow();
  });

  it("counts records without following links", () => {
    const dir = tmp("medalist-res-");
    const other = results(tmp("medalist-other-"), 2);
    mkdirSync(join(dir, "head"), { recursive: true });
    symlinkSync(join(other, "head", "runs"), join(dir, "head", "runs"));
    expect(runRecordsIn(dir, "results")).toEqual([]);
  });
});
