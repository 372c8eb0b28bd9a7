import { closeSync, createWriteStream, fstatSync, openSync, readSync, type WriteStream } from "node:fs";

/**
 * run.log, the one format every executor writes and every reader parses: one line per output line,
 * `<ISO timestamp> <stdout|stderr|medalist> <text>`. The writer (RunLog), the parser (parseLogLine)
 * and the tail reader (readTail) live here; failure causes, the heartbeat and the viewer use them.
 */

export type LogStream = "stdout" | "stderr" | "medalist";

export interface LogLine {
  n: number;
  time: string;
  /** "" for a line without the stamp (a run.log older than this format). */
  stream: LogStream | "";
  text: string;
}

const STAMPED = /^(\d{4}-\d\d-\d\dT[\d:.]+Z?) (stdout|stderr|medalist) (.*)$/s;

/** A run.log line as "<timestamp> <stream> <text>" when it has that shape, else plain text. */
export function parseLogLine(line: string, n = 0): LogLine {
  const m = STAMPED.exec(line);
  return m
    ? { n, time: m[1], stream: m[2] as LogStream, text: m[3] }
    : { n, time: "", stream: "", text: line };
}

/** The last `bytes` of a file as text, without a cut first line ("" when it cannot be read). */
export function readTail(file: string, bytes = 64 * 1024): string {
  let fd: number | null = null;
  try {
    fd = openSync(file, "r");
    const size = fstatSync(fd).size;
    const n = Math.min(size, bytes);
    const buf = Buffer.alloc(n);
    readSync(fd, buf, 0, n, size - n);
    const text = buf.toString("utf8");
    return n < size ? text.slice(text.indexOf("\n") + 1) : text;
  } catch {
    return "";
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** Masks text (execute/mask.ts's Masker): whole notes, and each output stream as it arrives. */
export interface TextMasker {
  mask(text: string): string;
  /** A masker for one stream that holds back what could be the start of a secret. */
  stream(): { push(text: string): string; end(): string };
}

/** Longest partial line kept in memory; longer output without a newline is written in pieces. */
const MAX_PARTIAL = 64 * 1024;

type Out = "stdout" | "stderr";

/**
 * Writes an agent's output to run.log in the format above, secrets masked: each chunk as it
 * arrives (a secret wrapped over lines, as base64 prints it), each complete line (a secret split
 * across chunks), and a line longer than 64 KiB through a streaming masker (a secret split across
 * its pieces). At most `maxBytes` in all. Lines keep their order across stdout and stderr.
 */
export class RunLog {
  private readonly out: WriteStream;
  private readonly partial = { stdout: "", stderr: "" };
  /** The streaming masker of a line being written in pieces. */
  private readonly long: Record<Out, ReturnType<TextMasker["stream"]> | null> = {
    stdout: null,
    stderr: null,
  };
  private written = 0;
  private truncated = false;

  constructor(
    file: string,
    private readonly masker: TextMasker,
    private readonly maxBytes = 256 * 1024 ** 2,
  ) {
    this.out = createWriteStream(file, { flags: "a", mode: 0o600 });
    this.out.on("error", () => {}); // a full disk must not crash the runner
  }

  /** A note from Medalist itself (start, timeout, exit). */
  note(text: string): void {
    this.write(`${new Date().toISOString()} medalist ${this.masker.mask(text)}\n`);
  }

  /** Output text from the agent; lines may start with Docker's RFC 3339 timestamp. */
  output(stream: Out, text: string): void {
    const parts = (this.partial[stream] + this.masker.mask(text)).split("\n");
    this.partial[stream] = parts.pop() ?? "";
    for (const line of parts) this.line(stream, this.masked(stream, line, true));
    // Keep memory bounded on output without newlines.
    while (this.partial[stream].length > MAX_PARTIAL) {
      const piece = this.partial[stream].slice(0, MAX_PARTIAL);
      this.partial[stream] = this.partial[stream].slice(MAX_PARTIAL);
      const out = this.masked(stream, piece, false);
      if (out !== "") this.line(stream, out);
    }
  }

  /** `text` masked; a line written in pieces goes through its streaming masker until it ends. */
  private masked(stream: Out, text: string, endOfLine: boolean): string {
    let ms = this.long[stream];
    if (!ms && endOfLine) return this.masker.mask(text);
    ms ??= this.long[stream] = this.masker.stream();
    const out = ms.push(text);
    if (!endOfLine) return out;
    this.long[stream] = null;
    return out + ms.end();
  }

  private line(stream: Out, raw: string): void {
    const m = /^(\d{4}-\d\d-\d\dT\S+Z) (.*)$/s.exec(raw);
    const ts = m ? m[1] : new Date().toISOString();
    const text = (m ? m[2] : raw).replace(/\r$/, "");
    this.write(`${ts} ${stream} ${text}\n`);
  }

  private write(s: string): void {
    if (this.truncated) return;
    const n = Buffer.byteLength(s);
    if (this.written + n > this.maxBytes) {
      this.truncated = true;
      this.out.write(`${new Date().toISOString()} medalist run.log truncated at ${this.maxBytes} bytes\n`);
      return;
    }
    this.written += n;
    this.out.write(s);
  }

  /** Flushes partial lines and closes the file. */
  async close(): Promise<void> {
    for (const s of ["stdout", "stderr"] as const) {
      if (this.partial[s] !== "" || this.long[s]) this.line(s, this.masked(s, this.partial[s], true));
      this.partial[s] = "";
    }
    await new Promise<void>((resolve) => this.out.end(resolve));
  }
}
