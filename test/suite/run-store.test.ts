import { execFileSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  closeSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fetchRun, putRun, storeKey } from "../../src/suite/run-store.js";

const setup = () => {
  const root = mkdtempSync(join(tmpdir(), "medalist-store-"));
  const run = join(root, "run");
  for (const d of ["submission", "logs", "code"]) mkdirSync(join(run, d), { recursive: true });
  writeFileSync(join(run, "run.json"), '{"ok":true}');
  return { root, run, store: join(root, "store") };
};
const onDisk = (f: string) => statSync(f).blocks * 512;

describe("the run store: bounded, sparse-aware copies", () => {
  it("keeps a 2 GiB sparse file sparse on the way in and out", () => {
    const { root, run, store } = setup();
    const file = join(run, "logs", "zeros.bin");
    execFileSync("truncate", ["-s", "2G", file]);
    const fd = openSync(file, "r+");
    writeSync(fd, Buffer.from("middle"), 0, 6, 1024 ** 3); // some data inside the holes
    closeSync(fd);
    putRun(store, "c.s0", "abc", run);
    const stored = join(store, storeKey("c.s0", "abc"), "logs", "zeros.bin");
    expect(statSync(stored).size).toBe(2 * 1024 ** 3);
    expect(onDisk(stored)).toBeLessThan(1024 ** 2);
    const back = join(root, "back");
    expect(fetchRun(store, "c.s0", "abc", back)).toBe(true);
    const again = join(back, "logs", "zeros.bin");
    expect(statSync(again).size).toBe(2 * 1024 ** 3);
    expect(onDisk(again)).toBeLessThan(1024 ** 2);
    const buf = Buffer.alloc(6);
    const rd = openSync(again, "r");
    expect(readSync(rd, buf, 0, 6, 1024 ** 3)).toBe(6);
    closeSync(rd);
    expect(buf.toString()).toBe("middle");
  });

  it("writes zero blocks as holes when it reads a file itself (small sparse files, zeros in dense ones)", () => {
    const { root, run, store } = setup();
    const file = join(run, "code", "small-sparse.bin");
    execFileSync("truncate", ["-s", "8M", file]);
    const fd = openSync(file, "r+");
    writeSync(fd, Buffer.from("data"), 0, 4, 4 * 1024 ** 2);
    closeSync(fd);
    writeFileSync(join(run, "code", "dense-zeros.bin"), Buffer.alloc(4 * 1024 ** 2));
    putRun(store, "c.s0", "abc", run);
    const back = join(root, "back");
    fetchRun(store, "c.s0", "abc", back);
    for (const name of ["small-sparse.bin", "dense-zeros.bin"]) {
      const f = join(back, "code", name);
      expect(statSync(f).size).toBe(statSync(join(run, "code", name)).size);
      expect(onDisk(f)).toBeLessThan(256 * 1024);
    }
    expect(
      readFileSync(join(back, "code", "small-sparse.bin"))
        .subarray(4 * 1024 ** 2, 4 * 1024 ** 2 + 4)
        .toString(),
    ).toBe("data");
  });

  it("refuses a run past its byte bound (a 1 TiB sparse file) and stores nothing", () => {
    const { run, store } = setup();
    execFileSync("truncate", ["-s", "1T", join(run, "code", "huge.bin")]);
    expect(() => putRun(store, "c.s0", "abc", run)).toThrow(
      /more than 4294967296 bytes \(at code\/huge.bin\)/,
    );
    expect(existsSync(store) ? readdirSync(store) : []).toEqual([]);
  });

  it("bounds the whole run, not only each file, and the number of entries", () => {
    const { run, store } = setup();
    for (let i = 0; i < 4; i++) writeFileSync(join(run, "logs", `f${i}`), Buffer.alloc(300 * 1024, 7));
    expect(() => putRun(store, "c.s0", "abc", run, { maxBytes: 1024 ** 2 })).toThrow(
      /more than 1048576 bytes/,
    );
    putRun(store, "c.s0", "abc", run, { maxBytes: 2 * 1024 ** 2 });
    expect(() => putRun(store, "c.s0", "abc", run, { maxEntries: 5 })).toThrow(
      /more than 5 files and folders/,
    );
    // The older copy stays when a new one is refused.
    expect(readdirSync(join(store, storeKey("c.s0", "abc"), "logs")).length).toBe(4);
  });

  it("copies links as links, never following them, and leaves special files out", () => {
    const { root, run, store } = setup();
    writeFileSync(join(root, "answers.csv"), "secret answers");
    symlinkSync(join(root, "answers.csv"), join(run, "submission", "submission.csv"));
    symlinkSync(root, join(run, "code", "up"));
    execFileSync("mkfifo", [join(run, "logs", "fifo")]);
    putRun(store, "c.s0", "abc", run);
    const entry = join(store, storeKey("c.s0", "abc"));
    expect(readlinkSync(join(entry, "submission", "submission.csv"))).toBe(join(root, "answers.csv"));
    expect(lstatSync(join(entry, "code", "up")).isSymbolicLink()).toBe(true);
    expect(existsSync(join(entry, "logs", "fifo"))).toBe(false);
    expect(readFileSync(join(entry, "run.json"), "utf8")).toBe('{"ok":true}');
  });

  it("dense data keeps its bytes; a fetch past the bound leaves no half run behind", () => {
    const { root, run, store } = setup();
    const data = Buffer.alloc(200 * 1024);
    for (let i = 0; i < data.length; i++) data[i] = i % 251;
    writeFileSync(join(run, "code", "data.bin"), data);
    putRun(store, "c.s0", "abc", run);
    const back = join(root, "back");
    expect(fetchRun(store, "c.s0", "abc", back)).toBe(true);
    expect(readFileSync(join(back, "code", "data.bin")).equals(data)).toBe(true);
    expect(() => fetchRun(store, "c.s0", "abc", back, { maxBytes: 1000 })).toThrow(/not copied/);
    expect(existsSync(back)).toBe(false);
    expect(fetchRun(store, "c.s0", "other", back)).toBe(false);
  });
});
