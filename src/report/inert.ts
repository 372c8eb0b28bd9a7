/**
 * Text the agent (or the pull request) controls, made inert before it enters a comment's Markdown:
 * failure causes, stderr lines, grade errors, file and metric names, agent descriptions. The
 * result renders as the same visible text on GitHub and in any CommonMark/GFM renderer, and can
 * open nothing: no HTML element or comment, no link or image, no autolink, no @mention or #issue
 * reference, no table cell break, no heading, list, quote or code fence, no sticky-comment marker.
 */

/** Zero-width space: splits a pattern (`@team`, `http://`) without changing what is shown. */
const ZWSP = "\u200b";

/**
 * Removes HTML comments (and so every sticky-comment marker) until none remain: nesting such as
 * `<!-<!-- x -->- medalist:a:b -->` leaves no comment behind either. One pass, linear in the text:
 * a stack of open `<!--` positions; each `-->` cuts the output back to the latest one.
 */
export function stripMarkers(text: string): string {
  if (!text.includes("-->")) return text;
  const out: string[] = [];
  const opens: number[] = [];
  const endsWith = (t: string) =>
    out.length >= t.length && t.split("").every((c, i) => out[out.length - t.length + i] === c);
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    out.push(ch);
    if (ch === "-" && endsWith("<!--")) opens.push(out.length - 4);
    else if (ch === ">" && opens.length && endsWith("-->")) {
      // The "<!--" and this "-->" may share dashes ("<!-->"): an HTML comment either way.
      out.length = opens.pop()!;
      while (opens.length && opens[opens.length - 1] >= out.length) opens.pop();
    }
  }
  return out.join("");
}

// Every ASCII character that can start inline Markdown or HTML: code, emphasis, links and
// images, raw HTML and entities, strikethrough, tables, math, and `#` (escaped, then split).
const SPECIAL = /[\\`*_[\]<>!&~|$#]/g;
// Controls (newlines included) become spaces; bidirectional overrides are dropped.
// eslint-disable-next-line no-control-regex -- controls are exactly what is matched
const CONTROL = /[\u0000-\u001f\u007f\u0085\u2028\u2029]+/g;
const BIDI = /[\u202a-\u202e\u2066-\u2069]/g;

/**
 * One line of inert Markdown text, at most `max` characters of the original (then "…"). Safe in a
 * paragraph, a list item, a table cell, a heading and inside `<sub>`; not inside a code span or a
 * raw HTML block (neither is used for agent text).
 */
export function inert(text: string | null | undefined, max = 500): string {
  let s = stripMarkers(String(text ?? ""))
    .replace(CONTROL, " ")
    .replace(BIDI, "")
    .trim();
  if (s.length > max) s = `${s.slice(0, max)}…`;
  s = s
    .replace(SPECIAL, (c) => `\\${c}`)
    // GitHub links @user/@org/team, user@host.example, #123, owner/repo#123 in rendered text.
    .replace(/@/g, `@${ZWSP}`)
    .replace(/#/g, `#${ZWSP}`)
    // GFM autolinks "http://…", "ftp://…" and "www.…" without any brackets.
    .replace(/:\/\//g, `:${ZWSP}//`)
    .replace(/\bwww\./gi, (w) => `${w.slice(0, 3)}${ZWSP}.`);
  // Were it to start a line: a list item, a setext underline, an ordered list item ("1. ").
  if (/^[-+](\s|$)/.test(s) || /^(-+|=+)$/.test(s)) return `\\${s}`;
  return s.replace(/^(\d{1,9})([.)])(?=\s|$)/, "$1\\$2");
}
