import { esc } from "./escape.js";

/**
 * One line of the report's Markdown (src/report/verdict.ts's sentences) as HTML, so that the
 * viewer shows the very words of the comment: `**bold**`, `` `code` ``, a whole line in `_…_`,
 * and backslash escapes (inert text, src/report/inert.ts) are understood; everything else is
 * text, escaped. No link, image or raw HTML is ever produced.
 */
export function mdInline(line: string): string {
  const italic = /^_(.+)_$/.exec(line);
  if (italic) return `<i>${mdInline(italic[1])}</i>`;
  let out = "";
  let text = "";
  let bold = false;
  let code = false;
  const flush = () => {
    out += esc(text);
    text = "";
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "\\" && !code && i + 1 < line.length && /[!-/:-@[-`{-~]/.test(line[i + 1])) {
      text += line[++i];
    } else if (c === "`") {
      flush();
      out += code ? "</code>" : "<code>";
      code = !code;
    } else if (!code && c === "*" && line[i + 1] === "*") {
      flush();
      out += bold ? "</b>" : "<b>";
      bold = !bold;
      i++;
    } else text += c;
  }
  flush();
  if (code) out += "</code>";
  if (bold) out += "</b>";
  return out;
}
