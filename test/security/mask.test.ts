import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MASK, Masker, MIN_SECRET_LENGTH } from "../../src/execute/mask.js";
import { maskRunFolder } from "../../src/execute/mask-folder.js";
import { isWithheld, WITHHELD_FILE, withheldFiles } from "../../src/execute/withheld.js";
import { rng } from "../../src/prepare/random.js";
import { breather } from "../helpers/breathe.js";

const TOKEN = "ghp_R4nd0mT0kenValue/with+odd chars~é";
const AWS = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const LONG = "sk-" + "abcdefghijklmnopqrstuvwxyz0123456789".repeat(4);

/** Every way an agent could trivially write `s`, computed independently of the masker. */
function encodings(s: string): Record<string, string> {
  const b = Buffer.from(s, "utf8");
  const b64 = (prefix: string, suffix = "") =>
    Buffer.concat([Buffer.from(prefix), b, Buffer.from(suffix)]).toString("base64");
  const pct = (upper: boolean) =>
    [...b]
      .map((x) => "%" + x.toString(16).padStart(2, "0")[upper ? "toUpperCase" : "toLowerCase"]())
      .join("");
  return {
    raw: s,
    uri: encodeURIComponent(s),
    form: encodeURIComponent(s).replace(/%20/g, "+"),
    pctUpper: pct(true),
    pctLower: pct(false),
    json: JSON.stringify(s),
    jsonAscii: JSON.stringify(s).replace(
      /[^\x20-\x7e]/g,
      (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"),
    ),
    hex: b.toString("hex"),
    hexUpper: b.toString("hex").toUpperCase(),
    b64align0: b64("", "\n"), // echo $S | base64
    b64align1: b64("x", "trailing"),
    b64align2: b64("xy"),
    b64url: Buffer.concat([Buffer.from("q"), b]).toString("base64url"),
    b64wrapped: (b64('{"key": "', '"}').match(/.{1,76}/g) ?? []).join("\n"),
  };
}

/** The secret's own characters, or a long enough stretch of an encoding, must not survive. */
function leaks(out: string, s: string): boolean {
  const b = Buffer.from(s);
  return (
    out.includes(s) || out.includes(b.toString("hex")) || out.includes(b.toString("base64").slice(0, 12))
  );
}

describe("Masker: a secret and its encodings", () => {
  for (const secret of [TOKEN, AWS, LONG]) {
    for (const [name, enc] of Object.entries(encodings(secret))) {
      it(`masks ${name} of a ${secret.length}-character secret`, () => {
        const m = new Masker([secret]);
        const out = m.mask(`before ${enc} after`);
        expect(out).toContain(MASK);
        expect(out.startsWith("before ")).toBe(true);
        expect(out.endsWith(" after")).toBe(true);
        expect(leaks(out, secret)).toBe(false);
        // Nothing of the encoding's middle survives (its ends may encode the text around it).
        for (let i = 14; i + 8 <= enc.length - 14; i++) expect(out).not.toContain(enc.slice(i, i + 8));
      });
    }
  }

  it("leaves text without secrets alone and is inactive without usable secrets", () => {
    const m = new Masker([TOKEN]);
    const text = "a log line ghp_ 1234 %67 base64 Z2hw\n";
    expect(m.mask(text)).toBe(text);
    const none = new Masker(["abc", "", " x "]);
    expect(none.active).toBe(false);
    expect(none.mask("abc abc")).toBe("abc abc");
  });

  it(`does not mask secrets shorter than ${MIN_SECRET_LENGTH} characters, masks one of exactly that length`, () => {
    expect(new Masker(["abc"]).mask("abc")).toBe("abc");
    expect(new Masker(["abcd"]).mask("xabcdx")).toBe(`x${MASK}x`);
  });

  it("masks a secret with surrounding whitespace trimmed too", () => {
    expect(new Masker(["  hunter22\n"]).mask("pw=hunter22;")).toBe(`pw=${MASK};`);
  });

  it("masks overlapping occurrences as one stretch, leaving nothing of either", () => {
    const m = new Masker(["abcdXabcd"]);
    expect(m.mask("<abcdXabcdXabcd>")).toBe(`<${MASK}>`);
  });

  it("masks several secrets, the longest match winning at one place", () => {
    const m = new Masker(["secret-one", "secret-one-and-more"]);
    expect(m.mask("secret-one-and-more and secret-one")).toBe(`${MASK} and ${MASK}`);
  });
});

describe("Masker.stream: secrets split across pieces", () => {
  const cases = [TOKEN, AWS, "abcd"];
  for (const secret of cases) {
    it(`masks a ${secret.length}-character secret split at every offset, in each encoding`, () => {
      const m = new Masker([secret]);
      for (const enc of Object.values(encodings(secret))) {
        const text = `line one\n${enc}\nline two ${enc}`;
        const whole = m.mask(text);
        for (let i = 0; i <= text.length; i++) {
          const s = m.stream();
          const out = s.push(text.slice(0, i)) + s.push(text.slice(i)) + s.end();
          expect(out).toBe(whole);
        }
      }
    });
  }

  it("gives the same text as mask() for random splits into many pieces", async () => {
    const m = new Masker([TOKEN, AWS]);
    const breathe = breather();
    const next = rng(Number(process.env.MEDALIST_FUZZ_SEED ?? 17));
    const cases = Number(process.env.MEDALIST_FUZZ_CASES ?? 200);
    for (let c = 0; c < cases; c++) {
      await breathe();
      const parts: string[] = [];
      for (let k = 0; k < 8; k++) {
        const encs = Object.values(encodings(next() < 0.5 ? TOKEN : AWS));
        parts.push("x".repeat(Math.floor(next() * 50)), encs[Math.floor(next() * encs.length)]);
      }
      const text = parts.join("é");
      const s = m.stream();
      let out = "";
      for (let at = 0; at < text.length;) {
        const n = 1 + Math.floor(next() * 40);
        out += s.push(text.slice(at, at + n));
        at += n;
      }
      out += s.end();
      expect(out).toBe(m.mask(text));
      expect(leaks(out, TOKEN) || leaks(out, AWS)).toBe(false);
    }
  });

  it("holds back fewer characters than the longest match, counts what it masked", () => {
    const m = new Masker([TOKEN]);
    const s = m.stream();
    const out = s.push("y".repeat(10_000));
    expect(out.length).toBeGreaterThan(10_000 - m.maxMatch);
    s.push(`a ${TOKEN} b ${TOKEN}`);
    s.end();
    expect(s.count).toBe(2);
  });

  it("never splits a surrogate pair", () => {
    const m = new Masker(["abcd"]);
    const s = m.stream();
    const text = "😀".repeat(500);
    const pieces = [s.push(text.slice(0, 501)), s.push(text.slice(501)), s.end()];
    for (const p of pieces) expect(Buffer.from(p, "utf8").toString("utf8")).toBe(p);
    expect(pieces.join("")).toBe(text);
  });
});

const run = () => {
  const root = mkdtempSync(join(tmpdir(), "medalist-mask-"));
  const dir = join(root, "run");
  for (const d of ["submission", "logs", "code"]) mkdirSync(join(dir, d), { recursive: true });
  return { root, dir };
};

/** Every file's path and text under dir, following nothing. */
function everything(dir: string): string {
  let all = "";
  const walk = (d: string, rel: string) => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      all += `${rel}${name}\n`;
      const st = lstatSync(full);
      if (st.isDirectory()) walk(full, `${rel}${name}/`);
      else if (st.isFile()) all += readFileSync(full, "latin1") + "\n";
    }
  };
  walk(dir, "");
  return all;
}

describe("maskRunFolder", () => {
  it("masks text files in place, nested, in every encoding; keeps the submission as written", () => {
    const { dir } = run();
    const e = encodings(TOKEN);
    writeFileSync(join(dir, "logs/agent.txt"), `step 1 ${e.raw}\nstep 2 ${e.b64align0}\n`);
    mkdirSync(join(dir, "code/a/b/c"), { recursive: true });
    writeFileSync(join(dir, "code/a/b/c/train.py"), `KEY = ${e.json}\nURL = "?k=${e.uri}"\nH = "${e.hex}"\n`);
    writeFileSync(join(dir, "logs/clean.txt"), "nothing here\n");
    writeFileSync(join(dir, "submission/submission.csv"), `id,y\n1,${TOKEN}\n`);
    writeFileSync(join(dir, "run.log"), `2026 stdout ${e.b64url}\n`);
    const r = maskRunFolder(dir, [TOKEN]);
    expect(r.masked.sort()).toEqual(["code/a/b/c/train.py", "logs/agent.txt", "run.log"]);
    expect(readFileSync(join(dir, "logs/agent.txt"), "utf8")).toMatch(/^step 1 \*\*\*\nstep 2 \*\*\*/);
    expect(readFileSync(join(dir, "logs/clean.txt"), "utf8")).toBe("nothing here\n");
    // The submission is graded as written: unchanged, and withheld from uploads.
    expect(readFileSync(join(dir, "submission/submission.csv"), "utf8")).toContain(TOKEN);
    expect(r.withheld).toEqual([{ path: "submission/submission.csv", reason: "holds-secret" }]);
    const manifest = withheldFiles(dir);
    expect(isWithheld(manifest, "submission/submission.csv")).toBe(true);
    expect(isWithheld(manifest, "logs/agent.txt")).toBe(false);
    // Everything else: no trace of the secret.
    const left = everything(dir).replace(`1,${TOKEN}`, "");
    expect(leaks(left, TOKEN)).toBe(false);
  });

  it("renames files and folders whose names hold a secret, including base64 names split by /", () => {
    const { dir } = run();
    const b64 = Buffer.from(AWS).toString("base64"); // holds "/": becomes nested folders
    mkdirSync(join(dir, "logs", AWS.split("/")[0], AWS.split("/")[1]), { recursive: true });
    writeFileSync(join(dir, "logs", AWS), "by name\n");
    mkdirSync(join(dir, "code", b64.split("/").slice(0, -1).join("/")), { recursive: true });
    writeFileSync(join(dir, "code", b64), "base64 name\n");
    writeFileSync(join(dir, "logs", `run-${encodeURIComponent(AWS)}.txt`), "url name\n");
    mkdirSync(join(dir, AWS.split("/").slice(0, 2).join("/")), { recursive: true }); // at the run's top
    writeFileSync(join(dir, AWS), "top\n");
    const r = maskRunFolder(dir, [AWS]);
    // The name's last base64 characters encode padding, not the secret.
    expect(r.renamed.sort()).toEqual(["***", "code/***Q==", "logs/***", "logs/run-***.txt"]);
    expect(readFileSync(join(dir, "logs/***"), "utf8")).toBe("by name\n");
    expect(readFileSync(join(dir, "code/***Q=="), "utf8")).toBe("base64 name\n");
    const all = everything(dir);
    expect(leaks(all, AWS)).toBe(false);
    for (const part of AWS.split("/")) expect(all).not.toContain(part);
  });

  it("withholds binary files (NUL bytes, invalid UTF-8) untouched; upload.binaryFiles lets them go", () => {
    const { dir } = run();
    const bin = Buffer.concat([Buffer.from(TOKEN), Buffer.from([0, 1, 2])]);
    writeFileSync(join(dir, "code/model.bin"), bin);
    writeFileSync(join(dir, "logs/latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])); // café in Latin-1
    writeFileSync(
      join(dir, "run.log"),
      Buffer.concat([Buffer.from(`x ${TOKEN} `), Buffer.from([0xff, 0x0a])]),
    );
    const r = maskRunFolder(dir, [TOKEN]);
    expect(r.binary.sort()).toEqual(["code/model.bin", "logs/latin1.txt"]);
    expect(readFileSync(join(dir, "code/model.bin")).equals(bin)).toBe(true);
    // run.log is rewritten as text even with a bad byte (it is the runner's log of the agent).
    expect(readFileSync(join(dir, "run.log"), "utf8")).toBe(`x ${MASK} \ufffd\n`);
    const m = withheldFiles(dir);
    expect(isWithheld(m, "code/model.bin")).toBe(true);
    expect(isWithheld(m, "code/model.bin", { binaryFiles: true })).toBe(false);
  });

  it("follows no link: a link to a file or folder outside is neither read, changed nor renamed through", () => {
    const { root, dir } = run();
    const outside = join(root, "outside.txt");
    writeFileSync(outside, `outside ${TOKEN}\n`);
    mkdirSync(join(root, "outdir"));
    writeFileSync(join(root, "outdir", "x.txt"), `${TOKEN}\n`);
    symlinkSync(outside, join(dir, "logs/link.txt"));
    symlinkSync(join(root, "outdir"), join(dir, "code/linkdir"));
    linkSync(outside, join(dir, "logs/hard.txt"));
    maskRunFolder(dir, [TOKEN]);
    expect(readFileSync(outside, "utf8")).toBe(`outside ${TOKEN}\n`);
    expect(readFileSync(join(root, "outdir", "x.txt"), "utf8")).toBe(`${TOKEN}\n`);
    expect(lstatSync(join(dir, "logs/link.txt")).isSymbolicLink()).toBe(true);
    expect(isWithheld(withheldFiles(dir), "logs/hard.txt")).toBe(true);
  });

  it("moves a secret-named file out of the way of a link planted at its masked name", () => {
    const { root, dir } = run();
    mkdirSync(join(root, "elsewhere"));
    symlinkSync(join(root, "elsewhere"), join(dir, "logs/***"));
    mkdirSync(join(dir, "logs", TOKEN.split("/")[0]));
    writeFileSync(join(dir, "logs", TOKEN), "x\n");
    const r = maskRunFolder(dir, [TOKEN]);
    expect(readdirSync(join(root, "elsewhere"))).toEqual([]);
    expect(r.renamed).toEqual(["logs/***.1"]);
  });

  it("bounds what it reads: a file past the cap is withheld unread; a secret across a chunk boundary is masked", () => {
    const { dir } = run();
    const chunk = 1024 * 1024;
    const big = Buffer.alloc(3 * chunk, "a");
    big.write(TOKEN, chunk - 5); // straddles the first 1 MiB read
    writeFileSync(join(dir, "logs/big.txt"), big);
    writeFileSync(join(dir, "logs/huge.txt"), Buffer.alloc(5 * chunk, "b"));
    const r = maskRunFolder(dir, [TOKEN], { maxFileBytes: 4 * chunk });
    expect(r.masked).toEqual(["logs/big.txt"]);
    const text = readFileSync(join(dir, "logs/big.txt"), "utf8");
    expect(text).not.toContain(TOKEN);
    expect(text.length).toBe(3 * chunk - Buffer.byteLength(TOKEN) + MASK.length);
    expect(r.withheld).toEqual([{ path: "logs/huge.txt", reason: "too-large" }]);
    const again = maskRunFolder(dir, [TOKEN], { maxFileBytes: 4 * chunk, maxTotalBytes: chunk });
    expect(again.withheld.map((w) => w.reason)).toEqual(["too-large", "too-large"]);
  });

  it("withholds the whole folder past maxEntries, and when never masked", () => {
    const { dir } = run();
    for (let i = 0; i < 20; i++) writeFileSync(join(dir, `logs/f${i}.txt`), "x");
    const r = maskRunFolder(dir, [TOKEN], { maxEntries: 10 });
    expect(r.incomplete).toBe(true);
    expect(isWithheld(withheldFiles(dir), "logs/f0.txt")).toBe(true);
    const { dir: never } = run();
    expect(withheldFiles(never)).toBeNull();
    expect(isWithheld(null, "logs/f0.txt")).toBe(true);
    expect(isWithheld(null, WITHHELD_FILE)).toBe(false);
  });

  it("replaces a manifest the agent planted (even as a link), and withholds nothing without secrets", () => {
    const { root, dir } = run();
    writeFileSync(join(root, "target.json"), "{}");
    symlinkSync(join(root, "target.json"), join(dir, WITHHELD_FILE));
    writeFileSync(join(dir, "code/model.bin"), Buffer.from([0, 1, 2]));
    const r = maskRunFolder(dir, ["ab"]);
    expect(r.withheld).toEqual([]);
    expect(readFileSync(join(root, "target.json"), "utf8")).toBe("{}");
    expect(lstatSync(join(dir, WITHHELD_FILE)).isFile()).toBe(true);
    const m = withheldFiles(dir);
    expect(m?.active).toBe(false);
    expect(isWithheld(m, "code/model.bin")).toBe(false);
    expect(existsSync(join(dir, "code/model.bin"))).toBe(true);
  });
});
