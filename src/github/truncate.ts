/** GitHub rejects comment bodies longer than this (characters). */
export const COMMENT_LIMIT = 65_536;

/**
 * Cuts a Markdown body to fit `limit`: at a line boundary, closing an open code fence and
 * <details> blocks, then a note linking to the full report. Bodies that fit are returned as is.
 */
export function fitComment(body: string, fullReportUrl: string | null, limit = COMMENT_LIMIT): string {
  if (body.length <= limit) return body;
  const note = fullReportUrl
    ? `\n\n> ✂️ The report is longer than a comment allows; the rest is in the [full report](${fullReportUrl}).\n`
    : `\n\n> ✂️ The report is longer than a comment allows; the full report is in the job summary and the \`report.md\` artifact.\n`;
  const budget = limit - note.length - 200; // room for closing tags
  const lines = body.split("\n");
  const kept: string[] = [];
  let used = 0;
  for (const line of lines) {
    if (used + line.length + 1 > budget) break;
    kept.push(line);
    used += line.length + 1;
  }
  let fenceOpen = false;
  let detailsOpen = 0;
  for (const line of kept) {
    if (/^\s*(```|~~~)/.test(line)) fenceOpen = !fenceOpen;
    if (fenceOpen) continue;
    detailsOpen += (line.match(/<details\b/gi) ?? []).length;
    detailsOpen -= (line.match(/<\/details>/gi) ?? []).length;
  }
  // A table cut mid-way still renders; a half-open fence or <details> would swallow the note.
  const closing = (fenceOpen ? ["```"] : []).concat(Array(Math.max(0, detailsOpen)).fill("</details>"));
  return [...kept, ...closing].join("\n") + note;
}
