const ENTITY: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** HTML text and attribute escaping, in one pass: everything an agent wrote goes through here. */
export function esc(text: string | number | null | undefined): string {
  const s = String(text ?? "");
  return /[&<>"']/.test(s) ? s.replace(/[&<>"']/g, (c) => ENTITY[c]) : s;
}

/**
 * A log page's text as a JavaScript string literal for a separate .js file (never inline in HTML,
 * so `<` needs no escape and a page costs at most two bytes per byte of log): control characters
 * other than tab are dropped, U+2028/9 escaped.
 */
export function logLiteral(text: string): string {
  // eslint-disable-next-line no-control-regex -- controls are exactly what is dropped
  return JSON.stringify(text.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, ""))
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/** JSON safe inside a <script> element: no "</script>", no HTML comment openers, no line separators. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/** At most `max` characters, with a visible mark when cut. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

/** A file or run name usable in a URL path segment of the site (letters, digits, . _ -). */
export function slug(text: string): string {
  const s = text.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "_");
  return s.slice(0, 120) || "_";
}
