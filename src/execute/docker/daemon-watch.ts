import type Docker from "dockerode";
import { LABEL } from "./container.js";
import { errorMessage } from "../../util/error-message.js";
import { sleep } from "../../util/sleep.js";

/** How a container's end looked from the daemon's event stream. */
export interface ContainerEnd {
  /** Someone other than Medalist stopped it (the daemon shutting down, a `docker stop`): the signal. */
  stoppedBy?: string;
  /** The daemon went away before it reported the end. */
  daemonLost?: boolean;
}

interface Seen {
  kill?: string;
  died: boolean;
  waiters: (() => void)[];
}

/**
 * Follows the Docker daemon for one suite through its event stream (the suite's containers only).
 * It tells a container that the daemon (or an operator) stopped apart from an agent that exited by
 * itself, and, once the stream is cut (the daemon went away), makes the next attempt wait for the
 * daemon to answer again — up to `boundSecs` from the loss, after which every later attempt gets
 * the same one sentence instead of a container.
 */
/** How long after a container was stopped from outside the next start waits for the daemon to settle. */
const SETTLE_MS = 8_000;

export class DaemonWatch {
  private stream: NodeJS.ReadableStream | null = null;
  private lostAt: number | null = null;
  /** When a container was last stopped from outside: a daemon shutting down does that first. */
  private outsideStopAt = 0;
  private gone: string | null = null;
  /** How many times the stream was lost: a container that started under another count saw a restart. */
  epoch = 0;
  private closed = false;
  private reconnecting: Promise<string | null> | null = null;
  private readonly seen = new Map<string, Seen>();
  /** Containers Medalist itself stopped or killed: their kill events are its own. */
  private readonly ours = new Set<string>();

  constructor(
    private readonly docker: Docker,
    private readonly suiteId: string,
    readonly boundSecs: number,
    private readonly address: string,
    private readonly log: (line: string) => void = () => {},
  ) {}

  /** Opens the event stream; a daemon that does not answer counts as lost from now. */
  async open(): Promise<void> {
    try {
      const stream = (await this.docker.getEvents({
        filters: { type: ["container"], label: [`${LABEL.suite}=${this.suiteId}`] },
      })) as NodeJS.ReadableStream;
      if (this.closed) return void (stream as unknown as { destroy?: () => void }).destroy?.();
      this.stream = stream;
      this.lostAt = null;
      let buf = "";
      stream.on("data", (chunk: Buffer) => {
        buf += chunk.toString("utf8");
        let i: number;
        while ((i = buf.indexOf("\n")) >= 0) {
          this.event(buf.slice(0, i));
          buf = buf.slice(i + 1);
        }
      });
      const cut = () => this.lost(stream);
      stream.on("end", cut);
      stream.on("close", cut);
      stream.on("error", cut);
    } catch {
      this.lost(null);
    }
  }

  private event(line: string): void {
    let e: { Action?: string; Actor?: { ID?: string; Attributes?: Record<string, string> } };
    try {
      e = JSON.parse(line) as typeof e;
    } catch {
      return;
    }
    const id = e.Actor?.ID;
    if (!id) return;
    const s = this.entry(id);
    if (e.Action === "kill" && !this.ours.has(id)) s.kill ??= e.Actor?.Attributes?.signal ?? "unknown";
    if (e.Action === "destroy" && s.waiters.length === 0 && s.died) {
      this.seen.delete(id);
      this.ours.delete(id);
      return;
    }
    if (e.Action === "die") {
      s.died = true;
      for (const w of s.waiters.splice(0)) w();
    }
  }

  private entry(id: string): Seen {
    let s = this.seen.get(id);
    if (!s) this.seen.set(id, (s = { died: false, waiters: [] }));
    return s;
  }

  private lost(stream: NodeJS.ReadableStream | null): void {
    if (this.closed || (stream !== null && stream !== this.stream)) return;
    this.stream = null;
    if (this.lostAt === null) {
      this.lostAt = Date.now();
      this.epoch++;
      this.log(`the Docker daemon at ${this.address} went away; waiting up to ${this.boundSecs} s for it`);
    }
    for (const s of this.seen.values()) for (const w of s.waiters.splice(0)) w();
  }

  /**
   * True when `e` says the daemon's socket did not answer (refused, missing, cut mid-call): the
   * watch then counts the daemon as lost from now, so the next `ready()` waits for it within the
   * bound instead of an attempt being spent on a socket that is gone.
   */
  unreachable(e: unknown): boolean {
    if (!isConnectionError(e)) return false;
    const s = this.stream as unknown as { destroy?: () => void } | null;
    if (s !== null) {
      this.lost(this.stream);
      s.destroy?.();
    } else this.lostAt ??= Date.now();
    return true;
  }

  /** Medalist is about to stop or kill this container: its kill events are not someone else's. */
  stopping(id: string): void {
    this.ours.add(id);
  }

  /** How the container's end looked, once the daemon reported its death (at most `waitMs`). */
  async endOf(id: string, waitMs = 3000): Promise<ContainerEnd> {
    const s = this.entry(id);
    if (!s.died && this.stream !== null) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        s.waiters.push(resolve);
        timer = setTimeout(resolve, waitMs);
      });
      clearTimeout(timer);
    }
    this.seen.delete(id);
    if (s.kill !== undefined && !this.ours.has(id)) {
      this.outsideStopAt = Date.now();
      return { stoppedBy: s.kill };
    }
    if (!s.died && this.stream === null) return { daemonLost: true };
    return {};
  }

  /**
   * Null once the daemon answers (at once while its stream is up); after a loss, waits for it up
   * to the bound, then returns the sentence every later attempt gets too.
   */
  async ready(signal?: AbortSignal): Promise<string | null> {
    // Right after a stop from outside, the daemon may be shutting down while it still answers:
    // give its event stream a few seconds to end before an attempt is spent on it.
    while (this.stream !== null && !this.closed && Date.now() - this.outsideStopAt < SETTLE_MS) {
      if (signal?.aborted) return null;
      await new Promise((r) => setTimeout(r, 250));
    }
    return this.readyNow(signal);
  }

  private readyNow(signal?: AbortSignal): Promise<string | null> {
    if (this.gone !== null) return Promise.resolve(this.gone);
    if (this.stream !== null || this.closed) return Promise.resolve(null);
    this.reconnecting ??= this.reconnect(signal).finally(() => (this.reconnecting = null));
    return this.reconnecting;
  }

  private async reconnect(signal?: AbortSignal): Promise<string | null> {
    const since = this.lostAt ?? Date.now();
    this.lostAt = since;
    let delay = 250;
    for (;;) {
      if (signal?.aborted || this.closed) return null;
      let last = "its event stream did not open";
      try {
        await this.docker.ping();
        await this.open();
        if (this.stream !== null) {
          this.log(`the Docker daemon at ${this.address} answers again after ${secs(Date.now() - since)} s`);
          return null;
        }
      } catch (e) {
        last = errorMessage(e);
      }
      if (Date.now() - since >= this.boundSecs * 1000) {
        this.gone =
          `the Docker daemon at ${this.address} did not answer for ${Math.round((Date.now() - since) / 1000)} s ` +
          `(run.reconnectSecs: ${this.boundSecs}; last: ${last}): this run and the ones after it have no result ` +
          "(run the suite again with --rerun infra_error once the daemon is back)";
        this.log(this.gone);
        return this.gone;
      }
      await sleep(Math.min(delay, Math.max(0, since + this.boundSecs * 1000 - Date.now()) + 10), signal);
      delay = Math.min(delay * 2, 5000);
    }
  }

  close(): void {
    this.closed = true;
    const s = this.stream as unknown as { destroy?: () => void } | null;
    this.stream = null;
    s?.destroy?.();
    for (const e of this.seen.values()) for (const w of e.waiters.splice(0)) w();
  }
}

const CONNECTION_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ENOENT", "ENOTSOCK"]);

/** A socket-level failure (no HTTP status): the daemon is not there to answer. */
export function isConnectionError(e: unknown): boolean {
  if (typeof e !== "object" || e === null) return false;
  const { code, syscall, statusCode } = e as { code?: unknown; syscall?: unknown; statusCode?: unknown };
  if (typeof statusCode === "number") return false;
  if (typeof code === "string" && CONNECTION_CODES.has(code))
    return code !== "ENOENT" || syscall === "connect";
  return /^(connect (ECONNREFUSED|ENOENT)|socket hang up)/.test(errorMessage(e));
}

function secs(ms: number): string {
  return (ms / 1000).toFixed(1);
}
