import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ArtifactApi } from "../../src/action/artifacts.js";
import {
  reportArtifactsTarget,
  trajectoriesTarget,
  type ArtifactPlace,
} from "../../src/report/targets/artifacts.js";
import { reportFileTarget } from "../../src/report/targets/report-file.js";
import { deliverAll, newDelivery, type ReportTarget } from "../../src/report/targets/target.js";
import type { Evaluation, RenderOptions } from "../../src/session/evaluate.js";
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
  it("one failed run upload stops nothing: the other runs, the viewer, the report and the comment go", async () => {
    const { api, names } = artifacts("-head-b.s0");
    const place: ArtifactPlace = {
      api,
      unsupported: null,
      page: (id) => `https://example/artifacts/${id}`,
      attempt: "",
      suite: "s",
      resultsDir: dir,
    };
    const warnings: string[] = [];
    const d = newDelivery(evaluation(), {}, { warn: (m) => warnings.push(m), info: () => {} });
    await deliverAll(
      [
        trajectoriesTarget(place, () => join(dir, "head")),
        reportFileTarget(join(dir, "report.md")),
        reportArtifactsTarget(place, { number: 7, headSha: "f".repeat(40) }, "1", join(dir, "comment.json")),
      ],
      d,
    );
    expect(names.sort()).toEqual([
      "medalist-comment-s",
      "medalist-s-head-a.s0",
      "medalist-s-head-c.s0",
      "medalist-s-report",
      "medalist-s-viewer",
    ]);
    expect(Object.keys(d.links).sort()).toEqual(["runs/a.s0", "runs/c.s0"]);
    expect(d.viewerUrl).toMatch(/^https:\/\/example\/artifacts\/\d+$/);
    expect(d.reportArtifactUrl).toMatch(/^https:\/\/example\/artifacts\/\d+$/);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /1 of 3 trajectories were not uploaded \("medalist-s-head-b\.s0: upload of .* refused"\)/,
    );
    expect(d.notes[0]).toMatch(/1 of 3 trajectories were not uploaded/);
    // report.md and the comment carry the links that exist.
    expect(readFileSync(join(dir, "report.md"), "utf8")).toContain('"runs/a.s0":"https://example/artifacts/');
    expect(JSON.parse(readFileSync(join(dir, "comment.json"), "utf8")).body).toContain("runs/c.s0");
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
