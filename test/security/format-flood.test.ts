import http from "node:http";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bodyLimit,
  startValidationServer,
  type ValidationServer,
} from "../../src/execute/validation-server.js";

const MB = 1024 ** 2;
/** Size of the flood; MEDALIST_FLOOD_MB to change it. */
const FLOOD = Number(process.env.MEDALIST_FLOOD_MB ?? 100) * MB;

/** POSTs `total` bytes in 64 KiB chunks (chunked, or with a Content-Length); resolves with the status. */
function flood(url: string, total: number, withLength: boolean): Promise<{ status: number; sent: number }> {
  return new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(64 * 1024, "1,0\n");
    let sent = 0;
    const req = http.request(url, {
      method: "POST",
      headers: withLength ? { "content-length": String(total) } : { "transfer-encoding": "chunked" },
    });
    let status = 0;
    req.on("response", (res) => {
      status = res.statusCode ?? 0;
      res.resume();
      res.on("end", () => resolve({ status, sent }));
    });
    req.on("error", (e) => (status ? resolve({ status, sent }) : reject(e)));
    const pump = () => {
      while (sent < total && status === 0) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      if (status === 0) req.end();
    };
    pump();
  });
}

describe("the format-check endpoint under attack", () => {
  let server: ValidationServer;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "medalist-flood-"));
    writeFileSync(
      join(dir, "sample.csv"),
      "id,target\n" + Array.from({ length: 1000 }, (_, i) => `${i},0\n`).join(""),
    );
    server = await startValidationServer({ requestsPerRun: 5 });
  });
  afterAll(() => server.close());

  it("derives the body limit from the sample: floor 1 MiB, 16 × the sample, ceiling", () => {
    expect(bodyLimit(100)).toBe(MB + 1600);
    expect(bodyLimit(10 * MB)).toBe(32 * MB);
    expect(bodyLimit(0)).toBe(MB);
  });

  it(`a ${FLOOD / MB} MB POST is refused; memory stays bounded; another run's check still answers`, async () => {
    const attacker = server.register("toy", join(dir, "sample.csv"), "run-a");
    const other = server.register("toy", join(dir, "sample.csv"), "run-b");
    global.gc?.();
    const before = process.memoryUsage();
    // Declared length: refused before a byte of the body is read.
    expect((await flood(attacker, FLOOD, true)).status).toBe(413);
    // No declared length: streamed, cut off at the limit.
    const chunked = flood(attacker, FLOOD, false);
    // Meanwhile another run's check is answered.
    const t0 = Date.now();
    const ok = await fetch(other, {
      method: "POST",
      body: "id,target\n" + Array.from({ length: 1000 }, (_, i) => `${i},1\n`).join(""),
    });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { valid: boolean }).valid).toBe(true);
    expect(Date.now() - t0).toBeLessThan(10_000);
    const r = await chunked;
    expect(r.status).toBe(413);
    const after = process.memoryUsage();
    // Stated bound: the runner's heap grows by less than 64 MiB however large the POST.
    expect(after.heapUsed - before.heapUsed).toBeLessThan(64 * MB);
    expect(after.arrayBuffers - before.arrayBuffers).toBeLessThan(64 * MB);
    console.log(
      `[flood] sent ${(r.sent / MB).toFixed(1)} MiB before the cut; heap +${((after.heapUsed - before.heapUsed) / MB).toFixed(1)} MiB, rss +${((after.rss - before.rss) / MB).toFixed(1)} MiB`,
    );
  }, 120_000);

  it("a run has a budget of checks; a score is never returned", async () => {
    const url = server.register("toy", join(dir, "sample.csv"), "run-c");
    const codes: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await fetch(url, { method: "POST", body: "id,target\n1,0\n" });
      const text = await res.text();
      expect(text).not.toMatch(/score/i);
      codes.push(res.status);
    }
    expect(codes).toEqual([200, 200, 200, 200, 200, 429]);
  });
});
