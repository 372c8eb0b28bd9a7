import { mkdirSync, mkdtempSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { firstInvalidUtf8, readCsvText } from "../../src/tabular/csv.js";
import { loadConfig, validateConfig } from "../../src/config/load.js";
import { loadRegistry } from "../../src/registry/registry.js";
import { ensurePrepared } from "../../src/suite/prepare.js";
import { agentEnv } from "../../src/suite/run.js";

const base = { competitions: { split: "toy" }, agent: { command: "x" } };

describe("limits on what the runner is given", () => {
  it("bad UTF-8 is reported at its byte offset", () => {
    const text = Buffer.concat([
      Buffer.from("id,target\n1,abcdefghi"),
      Buffer.from([0xff]),
      Buffer.from("\n"),
    ]);
    expect(() => readCsvText(text, "submission")).toThrow(/not valid UTF-8 text \(at byte offset 21\)/);
    expect(firstInvalidUtf8(Buffer.from("héllo", "utf8"))).toBe(6);
    expect(firstInvalidUtf8(Buffer.from([0x61, 0xe2, 0x82]))).toBe(1);
    expect(firstInvalidUtf8(Buffer.from([0xed, 0xa0, 0x80]))).toBe(0); // a surrogate
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), text]);
    expect(() => readCsvText(bom, "submission")).toThrow(/\(at byte offset 24\)/);
    // Past the first chunk and line.
    const long = Buffer.concat([
      Buffer.from("id,y\n" + "1,2\n".repeat(5000)),
      Buffer.from([0x31, 0x2c, 0xc3, 0x28, 0x0a]),
    ]);
    expect(() => readCsvText(long, "s", { chunkSize: 4096 })).toThrow(`(at byte offset ${5 + 4 * 5000 + 2})`);
  });

  it("time limits past 7 days are refused (Node's timers overflow at 24.8 days)", () => {
    expect(() => validateConfig({ ...base, limits: { time: "597h" } }, "c.yml")).toThrow(
      /limits\.time.*at most 604800 seconds/s,
    );
    expect(validateConfig({ ...base, limits: { time: "168h" } }, "c.yml").limits.time).toBe(604800);
  });

  it("an agent environment past 64 KiB is refused with its path, before any spawn", () => {
    expect(() =>
      validateConfig({ ...base, agent: { command: "x", env: { BIG: "x".repeat(70_000) } } }, "c.yml"),
    ).toThrow(/agent\.env.*larger than 65536 bytes/s);
  });

  it("secrets that make the environment too large are refused by name, not with spawn E2BIG", () => {
    const config = validateConfig(
      { ...base, agent: { command: "x", secrets: ["MEDALIST_TEST_HUGE"] } },
      "c.yml",
    );
    expect(() => agentEnv(config.agent, { MEDALIST_TEST_HUGE: "x".repeat(100_000) })).toThrow(
      /agent\.secrets: .* larger than 65536 bytes/,
    );
  });

  it("a config file past 1 MiB is refused without parsing it", () => {
    const dir = mkdtempSync(join(tmpdir(), "medalist-limits-"));
    const file = join(dir, "big.yml");
    writeFileSync(file, "name: x\n" + "# padding\n".repeat(200_000));
    const t0 = Date.now();
    expect(() => loadConfig(file)).toThrow(/larger than 1048576 bytes/);
    expect(Date.now() - t0).toBeLessThan(1000);
  });
});

describe("a hostile registry", () => {
  const entry = (over: Record<string, unknown>) => ({
    id: "evil",
    name: "Evil",
    metric: "x",
    isLowerBetter: false,
    answers: "answers.csv",
    sampleSubmission: "sample_submission.csv",
    source: "toy",
    toy: { task: "binary", seed: 1, trainRows: 10, testRows: 5, features: 3, target: "y" },
    ...over,
  });
  const registryWith = (over: Record<string, unknown>) => {
    const dir = mkdtempSync(join(tmpdir(), "medalist-evil-registry-"));
    mkdirSync(join(dir, "evil"));
    writeFileSync(join(dir, "evil", "competition.json"), JSON.stringify(entry(over)));
    return dir;
  };

  it("path traversal in answers, sample or leaderboard is refused before anything is written", async () => {
    for (const over of [
      { answers: "../../../../etc/passwd-medalist-test" },
      { sampleSubmission: "/tmp/medalist-evil-sample.csv" },
      { leaderboard: "../../leaderboard.csv" },
    ]) {
      const dir = registryWith(over);
      const dataDir = mkdtempSync(join(tmpdir(), "medalist-evil-data-"));
      expect(() => loadRegistry(dir)).toThrow(/climbs out of its folder|is absolute/);
      expect(existsSync(join(dataDir, "evil"))).toBe(false);
    }
    expect(existsSync("/tmp/medalist-evil-sample.csv")).toBe(false);
  });

  it("toy sizes are bounded (trainRows: 2e9 would exhaust memory)", () => {
    const dir = registryWith({
      toy: { task: "binary", seed: 1, trainRows: 2e9, testRows: 5, features: 3, target: "y" },
    });
    const registry = loadRegistry(dir);
    const dataDir = mkdtempSync(join(tmpdir(), "medalist-evil-data-"));
    return expect(ensurePrepared(registry.get("evil")!, dataDir, () => {})).rejects.toThrow(
      /toy parameters invalid/,
    );
  });
});
