// `medalist check` for the Slurm executor: its lines come from slurm/check.ts (the backend's
// machineCheck), against the real controller, and a missing scontrol is said in one line.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { validateConfig } from "../../src/config/load.js";
import { slurmMachineCheck } from "../../src/execute/slurm/check.js";
import { checkSuite, checkText } from "../../src/session/check.js";
import { requireSlurm } from "./helpers.js";

const node = requireSlurm();

describe("medalist check with executor: slurm", () => {
  it.skipIf(!node)("asks the real controller and says how the agent runs on the node", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medalist-slurm-check-"));
    const config = validateConfig(
      {
        competitions: { include: ["toy-churn"] },
        agent: { command: "echo hi" },
        executor: "slurm",
        slurm: { mode: "command", sharedDir: dir },
        dataDir: join(dir, "data"),
      },
      "medalist.yml",
    );
    const lines = await checkSuite(
      { config, baseDir: dir, path: join(dir, "medalist.yml") },
      { machine: true },
    );
    const text = lines.map(checkText);
    expect(text.find((l) => l.includes("executor: slurm:"))).toMatch(
      /^✓ executor: slurm: Slurmctld\(primary\) at \S+ is UP/,
    );
    expect(text).toContain(
      "✓ sandbox: slurm.mode command decides how the agent runs on the node (docs/slurm.md)",
    );
  });

  it("says in one line when scontrol is not installed", async () => {
    const path = process.env.PATH;
    process.env.PATH = mkdtempSync(join(tmpdir(), "medalist-no-scontrol-"));
    try {
      const [executor] = await slurmMachineCheck({ mode: "docker" } as Parameters<
        typeof slurmMachineCheck
      >[0]);
      expect(executor).toEqual({
        what: "executor",
        ok: false,
        text: "slurm: the controller does not answer (scontrol ping: scontrol is not installed (not on PATH))",
      });
    } finally {
      process.env.PATH = path;
    }
  });
});
