/** HTML text and attribute escaping: everything an agent wrote goes through here. */
export function esc(text: string | number | null | undefined): string {
  return String(text ?? "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
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
