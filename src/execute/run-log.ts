import { createWriteStream, type WriteStream } from "node:fs";

/**
 * Writes an agent's output (container or process) to run.log, one line per output line:
 * `<timestamp> <stdout|stderr> <text>`, secrets masked, at most `maxBytes` in all.
 */
export class RunLog {
  private readonly out: WriteStream;
  private readonly partial = { stdout: "", stderr: "" };
  private written = 0;
  private truncated = false;

  constructor(
    file: string,
    private readonly secrets: string[] = [],
    private readonly maxBytes = 256 * 1024 ** 2,
  ) {
    this.out = createWriteStream(file, { flags: "a" });
    this.out.on("error", () => {}); // a full disk must not crash the runner
  }

  /** A note from Medalist itself (start, timeout, exit). */
  note(text: string): void {
    this.write(`${new Date().toISOString()} medalist ${text}\n`);
  }

  /** Output text from the container; lines may start with Docker's RFC 3339 timestamp. */
  output(stream: "stdout" | "stderr", text: string): void {
    const buf = this.partial[stream] + text;
    const lines = buf.split("\n");
    this.partial[stream] = lines.pop() ?? "";
    for (const line of lines) this.line(stream, line);
    // Keep memory bounded on output without newlines.
    if (this.partial[stream].length > 64 * 1024) {
      this.line(stream, this.partial[stream]);
      this.partial[stream] = "";
    }
  }

  private line(stream: "stdout" | "stderr", raw: string): void {
    const m = /^(\d{4}-\d\d-\d\dT\S+Z) (.*)$/s.exec(raw);
    const ts = m ? m[1] : new Date().toISOString();
    const text = (m ? m[2] : raw).replace(/\r$/, "");
    this.write(`${ts} ${stream} ${this.mask(text)}\n`);
  }

  private mask(text: string): string {
    let t = text;
    for (const s of this.secrets) if (s.length >= 3) t = t.split(s).join("***");
    return t;
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
      if (this.partial[s] !== "") this.line(s, this.partial[s]);
      this.partial[s] = "";
    }
    await new Promise<void>((resolve) => this.out.end(resolve));
  }
}
