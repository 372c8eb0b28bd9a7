/**
 * Masking secrets in text an agent produced, before it leaves the run (run.log, uploaded files,
 * failure causes, file names). The agent is hostile and may print a secret as it is or in an
 * encoding it can produce with one standard call, so each secret is matched as:
 *
 * - itself, with any of its characters percent-encoded (upper or lower case hex, `+` for a space)
 *   or JSON-escaped (`\"`, `\\`, `\/`, `\n`, `\u00XX`, …), in any mix: covers encodeURIComponent,
 *   Python's quote/quote_plus, full percent-encoding and JSON.stringify;
 * - hex of its UTF-8 bytes (either case);
 * - base64 and base64url of its bytes at each of the three byte alignments inside a longer stream
 *   (only the characters that depend on the secret alone, so `echo $S | base64` and a secret in the
 *   middle of a file's base64 are both caught), with line breaks allowed between characters
 *   (`base64` wraps at 76 columns).
 *
 * Not covered: secrets shorter than MIN_SECRET_LENGTH characters (masking them would garble
 * ordinary text; they are left as they are), other transformations (reversed, compressed,
 * encrypted, split with separators, hex with spaces, …): masking is a safety net, not a sandbox.
 */

/** Secrets shorter than this (in UTF-16 code units) are not masked. */
export const MIN_SECRET_LENGTH = 4;

/** What a masked secret is replaced with. */
export const MASK = "***";

interface Pattern {
  /** A regex source matching one encoding of one secret. */
  source: string;
  /** The most characters one match can take. */
  maxLength: number;
}

const escapeRe = (s: string) => s.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");

/** A hex digit in either case, as a regex. */
const hexDigit = (d: string) => (/[a-f]/i.test(d) ? `[${d.toLowerCase()}${d.toUpperCase()}]` : d);
const hexByte = (b: number) => [...b.toString(16).padStart(2, "0")].map(hexDigit).join("");

/** JSON's escapes of one character (beyond the character itself), as regex sources. */
function jsonEscapes(ch: string): { source: string; length: number }[] {
  const named: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", "\n": "n", "\r": "r", "\t": "t" };
  const out = ch in named ? [{ source: escapeRe(`\\${named[ch]}`), length: 2 }] : [];
  const units = [...ch].length === 1 ? Array.from({ length: ch.length }, (_, i) => ch.charCodeAt(i)) : [];
  const hex = units.map((u) => `\\\\u${[...u.toString(16).padStart(4, "0")].map(hexDigit).join("")}`);
  out.push({ source: hex.join(""), length: 6 * units.length });
  return out;
}

/** The secret itself, each character optionally percent-encoded or JSON-escaped. */
function textPattern(secret: string): Pattern {
  let source = "";
  let maxLength = 0;
  for (const ch of secret) {
    const bytes = [...Buffer.from(ch, "utf8")];
    const json = jsonEscapes(ch);
    const alts = [escapeRe(ch), bytes.map((b) => `%${hexByte(b)}`).join(""), ...json.map((j) => j.source)];
    if (ch === " ") alts.push("\\+");
    source += `(?:${alts.join("|")})`;
    maxLength += Math.max(ch.length, 3 * bytes.length, ...json.map((j) => j.length));
  }
  return { source, maxLength };
}

function hexPattern(bytes: Buffer): Pattern {
  return { source: [...bytes].map(hexByte).join(""), maxLength: 2 * bytes.length };
}

/**
 * The base64 characters that depend only on the secret when it starts `align` bytes into a
 * 3-byte group; `+`/`-` and `/`/`_` both accepted (base64 and base64url), line breaks allowed
 * between characters. Null when fewer than MIN_SECRET_LENGTH characters are stable.
 */
function base64Pattern(bytes: Buffer, align: number): Pattern | null {
  const enc = Buffer.concat([Buffer.alloc(align), bytes]).toString("base64");
  const first = Math.ceil((8 * align) / 6);
  const end = Math.floor((8 * (align + bytes.length)) / 6);
  const stable = enc.slice(first, end);
  if (stable.length < MIN_SECRET_LENGTH) return null;
  const chars = [...stable].map((c) => (c === "+" ? "[+-]" : c === "/" ? "[/_]" : c));
  return { source: chars.join("(?:\\r?\\n)?"), maxLength: stable.length + 2 * (stable.length - 1) };
}

function patternsOf(secret: string): Pattern[] {
  const bytes = Buffer.from(secret, "utf8");
  const out = [textPattern(secret), hexPattern(bytes)];
  for (const align of [0, 1, 2]) {
    const p = base64Pattern(bytes, align);
    if (p) out.push(p);
  }
  return out;
}

/** The secrets worth masking: long enough, each also without surrounding whitespace, no repeats. */
function usableSecrets(secrets: string[]): string[] {
  const set = new Set<string>();
  for (const s of secrets) for (const v of [s, s.trim()]) if (v.length >= MIN_SECRET_LENGTH) set.add(v);
  return [...set];
}

/** Half-open character ranges [start, end) that hold a secret, sorted and merged. */
type Ranges = [number, number][];

export interface MaskStream {
  /** Masked text safe to emit now; a possible secret at the end is held back. */
  push(chunk: string): string;
  /** The rest, masked. */
  end(): string;
  /** How many secrets (merged ranges) were replaced so far. */
  readonly count: number;
}

/** Masks a fixed set of secrets (and their encodings) in text. */
export class Masker {
  /** False when no secret is long enough to mask: mask() returns its input. */
  readonly active: boolean;
  /** The most characters one secret's match can take (0 when inactive). */
  readonly maxMatch: number;
  /** One regex per encoding of each secret: V8 scans a single pattern far faster than an alternation of many. */
  private readonly patterns: RegExp[];

  constructor(secrets: string[]) {
    const patterns = usableSecrets(secrets).flatMap(patternsOf);
    this.active = patterns.length > 0;
    this.maxMatch = Math.max(0, ...patterns.map((p) => p.maxLength));
    this.patterns = patterns.map((p) => new RegExp(p.source, "g"));
  }

  /** Every range of `text` that holds a secret, overlapping matches included, merged. */
  private ranges(text: string): Ranges {
    const found: Ranges = [];
    for (const re of this.patterns) {
      re.lastIndex = 0;
      for (let m = re.exec(text); m !== null; m = re.exec(text)) {
        found.push([m.index, m.index + m[0].length]);
        re.lastIndex = m.index + 1; // overlapping occurrences too
      }
    }
    found.sort((a, b) => a[0] - b[0]);
    const out: Ranges = [];
    for (const [start, end] of found) {
      const last = out[out.length - 1];
      if (last && start <= last[1]) last[1] = Math.max(last[1], end);
      else out.push([start, end]);
    }
    return out;
  }

  /** `text` with every secret replaced by MASK. */
  mask(text: string): string {
    if (!this.active) return text;
    return replace(text, this.ranges(text), text.length);
  }

  /** Does `text` hold a secret? */
  has(text: string): boolean {
    return this.ranges(text).length > 0;
  }

  /**
   * A masker for text that arrives in pieces: it holds back the last (longest match − 1)
   * characters, so that a secret split across pieces is still masked.
   */
  stream(): MaskStream {
    let held = "";
    let count = 0;
    const hold = Math.max(0, this.maxMatch - 1);
    return {
      get count() {
        return count;
      },
      push: (chunk: string) => {
        if (!this.active) return chunk;
        held += chunk;
        const ranges = this.ranges(held);
        let cut = Math.max(0, held.length - hold);
        // Never split a surrogate pair.
        if (cut > 0 && cut < held.length && isHighSurrogate(held.charCodeAt(cut - 1))) cut--;
        // A match that reaches past the cut is kept whole for the next piece.
        for (const [s, e] of ranges) if (s < cut && e > cut) cut = s;
        count += ranges.filter(([s]) => s < cut).length;
        const out = replace(held, ranges, cut);
        held = held.slice(cut);
        return out;
      },
      end: () => {
        const ranges = this.ranges(held);
        count += ranges.length;
        const out = replace(held, ranges, held.length);
        held = "";
        return out;
      },
    };
  }
}

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;

/** text[0, upTo) with the given ranges (all ending at or before upTo, or starting after it) replaced. */
function replace(text: string, ranges: Ranges, upTo: number): string {
  let out = "";
  let at = 0;
  for (const [s, e] of ranges) {
    if (s >= upTo) break;
    out += text.slice(at, s) + MASK;
    at = e;
  }
  return out + text.slice(at, upTo);
}
