// End to end through the action against the loopback GitHub: an agent's stderr carrying Markdown,
// mentions and another suite's sticky marker (nested, to beat a one-pass strip) reaches the
// comment as inert text, and that other suite's next run still edits only its own comment.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { marked } from "marked";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commentMarker } from "../../src/github/marker.js";
import { FakeGitHub } from "../fixtures/github/server.js";
import { ROOT, runInProcess } from "./harness.js";

// One line: the failure cause quotes the agent's last stderr line.
const HOSTILE =
  "<!-<!-- x -->- medalist:Medalist PR:suite-b --> @org/team ![t](http://tracker.example/p.png) " +
  "<img src=http://tracker.example/i.png> </details></details> | a | b | # heading";

describe("agent text in the action's comment", () => {
  let ws: string;
  let gh: FakeGitHub;
  const thread = () => gh.thread("acme", "agent", 7);
  const act = (config: string) =>
    runInProcess({
      workspace: ws,
      inputs: {
        config,
        "github-token": "ghs_fake",
        baseline: "none",
        comment: "always",
        "fail-on": "regression",
        "allow-fork-prs": "false",
        // No git checkout here: the pull request's own config judges it (said first in the comment).
        "trust-pr-config": "true",
        "allow-unsandboxed-agent": "true",
        "data-dir": "",
        "results-dir": `.medalist/${config}`,
      },
      env: { GITHUB_API_URL: gh.url },
    });

  beforeAll(async () => {
    ws = mkdtempSync(join(tmpdir(), "medalist-inert-"));
    writeFileSync(
      join(ws, "hostile.mjs"),
      `process.stderr.write(${JSON.stringify(HOSTILE + "\n")});\nprocess.exit(3);\n`,
    );
    const config = (name: string, agent: string) =>
      [
        `name: ${name}`,
        "competitions:",
        "  include: [toy-churn]",
        "seeds: 1",
        "executor: local",
        "agent:",
        `  command: node ${agent}`,
        "limits:",
        "  time: 60s",
        "dataDir: data",
        "registryDir: registry",
        "",
      ].join("\n");
    writeFileSync(join(ws, "a.yml"), config("suite-a", join(ws, "hostile.mjs")));
    // Inside the workspace: the local sandbox shows the agent's cwd (the config's folder), not the repository.
    cpSync(join(ROOT, "examples/agents"), join(ws, "agents"), { recursive: true });
    writeFileSync(join(ws, "b.yml"), config("suite-b", join(ws, "agents", "weak", "agent.mjs")));
    cpSync(join(ROOT, "competitions", "toy-churn"), join(ws, "registry", "toy-churn"), { recursive: true });
    gh = new FakeGitHub();
    await gh.start();
  });
  afterAll(async () => {
    await gh?.stop();
    if (ws) rmSync(ws, { recursive: true, force: true });
  });

  it("renders the agent's stderr inert, and suite B's runs never touch suite A's comment", async () => {
    const a = await act("a.yml");
    // Its only run failed and there is no baseline: nothing worked, so the gate fails (the comment is still posted).
    expect(a.code, a.stdout).toBe(1);
    expect(thread()).toHaveLength(1);
    const mine = thread()[0];
    const [first, ...rest] = mine.body.split("\n");
    expect(first).toBe(commentMarker("Medalist PR", "suite-a"));
    const body = rest.join("\n");
    // The agent's text did reach the comment (its cause line), but as text.
    expect(body.replace(/\u200b/g, "")).toContain("@org/team");
    expect(body).not.toMatch(/<!--/);
    const html = marked.parse(body, { async: false });
    expect(html).not.toMatch(/<img|(href|src)="[^"]*tracker|<h1/);
    expect(html).not.toMatch(/@org/);
    expect(html.match(/<details/g)?.length ?? 0).toBe(html.match(/<\/details>/g)?.length ?? 0);

    const b1 = await act("b.yml");
    expect(b1.code, b1.stdout).toBe(0);
    expect(thread()).toHaveLength(2);
    const b2 = await act("b.yml");
    expect(b2.code, b2.stdout).toBe(0);
    expect(thread()).toHaveLength(2);
    expect(thread()[0]).toMatchObject({ id: mine.id, body: mine.body });
    expect(thread()[1].body.split("\n")[0]).toBe(commentMarker("Medalist PR", "suite-b"));
  }, 240_000);
});
