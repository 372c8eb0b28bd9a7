// Uploads the agent cannot break: file names the artifact service refuses are renamed (and said
// so), one run's failure never stops the others. The fake service validates exactly as
// @actions/artifact does, with its own functions.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  notesText,
  planUpload,
  uploadFolder,
  uploadRuns,
  withheldBy,
  type ArtifactApi,
} from "../../src/action/artifacts.js";
import { getUploadZipSpecification } from "../../node_modules/@actions/artifact/lib/internal/upload/upload-zip-specification.js";
import { validateArtifactName } from "../../node_modules/@actions/artifact/lib/internal/upload/path-and-artifact-name-validation.js";

/** An artifact service that checks names as @actions/artifact does and keeps what it received. */
function validatingApi(refuse: (name: string) => boolean = () => false) {
  const got = new Map<string, Record<string, string>>();
  let id = 1;
  const api: ArtifactApi = {
    upload: async (name, files, root) => {
      validateArtifactName(name);
      const spec = getUploadZipSpecification(files, root);
      if (refuse(name)) throw new Error(`service refused ${name}`);
      got.set(
        name,
        Object.fromEntries(spec.map((s) => [s.destinationPath, readFileSync(s.sourcePath!, "utf8")])),
      );
      return { id: id++ };
    },
  };
  return { api, got };
}

function runFolder(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(root, rel, ".."), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
}

const HOSTILE = {
  "logs/step:1.txt": "colon",
  "logs/step_1.txt": "clean twin",
  "logs/step|1.txt": "pipe",
  'code/a"b/x?.py': "folder and file",
  "logs/line\nbreak.txt": "newline",
  "logs/ok.txt": "fine",
};

describe("upload names the agent cannot break", () => {
  it("plans: refused characters become _, collisions get ~2, ~3; clean names are kept", () => {
    const root = "/r";
    const plan = planUpload(
      root,
      Object.keys(HOSTILE).map((r) => `${root}/${r}`),
    );
    expect(Object.fromEntries(plan.files.map((f) => [f.source.slice(3), f.name]))).toEqual({
      "logs/step:1.txt": "logs/step_1~2.txt",
      "logs/step_1.txt": "logs/step_1.txt",
      "logs/step|1.txt": "logs/step_1~3.txt",
      'code/a"b/x?.py': "code/a_b/x_.py",
      "logs/line\nbreak.txt": "logs/line_break.txt",
      "logs/ok.txt": "logs/ok.txt",
    });
    expect(notesText(plan.notes)).toContain('"logs/line\\nbreak.txt" uploaded as');
    expect(notesText(plan.notes)).not.toContain("\n");
    expect(plan.notes.map((n) => n.action)).toEqual(["renamed", "renamed", "renamed", "renamed"]);
    expect(notesText(plan.notes)).toContain(
      `"logs/step:1.txt" uploaded as "logs/step_1~2.txt" (the artifact service refuses`,
    );
  });

  it("one artifact holds a side's runs, each under its run id; a step:1.txt is renamed, never fatal", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medalist-up-"));
    runFolder(join(dir, "runs/a.s0"), HOSTILE);
    runFolder(join(dir, "runs/a.s1"), { "logs/x.txt": "x" });
    const { api, got } = validatingApi();
    const out = await uploadRuns(api, "medalist-s-head", [
      join(dir, "runs/a.s0"),
      join(dir, "runs/a.s1"),
      join(dir, "runs/a.s2"), // never written: left out
    ]);
    expect(out.id).toBe(1);
    expect([...got.keys()]).toEqual(["medalist-s-head"]);
    expect(got.get("medalist-s-head")).toEqual({
      "/a.s0/logs/step_1~2.txt": "colon",
      "/a.s0/logs/step_1.txt": "clean twin",
      "/a.s0/logs/step_1~3.txt": "pipe",
      "/a.s0/code/a_b/x_.py": "folder and file",
      "/a.s0/logs/line_break.txt": "newline",
      "/a.s0/logs/ok.txt": "fine",
      "/a.s1/logs/x.txt": "x",
    });
    expect(out.notes.map((n) => n.action)).toEqual(["renamed", "renamed", "renamed", "renamed"]);
    // The staging copies are gone; the run folder is untouched.
    expect(readFileSync(join(dir, "runs/a.s0/logs/step:1.txt"), "utf8")).toBe("colon");
    // Nothing to upload: no artifact.
    expect(await uploadRuns(api, "none", [join(dir, "runs/a.s2")])).toEqual({ notes: [] });
  });

  it("a renamed folder meeting a file of the same name skips that one file, never the upload", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medalist-up-"));
    runFolder(dir, { "logs/a_b": "file", "logs/a:b/x.txt": "in folder", "logs/c.txt": "c" });
    const { api, got } = validatingApi();
    expect(await uploadFolder(api, "r", dir)).toBe(1);
    const received = got.get("r")!;
    expect(received["/logs/c.txt"]).toBe("c");
    expect(Object.keys(received)).toHaveLength(2);
  });

  it("files the attempt withheld (withheld.json) are skipped and listed; binary ones leave with upload.binaryFiles", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medalist-up-"));
    const manifest = {
      version: 1,
      complete: true,
      active: true,
      withheld: [
        { path: "logs/model.bin", reason: "binary" },
        { path: "logs/big.txt", reason: "too-large" },
      ],
    };
    runFolder(join(dir, "runs/a.s0"), {
      "logs/model.bin": "\u0000",
      "logs/big.txt": "big",
      "logs/t.txt": "t",
      "withheld.json": JSON.stringify(manifest),
    });
    const { api, got } = validatingApi();
    const out = await uploadRuns(api, "r", [join(dir, "runs/a.s0")]);
    expect(got.get("r")).toEqual({
      "/a.s0/logs/t.txt": "t",
      "/a.s0/withheld.json": JSON.stringify(manifest),
    });
    expect(out.notes.map((n) => [n.path, n.action])).toEqual([
      ["a.s0/logs/big.txt", "skipped"],
      ["a.s0/logs/model.bin", "skipped"],
    ]);
    // upload.binaryFiles lets the binary file leave; a file too large to mask still stays.
    const both = await uploadFolder(
      api,
      "r2",
      join(dir, "runs/a.s0"),
      withheldBy(join(dir, "runs/a.s0"), { binaryFiles: true }),
    );
    expect(both).toBeDefined();
    expect(Object.keys(got.get("r2")!).sort()).toEqual(["/logs/model.bin", "/logs/t.txt", "/withheld.json"]);
  });

  it("a run folder that was never masked (run.json, no withheld.json) uploads nothing of the agent's", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medalist-up-"));
    runFolder(join(dir, "head/runs/a.s0"), { "run.json": "{}", "logs/secret.txt": "s" });
    runFolder(dir, { "head/results.json": "{}" });
    const { api, got } = validatingApi();
    expect(await uploadFolder(api, "shard", dir)).toBe(1);
    expect(got.get("shard")).toEqual({ "/head/results.json": "{}" });
  });

  it("a side's runs that were never masked upload nothing, beside runs that were", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medalist-up-"));
    const masked = JSON.stringify({ version: 1, complete: true, active: false, withheld: [] });
    runFolder(join(dir, "runs/a.s0"), { "run.json": "{}", "logs/secret.txt": "s" });
    runFolder(join(dir, "runs/a.s1"), { "run.json": "{}", "withheld.json": masked, "logs/ok.txt": "ok" });
    const { api, got } = validatingApi();
    await uploadRuns(api, "side", [join(dir, "runs/a.s0"), join(dir, "runs/a.s1")], { binaryFiles: true });
    expect(got.get("side")).toEqual({
      "/a.s1/run.json": "{}",
      "/a.s1/withheld.json": masked,
      "/a.s1/logs/ok.txt": "ok",
    });
  });

  it("a folder upload with an odd artifact name and odd file names does not throw", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medalist-up-"));
    runFolder(dir, { "a:b.html": "x" });
    const { api, got } = validatingApi();
    expect(await uploadFolder(api, "viewer: <s>", dir)).toBe(1);
    expect(got.get("viewer_ _s_")).toEqual({ "/a_b.html": "x" });
  });
});
