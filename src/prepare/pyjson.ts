import { pyFloat } from "./csv.js";

/**
 * JSON as Python's `json.load` + `json.dump(indent=4)` see it (lite-prepare.md §1.10): object key
 * order kept, integers and floats told apart by their literal, output escaped as with ensure_ascii.
 */
export type PyJson =
  | { t: "obj"; v: [string, PyJson][] }
  | { t: "arr"; v: PyJson[] }
  | { t: "str"; v: string }
  | { t: "int"; v: string }
  | { t: "float"; v: number }
  | { t: "lit"; v: "true" | "false" | "null" };

export function parsePyJson(text: string): PyJson {
  let i = 0;
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i])) i++;
  };
  const fail = (what: string): never => {
    throw new Error(`invalid JSON at offset ${i}: ${what}`);
  };
  const value = (): PyJson => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      const v: [string, PyJson][] = [];
      ws();
      if (text[i] === "}") return (i++, { t: "obj", v });
      for (;;) {
        ws();
        if (text[i] !== '"') fail("expected a key");
        const k = str();
        ws();
        if (text[i++] !== ":") fail("expected ':'");
        v.push([k, value()]);
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "}") return (i++, { t: "obj", v });
        else fail("expected ',' or '}'");
      }
    }
    if (c === "[") {
      i++;
      const v: PyJson[] = [];
      ws();
      if (text[i] === "]") return (i++, { t: "arr", v });
      for (;;) {
        v.push(value());
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "]") return (i++, { t: "arr", v });
        else fail("expected ',' or ']'");
      }
    }
    if (c === '"') return { t: "str", v: str() };
    for (const lit of ["true", "false", "null"] as const) {
      if (text.startsWith(lit, i)) return ((i += lit.length), { t: "lit", v: lit });
    }
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m) return fail("unexpected character");
    i += m[0].length;
    if (m[2] || m[3]) return { t: "float", v: Number(m[0]) };
    return { t: "int", v: m[0] === "-0" ? "0" : m[0] };
  };
  const str = (): string => {
    i++; // opening quote
    let out = "";
    for (;;) {
      const c = text[i++];
      if (c === undefined) fail("unterminated string");
      if (c === '"') return out;
      if (c !== "\\") {
        out += c;
        continue;
      }
      const e = text[i++];
      const simple: Record<string, string> = {
        '"': '"',
        "\\": "\\",
        "/": "/",
        b: "\b",
        f: "\f",
        n: "\n",
        r: "\r",
        t: "\t",
      };
      if (e in simple) out += simple[e];
      else if (e === "u") {
        out += String.fromCharCode(parseInt(text.slice(i, i + 4), 16));
        i += 4;
      } else fail("bad escape");
    }
  };
  const v = value();
  ws();
  if (i !== text.length) fail("trailing characters");
  return v;
}

const SHORT: Record<string, string> = {
  '"': '\\"',
  "\\": "\\\\",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\b": "\\b",
  "\f": "\\f",
};

/** A string as Python's json module writes it with ensure_ascii (UTF-16 code units as \uXXXX). */
function pyString(s: string): string {
  let out = '"';
  for (let k = 0; k < s.length; k++) {
    const ch = s[k];
    const code = s.charCodeAt(k);
    if (SHORT[ch]) out += SHORT[ch];
    else if (code < 0x20 || code > 0x7e) out += "\\u" + code.toString(16).padStart(4, "0");
    else out += ch;
  }
  return out + '"';
}

/** `json.dump(value, indent=4)`: no newline at the end. */
export function dumpPyJson(v: PyJson, indent = 4, level = 0): string {
  const pad = (n: number) => " ".repeat(indent * n);
  switch (v.t) {
    case "obj":
      if (v.v.length === 0) return "{}";
      return `{\n${v.v.map(([k, x]) => `${pad(level + 1)}${pyString(k)}: ${dumpPyJson(x, indent, level + 1)}`).join(",\n")}\n${pad(level)}}`;
    case "arr":
      if (v.v.length === 0) return "[]";
      return `[\n${v.v.map((x) => pad(level + 1) + dumpPyJson(x, indent, level + 1)).join(",\n")}\n${pad(level)}]`;
    case "str":
      return pyString(v.v);
    case "int":
      return v.v;
    case "float":
      return Number.isFinite(v.v)
        ? pyFloat(v.v)
        : Number.isNaN(v.v)
          ? "NaN"
          : v.v > 0
            ? "Infinity"
            : "-Infinity";
    case "lit":
      return v.v;
  }
}

export function field(obj: PyJson, key: string): PyJson | undefined {
  return obj.t === "obj" ? obj.v.find(([k]) => k === key)?.[1] : undefined;
}
