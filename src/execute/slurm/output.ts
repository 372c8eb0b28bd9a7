import { closeSync, fstatSync, openSync, readSync, rmSync, constants } from "node:fs";

/**
 * Slurm writes the job's stdout and stderr to these files in the run folder (outside the agent's
 * writable folders); the runner reads them as they grow and passes the text to the attempt's
 * run.log, masked there like every executor's output. They are removed once read.
 */
export const OUTPUT_FILES = { stdout: ".slurm-stdout", stderr: ".slurm-stderr" } as const;

/** Most bytes read from one stream per read; the rest waits for the next poll. */
const READ_CHUNK = 4 * 1024 ** 2;

/** Follows a job's two output files by offset. */
export class JobOutput {
  private readonly offsets = { stdout: 0, stderr: 0 };
  private readonly decoders = { stdout: new TextDecoder(), stderr: new TextDecoder() };
  private done = false;

  constructor(
    private readonly runDir: string,
    private readonly onText: (stream: "stdout" | "stderr", text: string) => void,
  ) {}

  /** Passes on what was written since the last read (at most `maxBytes` per stream). */
  read(maxBytes = READ_CHUNK): void {
    if (this.done) return;
    for (const s of ["stdout", "stderr"] as const) {
      let fd: number;
      try {
        fd = openSync(`${this.runDir}/${OUTPUT_FILES[s]}`, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
      } catch {
        continue;
      }
      try {
        const size = fstatSync(fd).size;
        const n = Math.min(size - this.offsets[s], maxBytes);
        if (n <= 0) continue;
        const buf = Buffer.alloc(n);
        const got = readSync(fd, buf, 0, n, this.offsets[s]);
        this.offsets[s] += got;
        this.onText(s, this.decoders[s].decode(buf.subarray(0, got), { stream: true }));
      } finally {
        closeSync(fd);
      }
    }
  }

  /** Reads the rest (bounded: run.log has its own cap), then removes the files. Idempotent. */
  finish(maxBytes = 256 * 1024 ** 2): void {
    if (this.done) return;
    for (let read = 0; read < maxBytes; read += READ_CHUNK) {
      const before = this.offsets.stdout + this.offsets.stderr;
      this.read();
      if (this.offsets.stdout + this.offsets.stderr === before) break;
    }
    this.done = true;
    for (const f of Object.values(OUTPUT_FILES)) rmSync(`${this.runDir}/${f}`, { force: true });
  }
}
