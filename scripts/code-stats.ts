// Size and shape of src/: lines, files, long files and functions, import cycles, unused exports.
// Run: npx tsx scripts/code-stats.ts [--list]
import { resolve } from "node:path";
import ts from "typescript";
import { importCycles, moduleGraph } from "./code-graph.js";

const ROOT = resolve(import.meta.dirname, "..");
const list = process.argv.includes("--list");
const src = moduleGraph(ROOT, ["src"]);
const users = moduleGraph(ROOT, ["src", "test", "bench", "scripts", "examples"]);

let lines = 0;
const longFiles: string[] = [];
const longFunctions: string[] = [];
for (const m of src.values()) {
  const n =
    m.source.getLineAndCharacterOfPosition(m.source.end).line + (m.source.text.endsWith("\n") ? 0 : 1);
  lines += n;
  if (n > 400) longFiles.push(`${m.path} (${n})`);
  const walk = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = m.source.getLineAndCharacterOfPosition(node.getStart()).line;
      const end = m.source.getLineAndCharacterOfPosition(node.end).line;
      if (end - start + 1 > 60) {
        const name =
          "name" in node && node.name && ts.isIdentifier(node.name as ts.Node)
            ? (node.name as ts.Identifier).text
            : ts.isVariableDeclaration(node.parent) && ts.isIdentifier(node.parent.name)
              ? node.parent.name.text
              : "(anonymous)";
        longFunctions.push(`${m.path}:${start + 1} ${name} (${end - start + 1})`);
      }
    }
    ts.forEachChild(node, walk);
  };
  walk(m.source);
}

// An export is unused when no other module of src/, test/, bench/, scripts/ or examples/ imports
// it by name (or with * / export *); the action's and the CLI's entry points count as used.
const unused: string[] = [];
const dead: string[] = [];
for (const m of src.values()) {
  if (m.path === "src/index.ts" || m.path === "src/cli.ts") continue;
  for (const name of [...m.exports].sort()) {
    const used = [...users.values()].some((u) => {
      if (u.path === m.path) return false;
      const names = u.importedNames.get(m.path);
      return names !== undefined && (names.has(name) || names.has("*"));
    });
    if (used) continue;
    unused.push(`${m.path} ${name}`);
    // Dead: not even its own module uses it beyond the declaration.
    let refs = 0;
    const count = (n: ts.Node) => {
      if (ts.isIdentifier(n) && n.text === name) refs++;
      ts.forEachChild(n, count);
    };
    count(m.source);
    if (refs <= 1 && !m.reexports.has(name)) dead.push(`${m.path} ${name}`);
  }
}

const all = importCycles(src, "all");
const value = importCycles(src, "value");
console.log(`src lines:                 ${lines}`);
console.log(`src files:                 ${src.size}`);
console.log(`files over 400 lines:      ${longFiles.length}`);
console.log(`functions over 60 lines:   ${longFunctions.length}`);
console.log(`import cycles (all):       ${all.length}`);
console.log(`import cycles (runtime):   ${value.length}`);
console.log(`exports used nowhere else: ${unused.length} (only in their own module)`);
console.log(`exports used nowhere:      ${dead.length}`);
if (list) {
  console.log(`\nfiles over 400 lines:\n  ${longFiles.join("\n  ")}`);
  console.log(`\nfunctions over 60 lines:\n  ${longFunctions.join("\n  ")}`);
  console.log(
    `\nimport cycles (all imports, types included):\n  ${all.map((c) => c.join(" ↔ ")).join("\n  ")}`,
  );
  console.log(`\nexports used nowhere:\n  ${dead.join("\n  ")}`);
}
