// Every `medalist <command> --option` that README.md and docs/ name exists: read from the CLI's
// own help, so a renamed or removed option cannot stay documented.
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { parse } from "yaml";
import { main } from "../../src/cli/main.js";
import { configSchema } from "../../src/config/schema.js";

const ROOT = resolve(import.meta.dirname, "..", "..");
const DOCS = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

async function help(...argv: string[]): Promise<{ code: number; text: string }> {
  const out: string[] = [];
  const log = vi.spyOn(console, "log").mockImplementation((...a) => void out.push(a.join(" ")));
  const err = vi.spyOn(console, "error").mockImplementation((...a) => void out.push(a.join(" ")));
  const write = vi.spyOn(process.stdout, "write").mockImplementation((s) => (out.push(String(s)), true));
  try {
    return { code: await main(argv), text: out.join("\n") };
  } finally {
    log.mockRestore();
    err.mockRestore();
    write.mockRestore();
  }
}

/** Each command line a document shows: in a code span, or a code block line, starting `medalist`. */
export function commandLines(markdown: string): { command: string; options: string[]; line: string }[] {
  const found: { command: string; options: string[]; line: string }[] = [];
  const spans = [...markdown.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]);
  const blocks = [...markdown.matchAll(/```(?:sh|bash|console)?\n([\s\S]*?)```/g)].flatMap((m) =>
    m[1].split("\n"),
  );
  for (const text of [...spans, ...blocks]) {
    for (const m of text.matchAll(
      /(?:^|[\s(])(?:npx )?medalist ([a-z]+(?:-[a-z]+)*)(?![=\w-])((?: +[^ #|;&]+)*)/g,
    )) {
      const options = [...m[2].matchAll(/(?:^|[\s[(])(--[a-z][a-z-]*)/g)].map((o) => o[1]);
      found.push({ command: m[1], options, line: m[0].trim() });
    }
  }
  return found;
}

describe("commands and options named in the docs", () => {
  it("finds command lines, options included", () => {
    expect(
      commandLines(
        "Run `medalist run --config FILE [--out DIR]` or\n```sh\nnpx medalist view r.json --out v # x\n```",
      ),
    ).toEqual([
      { command: "run", options: ["--config", "--out"], line: "medalist run --config FILE [--out DIR]" },
      { command: "view", options: ["--out"], line: "npx medalist view r.json --out v" },
    ]);
  });

  it("exist in the CLI's help", async () => {
    const top = await help("--help");
    const helps = new Map<string, string>();
    const missing: string[] = [];
    let checked = 0;
    for (const file of DOCS) {
      for (const { command, options, line } of commandLines(readFileSync(join(ROOT, file), "utf8"))) {
        if (!new RegExp(`^  ${command}(?![\\w-])`, "m").test(top.text)) {
          missing.push(`${file}: ${line}: no command "${command}"`);
          continue;
        }
        if (!helps.has(command)) helps.set(command, (await help(command, "--help")).text);
        for (const o of options) {
          checked++;
          if (o !== "--help" && !new RegExp(`${o}\\b`).test(helps.get(command)!))
            missing.push(`${file}: ${line}: "${command}" has no ${o}`);
        }
      }
    }
    expect(missing).toEqual([]);
    expect(checked).toBeGreaterThan(20);
  });
});

describe("the README's setup", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");

  it("asks for the Node version package.json's engines does", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    expect(pkg.engines.node).toBe(">=20");
    expect(readme).toContain("Node.js 20 or newer");
  });

  it("shows a config for an agent repository that the schema accepts", () => {
    const block = /```yaml\n(# medalist\.yml, at the repository's root[\s\S]*?)```/.exec(readme);
    expect(block).not.toBeNull();
    const parsed = configSchema().safeParse(parse(block![1]));
    expect(parsed.error?.issues ?? []).toEqual([]);
  });

  it("keeps .medalist/ out of git", () => {
    expect(readme).toMatch(/```gitignore\n\.medalist\/\n```/);
  });
});
