import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { backArrows, folderDrawing, folderOf, moduleGraph, PIPELINE } from "../../scripts/code-graph.js";

const ROOT = resolve(import.meta.dirname, "../..");

// The folders of src/ in pipeline order (scripts/code-graph.ts, PIPELINE): a folder imports itself
// and folders before it, never one after it. Every import counts, type-only ones included.
describe("the folders of src/ in pipeline order", () => {
  const graph = moduleGraph(ROOT, ["src"]);

  it("gives every folder and top-level file of src/ one place", () => {
    expect(new Set(PIPELINE).size).toBe(PIPELINE.length);
    const present = readdirSync(resolve(ROOT, "src")).filter((n) => !n.endsWith(".d.ts"));
    expect([...present].sort()).toEqual([...PIPELINE].sort());
    for (const m of graph.values()) expect(PIPELINE).toContain(folderOf(m.path));
  });

  it("has no import from a folder to a folder later in the pipeline", () => {
    expect(backArrows(graph).map((a) => `${a.from} → ${a.to}`)).toEqual([]);
  });

  it("finds an import that runs back up the pipeline", () => {
    const withArrow = new Map(graph);
    const grade = graph.get("src/grade/grade.ts")!;
    withArrow.set(grade.path, {
      ...grade,
      allImports: new Set([...grade.allImports, "src/session/evaluate.ts"]),
    });
    expect(backArrows(withArrow)).toContainEqual({ from: grade.path, to: "src/session/evaluate.ts" });
  });

  it("refuses a folder with no place in the pipeline", () => {
    const withFolder = new Map(graph);
    const m = graph.get("src/grade/grade.ts")!;
    withFolder.set("src/newfolder/x.ts", { ...m, path: "src/newfolder/x.ts" });
    expect(() => backArrows(withFolder)).toThrow(/"newfolder" has no place in the pipeline/);
  });

  it("keeps GitHub's toolkit at the door: only action/ and github/ import @actions/*", () => {
    const users = [...graph.values()]
      .filter((m) => [...m.packages].some((p) => p.startsWith("@actions/")))
      .map((m) => folderOf(m.path));
    expect(users.length).toBeGreaterThan(0);
    expect([...new Set(users)].sort()).toEqual(["action", "github"]);
  });

  it("has the viewer get the leaderboards from the session: view/ reads no registry or leaderboard file", () => {
    const readers = [...graph.values()]
      .filter((m) => folderOf(m.path) === "view")
      .flatMap((m) =>
        [...m.allImports]
          .filter((to) => folderOf(to) === "registry" || to === "src/grade/medals.ts")
          .map((to) => `${m.path} → ${to}`),
      );
    expect(readers).toEqual([]);
  });

  it("passes on no name a module does not own: no re-export (`export { x } from`, `export * from`)", () => {
    const passOn = (g: typeof graph) =>
      [...g.values()]
        .filter((m) => m.reexports.size > 0)
        .map((m) => `${m.path}: ${[...m.reexports].join(", ")}`);
    expect(passOn(graph)).toEqual([]);
    // Both forms are found in a module's source.
    const dir = mkdtempSync(join(tmpdir(), "medalist-reexports-"));
    try {
      mkdirSync(join(dir, "src"));
      writeFileSync(join(dir, "src", "owner.ts"), "export const a = 1;\nexport const b = 2;\n");
      writeFileSync(join(dir, "src", "all.ts"), 'export * from "./owner.js";\n');
      writeFileSync(join(dir, "src", "named.ts"), 'export { b } from "./owner.js";\n');
      expect(passOn(moduleGraph(dir, ["src"]))).toEqual(["src/all.ts: *", "src/named.ts: b"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is drawn in docs/architecture.md as the code has it (npx tsx scripts/code-graph.ts prints it)", () => {
    const doc = readFileSync(resolve(ROOT, "docs/architecture.md"), "utf8");
    expect(doc).toContain("```\n" + folderDrawing(graph) + "\n```");
  });
});
