import { readFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { listTs } from "../../scripts/code-graph.js";

const ROOT = resolve(import.meta.dirname, "../..");
const TIMEOUT = 120_000;

interface Source {
  /** Relative to the root, e.g. "src/action/main.ts". */
  path: string;
  text: string;
}

const sources: Source[] = listTs(resolve(ROOT, "src")).map((f) => ({
  path: relative(ROOT, f),
  text: readFileSync(f, "utf8"),
}));

const parsed = new Map<string, ts.SourceFile>();
const parse = (f: Source) => {
  const key = `${f.path}\0${f.text}`;
  if (!parsed.has(key)) parsed.set(key, ts.createSourceFile(f.path, f.text, ts.ScriptTarget.ES2022, true));
  return parsed.get(key)!;
};

/** Where a function of this name is called (`name(…)` or `x.name(…)`), read with the compiler. */
function callSites(files: Source[], name: string): string[] {
  const out: string[] = [];
  for (const f of files) {
    const sf = parse(f);
    const visit = (n: ts.Node): void => {
      if (ts.isCallExpression(n)) {
        const callee = n.expression;
        const called = ts.isIdentifier(callee)
          ? callee.text
          : ts.isPropertyAccessExpression(callee)
            ? callee.name.text
            : null;
        if (called === name) out.push(`${f.path}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`);
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return out;
}

/** The doors: the CLI's commands and the action's entry and steps. */
const isDoor = (path: string) =>
  /^src\/cli\/commands\/[^/]+\.ts$/.test(path) ||
  path === "src/action/main.ts" ||
  /^src\/action\/steps\/[^/]+\.ts$/.test(path);

const MAX_DOOR_LINES = 150;

/** Door files longer than the limit, with their line counts. */
function longDoors(files: Source[]): string[] {
  return files
    .filter((f) => isDoor(f.path))
    .map((f) => ({ path: f.path, lines: f.text.split("\n").length - (f.text.endsWith("\n") ? 1 : 0) }))
    .filter((f) => f.lines > MAX_DOOR_LINES)
    .map((f) => `${f.path}: ${f.lines} lines`);
}

const outsideSession = (sites: string[]) => sites.filter((s) => !s.startsWith("src/session/"));

// The doors read their inputs, call one of the session's entry points, and write outputs: the
// workflows (evaluate, runShard, publish) and the rules are written once (issue 34).
describe("doors that only dispatch", () => {
  it("finds the doors", () => {
    const doors = sources.filter((f) => isDoor(f.path)).map((f) => f.path);
    expect(doors).toContain("src/action/main.ts");
    expect(doors).toContain("src/cli/commands/run.ts");
    expect(doors.filter((p) => p.startsWith("src/action/steps/")).length).toBeGreaterThanOrEqual(5);
  });

  it("call evaluate() and runShard() only from src/session/", { timeout: TIMEOUT }, () => {
    expect(callSites(sources, "evaluate").length).toBeGreaterThan(0);
    expect(outsideSession(callSites(sources, "evaluate"))).toEqual([]);
    expect(outsideSession(callSites(sources, "runShard"))).toEqual([]);
  });

  it("hand an evaluation to the report targets (publish) in one place", { timeout: TIMEOUT }, () => {
    expect(callSites(sources, "publish")).toHaveLength(1);
  });

  it(`fit in ${MAX_DOOR_LINES} lines each`, () => {
    expect(longDoors(sources)).toEqual([]);
  });

  it("leave the rules' sentences to src/session/rules.ts", () => {
    const rules = [
      /adaptiveSeeds &&/,
      /stages need a baseline/,
      /seeds are fixed/,
      /Not a pull request: every stage/,
    ];
    const bad = sources
      .filter((f) => f.path !== "src/session/rules.ts")
      .flatMap((f) => rules.filter((r) => r.test(f.text)).map((r) => `${f.path}: ${r.source}`));
    expect(bad).toEqual([]);
  });

  it("fails when a door calls evaluate() or grows past the limit", { timeout: TIMEOUT }, () => {
    const door: Source = {
      path: "src/cli/commands/extra.ts",
      text: `import { evaluate } from "../../session/evaluate.js";\n// evaluate( in a comment is no call\nawait evaluate({});\n`,
    };
    expect(outsideSession(callSites([...sources, door], "evaluate"))).toEqual([
      "src/cli/commands/extra.ts:3",
    ]);
    const long: Source = { path: "src/action/steps/extra.ts", text: "x;\n".repeat(MAX_DOOR_LINES + 1) };
    expect(longDoors([long])).toEqual([`src/action/steps/extra.ts: ${MAX_DOOR_LINES + 1} lines`]);
    expect(longDoors([{ ...long, text: "x;\n".repeat(MAX_DOOR_LINES) }])).toEqual([]);
    // A helper outside the doors may be longer.
    expect(longDoors([{ ...long, path: "src/action/judge.ts" }])).toEqual([]);
  });
});
