import { UserError } from "../errors.js";
import { HostUnreachableError, kaggleCredentials, type KaggleCredentials } from "./kaggle.js";

/** A competition not downloaded because of a cause shared by the whole batch (said once). */
export class NotDownloaded extends UserError {
  constructor(
    id: string,
    short: string,
    /** The shared cause's full sentence. */
    readonly reason: UserError,
  ) {
    super(`${id}: not downloaded: ${short}`, reason.exitCode);
    this.name = "NotDownloaded";
  }
}

/**
 * What the downloads of one batch share: the credentials (looked up once) and whether the Kaggle
 * host answered. Once credentials are missing or the host is unreachable, every later download
 * fails at once with a short line, and the cause is said once (`stopped`).
 */
export class DownloadGate {
  private creds: KaggleCredentials | undefined;
  private stop: { short: string; error: UserError } | null = null;

  constructor(
    given?: KaggleCredentials,
    private readonly lookup: () => KaggleCredentials = () => kaggleCredentials(),
  ) {
    this.creds = given;
  }

  /** The shared cause that stopped the downloads, or null. */
  get stopped(): UserError | null {
    return this.stop?.error ?? null;
  }

  /** Credentials for a download of `id`; throws NotDownloaded once the batch is stopped. */
  credentials(id: string): KaggleCredentials {
    if (this.stop) throw new NotDownloaded(id, this.stop.short, this.stop.error);
    if (this.creds) return this.creds;
    try {
      this.creds = this.lookup();
      return this.creds;
    } catch (e) {
      if (!(e instanceof UserError)) throw e;
      this.stop = { short: "no Kaggle credentials", error: e };
      throw new NotDownloaded(id, this.stop.short, e);
    }
  }

  /** A download's failure: an unreachable host stops the batch (the error becomes a NotDownloaded). */
  failed(id: string, e: unknown): unknown {
    if (!(e instanceof HostUnreachableError)) return e;
    this.stop ??= { short: e.short, error: e };
    return new NotDownloaded(id, e.short, e);
  }
}
