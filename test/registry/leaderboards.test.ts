import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { leaderboardPath } from "../../src/registry/leaderboards.js";
import { loadRegistry, selectCompetitions, type RegistryEntry } from "../../src/registry/registry.js";
import { fetchLeaderboards } from "../../src/registry/leaderboards-fetch.js";
import { leaderboardsCommand } from "../../src/cli/commands/leaderboards.js";

const registry = loadRegistry(resolve(__dirname, "../../competitions"));
const sha = (s: string) => createHash("sha256").update(s).digest("hex");

// Two competitions whose pins we control: "good" is served as pinned, "bad" is served altered.
const bodies: Record<string, string> = {
  "spooky-author-identification": "teamId,teamName,score\n1,a,0.16\n2,b,0.42\n",
  "leaf-classification": "teamId,teamName,score\n1,a,0.01\n",
};
function entryFor(id: string): RegistryEntry {
  const base = registry.get(id)!;
  const body = bodies[id];
  return {
    ...base,
    competition: { ...base.competition, leaderboardPin: { sha256: sha(body), bytes: body.length } },
  };
}
const good = entryFor("spooky-author-identification");
const bad = entryFor("leaf-classification");
const served = (id: string) => (id === bad.competition.id ? bodies[id].replace("0.01", "0.02") : bodies[id]);

let server: Server;
let base: string;
const lfsRequests: unknown[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (req.method === "POST" && url.pathname === "/lfs/objects/batch") {
      let data = "";
      req.on("data", (c) => (data += c));
      req.on("end", () => {
        const body = JSON.parse(data) as { objects: { oid: string; size: number }[] };
        lfsRequests.push(body);
        res.writeHead(200, { "content-type": "application/vnd.git-lfs+json" });
        res.end(
          JSON.stringify({
            objects: body.objects.map((o) => {
              const id = Object.keys(bodies).find((k) => sha(bodies[k]) === o.oid);
              return id
                ? {
                    ...o,
                    actions: {
                      download: { href: `${base}/blobs/${id}`, header: { authorization: "RemoteAuth t" } },
                    },
                  }
                : { ...o, error: { code: 404, message: "Object does not exist" } };
            }),
          }),
        );
      });
      return;
    }
    const blob = /^\/blobs\/(.+)$/.exec(url.pathname);
    if (blob && req.headers.authorization !== "RemoteAuth t") return void res.writeHead(401).end();
    const mirror = /^\/mirror\/([^/]+)\/leaderboard\.csv$/.exec(url.pathname);
    const id = blob?.[1] ?? mirror?.[1];
    if (id && bodies[id]) return void res.writeHead(200).end(served(id));
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("leaderboards fetch", () => {
  it("keeps a leaderboard whose SHA-256 matches the pin and rejects one that does not (mirror)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medalist-lbf-"));
    const r = await fetchLeaderboards([good, bad], { dir, baseUrl: `${base}/mirror` });
    expect(r.fetched).toEqual([good.competition.id]);
    expect(r.failed).toHaveLength(1);
    expect(r.failed[0].message).toMatch(/SHA-256 [0-9a-f]{64} .* differs from the pinned .*; not kept/);
    expect(leaderboardPath(good, dir)).toBe(join(dir, good.competition.id, "leaderboard.csv"));
    expect(readFileSync(leaderboardPath(good, dir)!, "utf8")).toBe(bodies[good.competition.id]);
    // Nothing of the rejected one is kept, not even a temporary file.
    expect(leaderboardPath(bad, dir)).toBeUndefined();
    expect(
      existsSync(join(dir, bad.competition.id)) ? readdirSync(join(dir, bad.competition.id)) : [],
    ).toEqual([]);
    // A second run finds the verified one in place.
    const again = await fetchLeaderboards([good], { dir, baseUrl: `${base}/mirror` });
    expect(again).toEqual({ fetched: [], present: [good.competition.id], failed: [] });
  });

  it("fetches by object id through the Git LFS batch API", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medalist-lbf-"));
    const other = registry.get("AI4Code")!; // its real pin: unknown to this server
    const r = await fetchLeaderboards([good, other], { dir, lfsUrl: `${base}/lfs` });
    expect(r.fetched).toEqual([good.competition.id]);
    expect(r.failed).toEqual([
      { id: "AI4Code", message: "LFS has no download for it (Object does not exist)" },
    ]);
    expect(lfsRequests.at(-1)).toMatchObject({
      operation: "download",
      objects: [
        { oid: good.competition.leaderboardPin!.sha256 },
        { oid: other.competition.leaderboardPin!.sha256 },
      ],
    });
    expect(leaderboardPath(good, dir)).toBeDefined();
  });

  it("the CLI reports failures with exit code 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medalist-lbf-"));
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const err = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      // The bundled pins are upstream's real hashes: this mirror serves other bytes, so all are rejected.
      const code = await leaderboardsCommand.run([
        "fetch",
        "--dir",
        dir,
        "--base-url",
        `${base}/mirror`,
        "--competition",
        "spooky-author-identification",
      ]);
      expect(code).toBe(1);
      expect(log.mock.calls.map((c) => c.join(" ")).join("\n")).toMatch(
        /FAILED {2}spooky-author-identification: SHA-256 .* not kept[\s\S]*0 fetched, 0 already verified, 1 failed/,
      );
      await expect(leaderboardsCommand.run(["pull"])).rejects.toThrow(/unknown subcommand "pull"/);
      log.mockClear();
      expect(await leaderboardsCommand.run(["status", "--dir", dir, "--split", "lite"])).toBe(0);
      const text = log.mock.calls.map((c) => c.join(" ")).join("\n");
      expect(text).toMatch(/spooky-author-identification\s+precomputed thresholds/);
      expect(text).toContain("0 of 22 with a leaderboard file");
    } finally {
      log.mockRestore();
      err.mockRestore();
    }
  });

  it("offline: the cause (refused connection, unknown host) said once for all, a summary, exit 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medalist-lbf-"));
    // A port nobody listens on: bind one, then close it.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const { port } = closed.address() as AddressInfo;
    await new Promise((r) => closed.close(r));
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const err = vi.spyOn(console, "error").mockImplementation(() => {});
    const lines = () => log.mock.calls.map((c) => c.join(" "));
    try {
      const pinned = selectCompetitions(registry, { split: "all", include: [] }).filter(
        (id) => registry.get(id)!.competition.leaderboardPin,
      ).length;
      const lfs = ["fetch", "--dir", dir, "--lfs-url", `http://127.0.0.1:${port}/lfs`];
      expect(await leaderboardsCommand.run(lfs)).toBe(1);
      expect(lines()).toHaveLength(2);
      expect(lines()[0]).toMatch(
        new RegExp(
          `^FAILED {2}${pinned} leaderboards \\([\\w-]+, [\\w-]+, [\\w-]+ and ${pinned - 3} more\\): ` +
            `cannot connect to 127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\): no network, or a firewall in the way\\?$`,
        ),
      );
      expect(lines()[1]).toBe(`0 fetched, 0 already verified, ${pinned} failed (in ${dir})`);
      log.mockClear();
      // A mirror whose name does not resolve: asked once, not once per competition.
      const mirror = ["fetch", "--dir", dir, "--base-url", "http://leaderboards.invalid", "--split", "lite"];
      expect(await leaderboardsCommand.run(mirror)).toBe(1);
      expect(lines()).toHaveLength(2);
      expect(lines()[0]).toMatch(
        /^FAILED {2}\d+ leaderboards \(.*\): cannot resolve leaderboards\.invalid \((ENOTFOUND|EAI_AGAIN)\): no network, or no DNS on this machine\?$/,
      );
      expect(lines().join("\n")).not.toContain("fetch failed");
    } finally {
      log.mockRestore();
      err.mockRestore();
    }
  }, 60_000);
});
