import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ArtifactApi } from "../../src/action/artifacts.js";
import {
  reportArtifactsTarget,
  trajectoriesTarget,
  type ArtifactPlace,
} from "../../src/action/targets/artifacts.js";
import { reportFileTarget } from "../../src/action/targets/report-file.js";
import { deliverAll, newDelivery, type ReportTarget } from "../../src/action/targets/target.js";
import type { RenderOptions } from "../../src/report/evaluation.js";
import type { Evaluation } from "../../src/session/evaluate.js";
import { fakeRun, fakeSuite } from "../helpers/results.js";

const dir = mkdtempSync(join(tmpdir(), "medalist-targets-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An evaluation of three head runs whose folders, report and viewer are on disk. */
function evaluation(): Evaluation {
  const runs = ["a", "b", "c"].map((id) => fakeRun(id, 0, "none"));
  for (const r of runs) {
    mkdirSync(join(dir, "head", r.runDir), { recursive: true });
    writeFileSync(join(dir, "head", r.runDir, "run.log"), "x\n");
  }
  mkdirSync(join(dir, "viewer"), { recursive: true });
  writeFileSync(join(dir, "viewer", "index.html"), "<html>");
  writeFileSync(join(dir, "head", "results.json"), "{}");
  writeFileSync(join(dir, "report.md"), "before");
  return {
    head: fakeSuite("head", runs),
    base: null,
    comparison: null,
    baselineNote: null,
    medalRate: 0,
    paths: {
      head: join(dir, "head", "results.json"),
      base: null,
      report: join(dir, "report.md"),
      comparison: null,
      viewer: join(dir, "viewer"),
    },
    viewerProblem: null,
    trend: [],
    gate: { fails: false, reason: "passed", sentence: "**Gate: passed**" },
    render: (o?: RenderOptions) => `report links=${JSON.stringify(o?.links ?? {})} viewer=${o?.viewerUrl}`,
  };
}

/** Uploads that fail for names containing `failing`. */
function artifacts(failing: string) {
  const names: string[] = [];
  const api: ArtifactApi = {
    upload: async (name) => {
      if (name.includes(failing)) throw new Error(`upload of ${name} refused`);
      names.push(name);
      return { id: names.length };
    },
  };
  return { api, names };
}

describe("report targets", () => {
  it("one artifact per side; a failed upload stops nothing: the viewer, the report and the comment go", async () => {
    const { api, names } = artifacts("never");
    const place: ArtifactPlace = {
      api,
      unsupported: null,
      page: (id) => `https://example/artifacts/${id}`,
      attempt: "",
      suite: "s",
      resultsDir: dir,
    };
    const d = newDelivery(evaluation(), {}, { warn: () => {}, info: () => {} });
    await deliverAll([trajectoriesTarget(place, () => join(dir, "head"))], d);
    // Three head runs, one artifact; every head run links to it.
    expect(names).toEqual(["medalist-s-head", "medalist-s-viewer"]);
    expect(new Set(Object.values(d.links))).toEqual(new Set(["https://example/artifacts/1"]));
    expect(Object.keys(d.links).sort()).toEqual(["runs/a.s0", "runs/b.s0", "runs/c.s0"]);

    const failing = artifacts("-head");
    const warnings: string[] = [];
    const d2 = newDelivery(evaluation(), {}, { warn: (m) => warnings.push(m), info: () => {} });
    await deliverAll(
      [
        trajectoriesTarget({ ...place, api: failing.api }, () => join(dir, "head")),
        reportFileTarget(join(dir, "report.md")),
        reportArtifactsTarget(
          { ...place, api: failing.api },
          { number: 7, headSha: "f".repeat(40) },
          "1",
          join(dir, "comment.json"),
        ),
      ],
      d2,
    );
    expect(failing.names.sort()).toEqual(["medalist-comment-s", "medalist-s-report", "medalist-s-viewer"]);
    expect(d2.links).toEqual({});
    expect(d2.viewerUrl).toMatch(/^https:\/\/example\/artifacts\/\d+$/);
    expect(d2.reportArtifactUrl).toMatch(/^https:\/\/example\/artifacts\/\d+$/);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /the head runs' trajectories were not uploaded \("medalist-s-head: upload of .* refused"\)/,
    );
    expect(d2.notes[0]).toMatch(/The head runs' trajectories were not uploaded/);
    expect(readFileSync(join(dir, "report.md"), "utf8")).toContain("report links={}");
  });

  it("a target that throws is a warning and the next ones still deliver", async () => {
    const warnings: string[] = [];
    const delivered: string[] = [];
    const d = newDelivery(evaluation(), {}, { warn: (m) => warnings.push(m), info: () => {} });
    const broken: ReportTarget = {
      name: "the broken target",
      deliver: async () => Promise.reject(new Error("down")),
    };
    const ok: ReportTarget = { name: "ok", deliver: async (x) => void delivered.push(x.report()) };
    await deliverAll([broken, ok], d);
    expect(warnings).toEqual(["medalist: the broken target not delivered: down"]);
    expect(delivered).toEqual(["report links={} viewer=undefined"]);
  });
});
