// The fast key order (radix sort, emulation only for ties) against the exact emulation of numpy's
// quicksort, on random id columns: unique and repeated keys, missing values, -0 and 0, infinities,
// long and non-ASCII text, sorted input. Case count from MEDALIST_FUZZ_CASES (CI: 10,000).
import { describe, expect, it } from "vitest";
import { readCsvText, type Column } from "../../src/tabular/csv.js";
import { keyOrder } from "../../src/grade/keyorder.js";
import { pandasSortOrder } from "../../src/grade/npsort.js";
import { rng } from "../../src/prepare/random.js";
import { breather } from "../helpers/breathe.js";

const CASES = Number(process.env.MEDALIST_FUZZ_CASES ?? 2_000);
const SEED = Number(process.env.MEDALIST_FUZZ_SEED ?? 22);

const PIECES = ["a", "b", "Z", "_", "1", "10", "é", "ж", "😀", "\uffff", "\ue000", " ", '"', ","];
const NUMBERS = [0, -0, 1, -1, 0.5, 2 ** 53, -(2 ** 53), 1e300, -1e-300, Infinity, -Infinity, NaN];

function randomText(rand: () => number, long: boolean): string {
  let s = long ? "x".repeat(60 + Math.floor(rand() * 20)) : "";
  const len = 1 + Math.floor(rand() * 5);
  for (let k = 0; k < len; k++) s += PIECES[Math.floor(rand() * PIECES.length)];
  return s;
}

function randomColumn(rand: () => number): { col: Column; keys: Float64Array | (string | null)[] } {
  // Now and then past 65536 keys, where the radix sort takes 16-bit digits.
  const r = rand();
  const n =
    r < 0.004
      ? 65536 + Math.floor(rand() * 3000)
      : r < 0.1
        ? Math.floor(rand() * 400)
        : Math.floor(rand() * 60);
  // A small pool makes ties likely; a large one makes them rare.
  const pool = 1 + Math.floor(rand() * (rand() < 0.5 ? 6 : n > 5000 ? 10 * n : 5000));
  const missing = rand() < 0.3 ? rand() * 0.3 : 0;
  const sorted = rand() < 0.15;
  // Large columns: half of them with distinct keys (random draws would repeat some).
  const distinct = n >= 65536 && rand() < 0.5;
  if (rand() < 0.5) {
    if (distinct) {
      const v = Float64Array.from({ length: n }, (_, i) => (i - n / 2) * 0.37);
      for (let i = n - 1; i > 0; i--) {
        const j = Math.floor(rand() * (i + 1));
        [v[i], v[j]] = [v[j], v[i]];
      }
      return { col: { name: "id", kind: "float", values: v, strings: null }, keys: v };
    }
    const base = Array.from({ length: pool }, () =>
      rand() < 0.3 ? NUMBERS[Math.floor(rand() * NUMBERS.length)] : Math.round((rand() - 0.5) * 2000) / 8,
    );
    const v = Float64Array.from({ length: n }, () =>
      rand() < missing ? NaN : base[Math.floor(rand() * pool)],
    );
    if (sorted) v.sort();
    return { col: { name: "id", kind: "float", values: v, strings: null }, keys: v };
  }
  const long = rand() < 0.1;
  const base = Array.from({ length: pool }, () => randomText(rand, long));
  const cells = Array.from({ length: n }, (_, i) =>
    distinct
      ? randomText(rand, false) + i.toString(36)
      : rand() < missing
        ? null
        : base[Math.floor(rand() * pool)],
  );
  if (sorted) cells.sort();
  if (rand() < 0.2) {
    // Strings without a byte store (the comparison path).
    return { col: { name: "id", kind: "text", values: null, strings: cells }, keys: cells };
  }
  const csv = "id,x\n" + cells.map((s) => (s === null ? "" : `"${s.replace(/"/g, '""')}"`) + ",1").join("\n");
  const col = readCsvText(csv + "\n").column("id")!;
  if (col.kind !== "text") return { col, keys: col.values! }; // every cell missing: float
  return { col, keys: col.strings! };
}

describe("fast key order equals numpy's quicksort emulation", () => {
  it(`${CASES} random id columns (MEDALIST_FUZZ_CASES)`, { timeout: 300_000 }, async () => {
    const rand = rng(SEED);
    const breathe = breather();
    let ties = 0,
      unique = 0,
      wide = 0;
    for (let c = 0; c < CASES; c++) {
      await breathe();
      const { col, keys } = randomColumn(rand);
      const skip = rand() < 0.3;
      const want = pandasSortOrder(keys, skip);
      const got = keyOrder(col, skip);
      if (got.length !== want.length || got.some((v, i) => v !== want[i]))
        expect(
          Array.from(got),
          `case ${c}: ${JSON.stringify(Array.from(keys as ArrayLike<unknown>))}`,
        ).toEqual(Array.from(want));
      const present = Array.from(keys as ArrayLike<number | string | null>).filter(
        (k) => k !== null && !(typeof k === "number" && Number.isNaN(k)),
      );
      if (new Set(present.map((k) => (k === 0 ? 0 : k))).size < present.length) ties++;
      else {
        unique++;
        if (present.length >= 65536) wide++;
      }
    }
    // Both paths ran: the radix order alone, and the emulation for ties.
    expect(ties).toBeGreaterThan(CASES / 10);
    expect(unique).toBeGreaterThan(CASES / 10);
    if (CASES >= 2000) expect(wide).toBeGreaterThan(0);
  });
});
