import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadRegistry, type RegistryEntry } from "../../src/registry/registry.js";
import { prepareCompetition, warmCheck, type PrepareOptions } from "../../src/prepare/prepare.js";
import { downloadCompetition, kaggleCredentials } from "../../src/prepare/kaggle.js";
import { UserError } from "../../src/errors.js";
import { readManifest } from "../../src/prepare/manifest.js";
import { KEY, USER, startFakeKaggle, type FakeKaggle } from "./kaggle-server.js";

const ID = "spooky-author-identification";
const zipBytes = readFileSync(resolve(__dirname, "fixtures/recipes", ID, "kaggle.zip"));
const zipMd5 = createHash("md5").update(zipBytes).digest("hex");
const base = loadRegistry(resolve(__dirname, "../../competitions")).get(ID)!;
// The registry pins upstream's MD5 of Kaggle's real zip; pin the generated one instead.
const entry: RegistryEntry = {
  ...base,
  competition: { ...base.competition, prepare: { ...base.competition.prepare, zipMd5 } },
};

let kaggle: FakeKaggle;
let dataDir: string;
let opts: PrepareOptions;

beforeAll(async () => {
  kaggle = await startFakeKaggle();
});
afterAll(() => kaggle.close());
beforeEach(() => {
  kaggle.files.set(ID, zipBytes);
  kaggle.rulesNotAccepted.clear();
  kaggle.drop = { afterBytes: 0, times: 0 };
  kaggle.ranges.length = 0;
  kaggle.ignoreRange = false;
  dataDir = mkdtempSync(join(tmpdir(), "medalist-kaggle-"));
  opts = { dataDir, kaggleUrl: kaggle.url, credentials: { username: USER, key: KEY }, retryDelayMs: 0 };
});

/** Nothing is marked prepared: no manifest, no prepared/ folder, no finished zip. */
function expectNothingPrepared(): void {
  expect(warmCheck(entry.competition, dataDir)).toBeUndefined();
  expect(existsSync(join(dataDir, ID, "prepared"))).toBe(false);
  expect(existsSync(join(dataDir, ID, `${ID}.zip`))).toBe(false);
}

describe("Kaggle download", () => {
  it("downloads, verifies the MD5, prepares and records a manifest", async () => {
    const r = await prepareCompetition(entry, opts);
    expect(r.status).toBe("prepared");
    expect(kaggle.ranges).toEqual([undefined]);
    expect(readFileSync(join(dataDir, ID, `${ID}.zip`))).toEqual(zipBytes);
    expect(warmCheck(entry.competition, dataDir)).toBeDefined();
    // A second call is a warm check: no request reaches the server.
    const before = kaggle.requests;
    expect((await prepareCompetition(entry, opts)).status).toBe("ready");
    expect(kaggle.requests).toBe(before);
  });

  it("does not send the Kaggle credentials to the storage URL it is redirected to", async () => {
    kaggle.crossOrigin = true;
    kaggle.drop = { afterBytes: 500, times: 1 };
    try {
      expect((await prepareCompetition(entry, opts)).status).toBe("prepared");
      expect(kaggle.storageAuth.slice(-2)).toEqual([undefined, undefined]);
      expect(kaggle.ranges.slice(-2)).toEqual([undefined, "bytes=500-"]);
    } finally {
      kaggle.crossOrigin = false;
    }
  });

  it("resumes with a Range request after a dropped connection", async () => {
    kaggle.drop = { afterBytes: 1000, times: 1 };
    const logs: string[] = [];
    const r = await prepareCompetition(entry, { ...opts, log: (l) => logs.push(l) });
    expect(r.status).toBe("prepared");
    expect(kaggle.ranges).toEqual([undefined, "bytes=1000-"]);
    expect(logs.join("\n")).toMatch(/after 1000 bytes.*resuming/);
    expect(readFileSync(join(dataDir, ID, `${ID}.zip`))).toEqual(zipBytes);
  });

  it("keeps a partial download as .part, never as the zip, and resumes it on the next run", async () => {
    kaggle.drop = { afterBytes: 700, times: 5 };
    const err = await prepareCompetition(entry, { ...opts, downloadRetries: 1 }).catch((e) => e);
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toMatch(
      /connection (dropped|closed) after 1400 bytes.*\.part is kept, run again to resume/,
    );
    expectNothingPrepared();
    expect(statSync(join(dataDir, ID, `${ID}.zip.part`)).size).toBe(1400);
    expect(
      readdirSync(join(dataDir, ID)).filter((n) => n.startsWith(".staging") || n.endsWith(".lock")),
    ).toEqual([]);
    kaggle.drop = { afterBytes: 0, times: 0 };
    expect((await prepareCompetition(entry, opts)).status).toBe("prepared");
    expect(kaggle.ranges.at(-1)).toBe("bytes=1400-");
    expect(readFileSync(join(dataDir, ID, `${ID}.zip`))).toEqual(zipBytes);
  });

  it("rejects a zip with the wrong checksum and does not keep it", async () => {
    const tampered = Buffer.from(zipBytes);
    tampered[tampered.length - 30] ^= 0xff;
    kaggle.files.set(ID, tampered);
    const err = await prepareCompetition(entry, opts).catch((e) => e);
    expect(err.message).toMatch(
      new RegExp(`MD5 [0-9a-f]{32} differs from upstream's ${zipMd5}; it was deleted.*--skip-verification`),
    );
    expectNothingPrepared();
    expect(existsSync(join(dataDir, ID, `${ID}.zip.part`))).toBe(false);
  });

  it("explains a 403: the competition's rules have not been accepted", async () => {
    kaggle.rulesNotAccepted.add(ID);
    const err = await prepareCompetition(entry, opts).catch((e) => e);
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toContain("HTTP 403");
    expect(err.message).toContain(`rules have not been accepted`);
    expect(err.message).toContain(`https://www.kaggle.com/competitions/${ID}/rules`);
    expectNothingPrepared();
    expect(existsSync(join(dataDir, ID, `${ID}.zip.part`))).toBe(false);
  });

  it("explains a 401: bad credentials", async () => {
    const err = await prepareCompetition(entry, {
      ...opts,
      credentials: { username: USER, key: "wrong" },
    }).catch((e) => e);
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toMatch(/rejected the credentials \(HTTP 401\).*KAGGLE_USERNAME\/KAGGLE_KEY/);
    expectNothingPrepared();
  });

  it("starts over when the server ignores the Range header", async () => {
    const dest = join(dataDir, "x.zip");
    writeFileSync(`${dest}.part`, Buffer.alloc(50, 7)); // garbage from an earlier attempt
    kaggle.files.set("plain", zipBytes);
    kaggle.ignoreRange = true; // answers 200 with the whole file: the .part is rewritten
    const o = { baseUrl: kaggle.url, credentials: { username: USER, key: KEY }, md5: zipMd5 };
    await downloadCompetition("plain", dest, o);
    expect(kaggle.ranges).toEqual(["bytes=50-"]);
    expect(readFileSync(dest)).toEqual(zipBytes);
  });

  it("a .part that is not a prefix of the file is caught by the checksum", async () => {
    const dest = join(dataDir, "y.zip");
    writeFileSync(`${dest}.part`, Buffer.alloc(50, 7));
    kaggle.files.set("plain", zipBytes);
    const o = { baseUrl: kaggle.url, credentials: { username: USER, key: KEY }, md5: zipMd5 };
    await expect(downloadCompetition("plain", dest, o)).rejects.toThrow(/differs from upstream's/);
    expect(existsSync(dest) || existsSync(`${dest}.part`)).toBe(false);
    await downloadCompetition("plain", dest, o); // the next run starts from scratch
    expect(readFileSync(dest)).toEqual(zipBytes);
  });
});

describe("a failed preparation leaves nothing marked prepared", () => {
  it("a download without the expected raw table: clear error, zip kept, no staging left", async () => {
    const other = readFileSync(
      resolve(__dirname, "fixtures/recipes/tabular-playground-series-dec-2021/kaggle.zip"),
    );
    kaggle.files.set(ID, other);
    const err = await prepareCompetition(entry, { ...opts, skipVerification: true }).catch((e) => e);
    expect(err.message).toMatch(/raw file train.zip not found in the Kaggle download/);
    expect(existsSync(join(dataDir, ID, "prepared"))).toBe(false);
    expect(warmCheck(entry.competition, dataDir)).toBeUndefined();
    expect(readdirSync(join(dataDir, ID)).sort()).toEqual([`${ID}.zip`]);
  });

  it("a zip already on disk with the wrong MD5 is refused with what to do", async () => {
    mkdirSync(join(dataDir, ID), { recursive: true });
    writeFileSync(join(dataDir, ID, `${ID}.zip`), "not the zip");
    await expect(prepareCompetition(entry, opts)).rejects.toThrow(
      /has an MD5 different from upstream's .*delete it to download again/,
    );
    expect(existsSync(join(dataDir, ID, "prepared"))).toBe(false);
  });
});

describe("description.md", () => {
  const text = "# Spooky Author Identification\n\nUpstream's description.\n";
  const pinned: RegistryEntry = {
    ...entry,
    competition: {
      ...entry.competition,
      prepare: { ...entry.competition.prepare, descriptionMd5: createHash("md5").update(text).digest("hex") },
    },
  };
  const descriptionUrl = () => kaggle.url.replace(/\/api\/v1$/, "/descriptions");

  it("is upstream's file when its MD5 matches the pin", async () => {
    kaggle.descriptions.set(ID, text);
    expect((await prepareCompetition(pinned, { ...opts, descriptionUrl: descriptionUrl() })).status).toBe(
      "prepared",
    );
    expect(readFileSync(join(dataDir, ID, "prepared", "public", "description.md"), "utf8")).toBe(text);
    expect(readManifest(join(dataDir, ID, "prepared"))!.description).toBe("upstream");
  });

  it("is a stub, with a warning, when upstream's file differs or cannot be fetched", async () => {
    kaggle.descriptions.set(ID, text + "changed\n");
    const logs: string[] = [];
    await prepareCompetition(pinned, { ...opts, descriptionUrl: descriptionUrl(), log: (l) => logs.push(l) });
    expect(logs.join("\n")).toMatch(/upstream description.md not used \(MD5 .* differs from the pinned/);
    expect(readFileSync(join(dataDir, ID, "prepared", "public", "description.md"), "utf8")).toContain(
      `https://www.kaggle.com/competitions/${ID}/overview`,
    );
    expect(readManifest(join(dataDir, ID, "prepared"))!.description).toBe("stub");
  });
});

describe("Kaggle credentials", () => {
  it("come from the environment, else kaggle.json, else a clear error", () => {
    expect(kaggleCredentials({ KAGGLE_USERNAME: "u", KAGGLE_KEY: "k" })).toEqual({ username: "u", key: "k" });
    const dir = mkdtempSync(join(tmpdir(), "medalist-kcfg-"));
    expect(() => kaggleCredentials({ KAGGLE_CONFIG_DIR: dir })).toThrow(
      /no Kaggle credentials.*KAGGLE_USERNAME/,
    );
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "kaggle.json"), JSON.stringify({ username: "ada", key: "k2" }));
    expect(kaggleCredentials({ KAGGLE_CONFIG_DIR: dir })).toEqual({ username: "ada", key: "k2" });
    writeFileSync(join(dir, "kaggle.json"), "{not json");
    expect(() => kaggleCredentials({ KAGGLE_CONFIG_DIR: dir })).toThrow(
      /must be JSON with "username" and "key"/,
    );
  });
});
