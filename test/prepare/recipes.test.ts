import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import yauzl from "yauzl";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadRegistry, type RegistryEntry } from "../../src/registry/registry.js";
import { prepareCompetition } from "../../src/prepare/prepare.js";
import { KEY, USER, startFakeKaggle, type FakeKaggle } from "./kaggle-server.js";

/**
 * Each fixture is a generated Kaggle download with the real one's layout plus what upstream's
 * preparation makes of it (computed with pandas + scikit-learn by fixtures/make_reference.py).
 * Medalist's recipe, fed the same zip through the fake Kaggle API, must produce the same files.
 */
const fixtures = resolve(__dirname, "fixtures/recipes");
const registry = loadRegistry(resolve(__dirname, "../../competitions"));
const ids = readdirSync(fixtures).sort();

interface Expected {
  params: { testSize?: number };
  files: Record<string, { md5?: string; entries?: Record<string, string | null> }>;
  dirs: string[];
}

function walk(dir: string, root = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory()
      ? [relative(root, join(dir, d.name)) + "/", ...walk(join(dir, d.name), root)]
      : [relative(root, join(dir, d.name))],
  );
}

/** A zip's entries with the MD5 of each file's content (null for folders). */
async function zipEntries(file: string): Promise<Record<string, string | null>> {
  const zip = await yauzl.openPromise(file, { lazyEntries: true, autoClose: false });
  const out: Record<string, string | null> = {};
  for await (const e of zip.eachEntry()) {
    if (e.fileName.endsWith("/")) {
      out[e.fileName] = null;
      continue;
    }
    const h = createHash("md5");
    for await (const chunk of await zip.openReadStreamPromise(e)) h.update(chunk as Buffer);
    out[e.fileName] = h.digest("hex");
  }
  zip.close();
  return out;
}

let kaggle: FakeKaggle;
beforeAll(async () => {
  kaggle = await startFakeKaggle();
  for (const id of ids) kaggle.files.set(id, readFileSync(join(fixtures, id, "kaggle.zip")));
});
afterAll(() => kaggle.close());

describe("recipes reproduce upstream's prepared files", () => {
  it("covers every lite competition with a recipe", () => {
    const withRecipe = [...registry.values()]
      .filter((e) => e.competition.prepare?.split)
      .map((e) => e.competition.id);
    expect(withRecipe.sort()).toEqual(ids);
  });

  it.each(ids)("%s", async (id) => {
    const expected: Expected = JSON.parse(readFileSync(join(fixtures, id, "expected.json"), "utf8"));
    const base = registry.get(id)!;
    const recipe = base.competition.prepare!.split!;
    // The generated raw tables are small: integer test sizes (100000, 9914) are scaled down alike.
    const split =
      recipe.kind === "table-split" && expected.params.testSize !== undefined
        ? { ...recipe, testSize: expected.params.testSize }
        : recipe;
    const entry: RegistryEntry = {
      ...base,
      competition: { ...base.competition, prepare: { ...base.competition.prepare, split } },
    };
    const dataDir = mkdtempSync(join(tmpdir(), "medalist-recipe-"));
    const r = await prepareCompetition(entry, {
      dataDir,
      kaggleUrl: kaggle.url,
      credentials: { username: USER, key: KEY },
      skipVerification: true, // the generated zip is not Kaggle's
    });
    expect(r.status).toBe("prepared");
    const prepared = join(dataDir, id, "prepared");
    for (const [rel, want] of Object.entries(expected.files)) {
      const file = join(prepared, rel);
      expect(existsSync(file), rel).toBe(true);
      if (rel.endsWith(".csv")) {
        expect(readFileSync(file, "utf8"), rel).toBe(
          readFileSync(join(fixtures, id, "expected", rel), "utf8"),
        );
      } else if (want.entries) {
        expect(await zipEntries(file), rel).toEqual(want.entries);
      } else {
        expect(createHash("md5").update(readFileSync(file)).digest("hex"), rel).toBe(want.md5);
      }
    }
    // Nothing else, apart from the description and Medalist's manifest.
    const extra = walk(prepared).filter(
      (p) =>
        !(p.replace(/\/$/, "") in expected.files) &&
        !expected.dirs.includes(p.replace(/\/$/, "")) &&
        !["public/description.md", "medalist-manifest.json", "public/", "private/"].includes(p),
    );
    expect(extra).toEqual([]);
    for (const d of expected.dirs) expect(statSync(join(prepared, d)).isDirectory(), d).toBe(true);
    // raw/ and the staging folder are gone; the Kaggle zip is kept, like upstream.
    expect(readdirSync(join(dataDir, id)).sort()).toEqual([`${id}.zip`, "prepared"].sort());
  });
});
