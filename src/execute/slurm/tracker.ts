import type { CommandRunner } from "./runner.js";
import { parseSacct, sacctArgs, type JobRecord } from "./sacct.js";

type Listener = (job: JobRecord) => void;

/**
 * Follows every job of the suite with ONE sacct call per poll. Polls start at `minSecs` and back
 * off ×1.5 up to `maxSecs` while no job changes; a change or a new job resets the interval.
 * The loop runs only while some job is watched.
 */
export class JobTracker {
  private readonly listeners = new Map<string, Listener>();
  private readonly names = new Map<string, string>();
  private readonly last = new Map<string, string>();
  /** When each job was last seen in sacct (or submitted). */
  private readonly seen = new Map<string, number>();
  private loop: Promise<void> | null = null;
  private wake: () => void = () => {};
  private intervalSecs: number;
  /** sacct calls made (tests check one per poll). */
  polls = 0;

  constructor(
    private readonly runner: CommandRunner,
    private readonly poll: { minSecs: number; maxSecs: number },
    private readonly log: (line: string) => void = () => {},
    /** A job sacct has not listed for this long is reported with state "LOST". */
    private readonly lostAfterSecs = 600,
  ) {
    this.intervalSecs = poll.minSecs;
  }

  /**
   * Calls `listener` with every new report of the job until `unwatch`. With `name`, records of
   * another name are ignored: after the controller's ids were reset, sacct may still show an
   * older job with the same id until the new one reaches the database.
   */
  watch(jobId: string, listener: Listener, name?: string): void {
    this.listeners.set(jobId, listener);
    if (name !== undefined) this.names.set(jobId, name);
    this.seen.set(jobId, Date.now());
    this.intervalSecs = this.poll.minSecs;
    this.wake();
    this.loop ??= this.run().finally(() => (this.loop = null));
  }

  unwatch(jobId: string): void {
    this.listeners.delete(jobId);
    this.names.delete(jobId);
    this.last.delete(jobId);
    this.seen.delete(jobId);
  }

  /** Polls soon (after a cancel, say). */
  nudge(): void {
    this.intervalSecs = this.poll.minSecs;
    this.wake();
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.listeners.size > 0) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, this.intervalSecs * 1000);
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.wake = () => {};
      if (this.listeners.size === 0) break;
      const ids = [...this.listeners.keys()];
      this.polls++;
      const r = await this.runner.run("sacct", sacctArgs(ids));
      // A busy controller or database: keep the jobs, try again later; a job unseen for too long
      // is lost all the same, so a database that never answers again cannot hang the suite.
      if (r.code !== 0 && ++failures % 5 === 1)
        this.log(`sacct failed (${r.stderr.trim().split("\n")[0]}); retrying`);
      if (r.code === 0) failures = 0;
      let changed = false;
      const now = Date.now();
      const jobs = r.code === 0 ? parseSacct(r.stdout) : new Map<string, JobRecord>();
      for (const [id, job] of jobs) {
        const want = this.names.get(id);
        if (want !== undefined && job.name !== want) jobs.delete(id);
      }
      for (const id of ids) {
        if (jobs.has(id)) this.seen.set(id, now);
        else if (now - (this.seen.get(id) ?? now) > this.lostAfterSecs * 1000) {
          jobs.set(id, {
            jobId: id,
            state: "LOST",
            exitCode: null,
            signal: null,
            elapsedSecs: 0,
            nodeList: "",
            name: this.names.get(id) ?? "",
            maxRssBytes: null,
          });
        }
      }
      for (const [id, job] of jobs) {
        const listener = this.listeners.get(id);
        if (!listener) continue;
        const key = `${job.state}|${job.elapsedSecs > 0}`;
        if (this.last.get(id) !== key) changed = true;
        this.last.set(id, key);
        listener(job);
      }
      this.intervalSecs =
        changed && r.code === 0 ? this.poll.minSecs : Math.min(this.intervalSecs * 1.5, this.poll.maxSecs);
    }
  }
}
