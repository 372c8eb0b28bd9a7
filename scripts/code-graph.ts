// The module graph of src/ read with the TypeScript compiler API: files, imports (value and
// type-only), exports, the strongly connected components (import cycles) of that graph, and the
// folders of src/ in pipeline order with every import that runs back up it.
// Run: npx tsx scripts/code-graph.ts   (prints the drawing of the folders, docs/architecture.md)
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

export interface ModuleInfo {
  /** Path relative to the root, e.g. "src/session/evaluate.ts". */
  path: string;
  source: ts.SourceFile;
  /** Modules this one imports at runtime (not `import type`, not type-only names). */
  valueImports: Set<string>;
  /** Every module this one imports or re-exports, types included. */
  allImports: Set<string>;
  /** Names this module imports from each module ("*" for a namespace or `export *`). */
  importedNames: Map<string, Set<string>>;
  /** Names this module exports. */
  exports: Set<string>;
  /** Exported names that only pass another module's export on (`export { x } from "./y.js"`; "*" for `export *`). */
  reexports: Set<string>;
  /** Packages this module imports ("@actions/core", "zod"; node: built-ins left out). */
  packages: Set<string>;
}

export function listTs(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listTs(p));
    else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) out.push(p);
  }
  return out.sort();
}

/** The .ts file a relative specifier names ("./x.js" → x.ts), or null for a package. */
function resolveSpecifier(from: string, spec: string): string | null {
  if (!spec.startsWith(".")) return null;
  const base = resolve(dirname(from), spec);
  for (const c of [base.replace(/\.js$/, ".ts"), `${base}.ts`, join(base, "index.ts")])
    if (existsSync(c)) return c;
  return null;
}

const hasExport = (n: ts.Node) =>
  ts.canHaveModifiers(n) && (ts.getModifiers(n) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

function read(root: string, file: string): ModuleInfo {
  const text = readFileSync(file, "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const info: ModuleInfo = {
    path: relative(root, file),
    source,
    valueImports: new Set(),
    allImports: new Set(),
    importedNames: new Map(),
    exports: new Set(),
    reexports: new Set(),
    packages: new Set(),
  };
  const note = (target: string, names: string[], value: boolean) => {
    const rel = relative(root, target);
    info.allImports.add(rel);
    if (value) info.valueImports.add(rel);
    const set = info.importedNames.get(rel) ?? new Set<string>();
    names.forEach((n) => set.add(n));
    info.importedNames.set(rel, set);
  };
  for (const st of source.statements) {
    if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) {
      const target = resolveSpecifier(file, st.moduleSpecifier.text);
      if (!target) {
        const spec = st.moduleSpecifier.text;
        if (!spec.startsWith(".") && !spec.startsWith("node:"))
          info.packages.add(
            spec
              .split("/")
              .slice(0, spec.startsWith("@") ? 2 : 1)
              .join("/"),
          );
        continue;
      }
      const clause = st.importClause;
      if (!clause) {
        note(target, [], true); // side-effect import
        continue;
      }
      const names: string[] = [];
      let value = false;
      if (clause.name) {
        names.push("default");
        value ||= !clause.isTypeOnly;
      }
      const nb = clause.namedBindings;
      if (nb && ts.isNamespaceImport(nb)) {
        names.push("*");
        value ||= !clause.isTypeOnly;
      }
      if (nb && ts.isNamedImports(nb))
        for (const el of nb.elements) {
          names.push((el.propertyName ?? el.name).text);
          value ||= !clause.isTypeOnly && !el.isTypeOnly;
        }
      note(target, names, value);
    } else if (ts.isExportDeclaration(st)) {
      const target =
        st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier)
          ? resolveSpecifier(file, st.moduleSpecifier.text)
          : null;
      const clause = st.exportClause;
      if (clause && ts.isNamedExports(clause)) {
        for (const el of clause.elements) info.exports.add(el.name.text);
        if (target) for (const el of clause.elements) info.reexports.add(el.name.text);
        if (target)
          note(
            target,
            clause.elements.map((el) => (el.propertyName ?? el.name).text),
            !st.isTypeOnly && clause.elements.some((el) => !el.isTypeOnly),
          );
      } else if (target) {
        info.reexports.add("*");
        note(target, ["*"], !st.isTypeOnly);
      }
    } else if (ts.isExportAssignment(st)) info.exports.add("default");
    else if (hasExport(st)) {
      if (ts.isVariableStatement(st))
        for (const d of st.declarationList.declarations) {
          if (ts.isIdentifier(d.name)) info.exports.add(d.name.text);
        }
      else if ("name" in st && st.name && ts.isIdentifier(st.name as ts.Node))
        info.exports.add((st.name as ts.Identifier).text);
    }
  }
  return info;
}

/** Every .ts module under `dirs` (relative to root), keyed by its relative path. */
export function moduleGraph(root: string, dirs: string[]): Map<string, ModuleInfo> {
  const graph = new Map<string, ModuleInfo>();
  for (const d of dirs)
    for (const f of listTs(join(root, d))) {
      const m = read(root, f);
      graph.set(m.path, m);
    }
  return graph;
}

/** Strongly connected components with more than one module (or a self-import): the cycles. */
export function importCycles(graph: Map<string, ModuleInfo>, kind: "value" | "all" = "all"): string[][] {
  const edges = (m: ModuleInfo) => [...(kind === "value" ? m.valueImports : m.allImports)];
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of edges(graph.get(v)!)) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || edges(graph.get(v)!).includes(v)) out.push(comp.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) visit(v);
  return out.sort((a, b) => a[0].localeCompare(b[0]));
}

/**
 * The folders of src/ (and its top-level files) in pipeline order: a module may import its own
 * folder and any folder before it, never one after it. errors.ts and version.ts are leaves; the
 * entry points (index.ts for the action, cli.ts) come last.
 */
export const PIPELINE = [
  "errors.ts",
  "version.ts",
  "util",
  "config",
  "registry",
  "results",
  "tabular",
  "grade",
  "execute",
  "mlebench",
  "prepare",
  "stats",
  "plan",
  "suite",
  "compare",
  "history",
  "report",
  "view",
  "session",
  "github",
  "action",
  "index.ts",
  "cli",
  "cli.ts",
] as const;

/** The pipeline place of a module: its folder under src/, or its own name for a top-level file. */
export function folderOf(path: string): string {
  const parts = path.split("/");
  return parts[1];
}

export interface BackArrow {
  from: string;
  to: string;
}

/**
 * Every import (types included) from a folder to a folder later in `order`, as module paths; a
 * module of src/ whose folder has no place in `order` is an error (a new folder needs a place).
 */
export function backArrows(graph: Map<string, ModuleInfo>, order: readonly string[] = PIPELINE): BackArrow[] {
  const rank = new Map(order.map((f, i) => [f, i]));
  const rankOf = (path: string) => {
    const r = rank.get(folderOf(path));
    if (r === undefined)
      throw new Error(`${path}: its folder "${folderOf(path)}" has no place in the pipeline`);
    return r;
  };
  const out: BackArrow[] = [];
  for (const m of [...graph.values()].sort((a, b) => a.path.localeCompare(b.path)))
    for (const to of [...m.allImports].sort())
      if (graph.has(to) && rankOf(to) > rankOf(m.path)) out.push({ from: m.path, to });
  return out;
}

/** Which folders each folder imports (types included), both in pipeline order. */
export function folderImports(
  graph: Map<string, ModuleInfo>,
  order: readonly string[] = PIPELINE,
): Map<string, string[]> {
  const rank = new Map(order.map((f, i) => [f, i]));
  const sets = new Map<string, Set<string>>(order.map((f) => [f, new Set()]));
  for (const m of graph.values())
    for (const to of m.allImports) {
      const a = folderOf(m.path);
      const b = folderOf(to);
      if (graph.has(to) && a !== b) sets.get(a)?.add(b);
    }
  const byRank = (x: string, y: string) => (rank.get(x) ?? 0) - (rank.get(y) ?? 0);
  return new Map([...sets].map(([f, s]) => [f, [...s].sort(byRank)]));
}

/** The drawing of the folders: one line per folder, in pipeline order, with the folders it imports. */
export function folderDrawing(graph: Map<string, ModuleInfo>, order: readonly string[] = PIPELINE): string {
  const imports = folderImports(graph, order);
  const leaves = new Set(["errors.ts", "version.ts"]);
  const width = Math.max(...order.map((f) => f.length));
  return order
    .filter((f) => !leaves.has(f))
    .map((f) => {
      const to = (imports.get(f) ?? []).filter((t) => !leaves.has(t));
      return `${f.padEnd(width)}${to.length ? ` ─► ${to.join(", ")}` : ""}`.trimEnd();
    })
    .join("\n");
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const root = resolve(import.meta.dirname, "..");
  console.log(folderDrawing(moduleGraph(root, ["src"])));
}
