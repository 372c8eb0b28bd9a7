// The MLE-bench agent scan is bounded: the agent's own config.yaml is read alone; looking through
// the other config.yaml files stops at a bound in files, bytes or time with one sentence; no
// config.yaml, start script or Dockerfile is reached through a symbolic link.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { UserError } from "../../src/errors.js";
import { loadMlebenchAgent, SCAN_LIMITS } from "../../src/mlebench/agent-folder.js";

/** How many big config.yaml files (the attack used 30 of one megabyte). */
const BIG = Number(process.env.MEDALIST_SCAN_FILES ?? 30);

/** About `bytes` of valid YAML with many entries, one of them `dup` (an entry for `id`). */
function bigYaml(bytes: number, id: string): string {
  const parts = [`${id}:\n  start: evil/start.sh\n  dockerfile: evil/Dockerfile\n`];
  let size = parts[0].length;
  for (let i = 0; size < bytes; i++) {
    const p = `entry${i}:\n  start: x/start.sh\n  dockerfile: x/Dockerfile\n  env_vars:\n    K: "${"v".repeat(60)}"\n`;
    parts.push(p);
    size += p.length;
  }
  return parts.join("");
}

function agents(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "medalist-scan-"));
  mkdirSync(path.join(dir, "tiny"), { recursive: true });
  writeFileSync(
    path.join(dir, "tiny", "config.yaml"),
    "tiny:\n  start: tiny/start.sh\n  dockerfile: tiny/Dockerfile\n",
  );
  writeFileSync(path.join(dir, "tiny", "start.sh"), "#!/bin/bash\n");
  writeFileSync(path.join(dir, "tiny", "Dockerfile"), "FROM scratch\n");
  // Many one-megabyte config.yaml files (under the old 1 MiB cap on each), each with an entry for tiny as well.
  for (let i = 0; i < BIG; i++) {
    mkdirSync(path.join(dir, `junk${i}`));
    writeFileSync(path.join(dir, `junk${i}`, "config.yaml"), bigYaml(1_000_000, "tiny"));
  }
  return dir;
}

function failure(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(UserError);
    return (e as Error).message;
  }
  throw new Error("expected a UserError");
}

describe("the MLE-bench agent scan", () => {
  it("reads only the chosen agent's own config.yaml", () => {
    const dir = agents();
    const t = Date.now();
    const agent = loadMlebenchAgent(dir, "tiny");
    // The other files define tiny too: read, they would make it ambiguous ("keep one").
    expect(agent.configFile).toBe("tiny/config.yaml");
    expect(agent.start).toBe("tiny/start.sh");
    expect(Date.now() - t).toBeLessThan(10_000);
  }, 60_000);

  it("looking elsewhere stops at its byte bound with one sentence", () => {
    const dir = agents();
    const t = Date.now();
    expect(failure(() => loadMlebenchAgent(dir, "other"))).toBe(
      `agent.mlebench.id: other is not in other/config.yaml, and the search of the other config.yaml files under ${dir} stopped at ${SCAN_LIMITS.totalBytes} bytes; keep the entry in other/config.yaml (as upstream's agents do)`,
    );
    expect(Date.now() - t).toBeLessThan(10_000);
  }, 60_000);

  it("looking elsewhere stops at its file bound with one sentence", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "medalist-scan-many-"));
    for (let i = 0; i <= SCAN_LIMITS.files; i++) {
      mkdirSync(path.join(dir, `a${i}`));
      writeFileSync(
        path.join(dir, `a${i}`, "config.yaml"),
        `a${i}:\n  start: a/start.sh\n  dockerfile: a/Dockerfile\n`,
      );
    }
    expect(failure(() => loadMlebenchAgent(dir, "zzz"))).toMatch(
      new RegExp(`stopped at ${SCAN_LIMITS.files} files; keep the entry in zzz/config\\.yaml`),
    );
  });

  it("a small folder is still searched as upstream's registry searches it", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "medalist-scan-small-"));
    mkdirSync(path.join(dir, "pack", "x"), { recursive: true });
    writeFileSync(
      path.join(dir, "pack", "config.yaml"),
      "mine:\n  start: pack/x/start.sh\n  dockerfile: pack/x/Dockerfile\n",
    );
    writeFileSync(path.join(dir, "pack", "x", "start.sh"), "#!/bin/bash\n");
    writeFileSync(path.join(dir, "pack", "x", "Dockerfile"), "FROM scratch\n");
    expect(loadMlebenchAgent(dir, "mine").configFile).toBe("pack/config.yaml");
  });

  it("refuses the agent's folder, config.yaml or Dockerfile reached through a symbolic link", () => {
    const root = mkdtempSync(path.join(os.tmpdir(), "medalist-scan-link-"));
    const dir = path.join(root, "agents");
    mkdirSync(path.join(dir, "tiny"), { recursive: true });
    mkdirSync(path.join(root, ".medalist"));
    writeFileSync(path.join(root, ".medalist", "Dockerfile"), "FROM scratch\nCOPY data /stolen\n");
    writeFileSync(path.join(dir, "tiny", "start.sh"), "#!/bin/bash\n");
    // The attack: the Dockerfile's folder is a link to the folder with the data.
    symlinkSync("../.medalist", path.join(dir, "evil"));
    writeFileSync(
      path.join(dir, "tiny", "config.yaml"),
      "tiny:\n  start: tiny/start.sh\n  dockerfile: evil/Dockerfile\n",
    );
    expect(failure(() => loadMlebenchAgent(dir, "tiny"))).toBe(
      `tiny/config.yaml: tiny.dockerfile: ${dir}/evil/Dockerfile goes through the symbolic link ${dir}/evil (-> ../.medalist); ` +
        "Medalist does not follow links in the paths a pull request supplies: commit the folder itself",
    );
    // The agent's own config.yaml as a link: refused, not followed.
    mkdirSync(path.join(dir, "linked"));
    symlinkSync("../tiny/config.yaml", path.join(dir, "linked", "config.yaml"));
    expect(failure(() => loadMlebenchAgent(dir, "linked"))).toMatch(
      /^agent\.mlebench: \S+\/linked\/config\.yaml is a symbolic link$/,
    );
  });
});
