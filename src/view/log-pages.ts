import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { logLiteral } from "./escape.js";
import { lastErrorLines } from "./parse.js";
import { streamInRun } from "./read.js";
import type { RunData } from "./model.js";

/**
 * Splits a log, fed in pieces, into pages of at most `maxLines` lines and about `maxChars`
 * characters; a line longer than `maxLine` is cut with a visible mark (line numbers stay the
 * file's). `emit` receives each page and returns false to stop (the output budget is spent).
 */
export class LogPaginator {
  readonly starts: number[] = [];
  lines = 0;
  stopped = false;
  private page: string[] = [];
  private size = 0;
  private partial = "";
  private partialLength = 0;

  constructor(
    private readonly emit: (index: number, text: string) => boolean,
    private readonly maxLines = 2000,
    private readonly maxChars = 1024 * 1024,
    private readonly maxLine = 64 * 1024,
  ) {}

  push(text: string): boolean {
    let from = 0;
    for (;;) {
      if (this.stopped) return false;
      const nl = text.indexOf("\n", from);
      const piece = nl < 0 ? text.slice(from) : text.slice(from, nl);
      // Keep at most maxLine characters of the line in memory; count the rest.
      if (this.partial.length < this.maxLine)
        this.partial += piece.slice(0, this.maxLine - this.partial.length);
      this.partialLength += piece.length;
      if (nl < 0) return true;
      this.addLine();
      from = nl + 1;
    }
  }

  /** The last line (without a final newline), then the last page. */
  end(): void {
    if (this.partialLength > 0) this.addLine();
    if (this.page.length && !this.stopped) this.flush();
  }

  private addLine(): void {
    const extra = this.partialLength - this.partial.length;
    const shown = extra > 0 ? `${this.partial} … [line cut: ${extra} more characters]` : this.partial;
    this.partial = "";
    this.partialLength = 0;
    if (this.page.length && (this.page.length >= this.maxLines || this.size + shown.length > this.maxChars))
      this.flush();
    if (this.stopped) return;
    this.page.push(shown);
    this.size += shown.length + 1;
    this.lines++;
  }

  private flush(): void {
    const start = this.lines - this.page.length;
    if (!this.emit(this.starts.length, this.page.join("\n"))) {
      this.stopped = true;
      this.lines = start;
    } else this.starts.push(start);
    this.page = [];
    this.size = 0;
  }
}

/** What a run page says of its log; null when the run has no run.log. */
export type LogInfo = NonNullable<RunData["log"]>;

/**
 * Streams `root/run.log` into page files `dir/<i>.js` (each calling medalistLog(i, text)), reading at
 * most `maxRead` bytes and writing at most `maxWrite` bytes; memory stays at about one page.
 */
export function writeLogPages(
  root: string,
  dir: string,
  maxRead: number,
  maxWrite: number,
): (LogInfo & { written: number }) | null {
  let written = 0;
  let made = false;
  let tail = "";
  const pager = new LogPaginator((i, text) => {
    const file = `medalistLog(${i},${logLiteral(text)});\n`;
    const n = Buffer.byteLength(file);
    if (written + n > maxWrite) return false;
    if (!made) mkdirSync(dir, { recursive: true });
    made = true;
    writeFileSync(join(dir, `${i}.js`), file);
    written += n;
    return true;
  });
  const read = streamInRun(root, "run.log", maxRead, (text) => {
    tail = (tail + text).slice(-256 * 1024);
    return pager.push(text);
  });
  if (!read) return null;
  pager.end();
  return {
    bytes: read.bytes,
    truncated: pager.stopped || read.read < read.bytes,
    shownBytes: pager.stopped ? null : read.read,
    lines: pager.lines,
    starts: pager.starts,
    tail: lastErrorLines(tail),
    written,
  };
}
