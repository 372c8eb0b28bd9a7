/**
 * INTERIM stand-in for helper "mask"'s module of the same name (same API: Masker, its stream(),
 * maskRunFolder). Replaced by that module at merge; literal matches only.
 */
export const MIN_SECRET_LENGTH = 4;
export const MASK = "***";

export interface MaskStream {
  push(chunk: string): string;
  end(): string;
}

export class Masker {
  private readonly secrets: string[];
  readonly maxMatch: number;
  constructor(secrets: string[]) {
    this.secrets = [...new Set(secrets.filter((s) => s.length >= MIN_SECRET_LENGTH))];
    this.maxMatch = Math.max(0, ...this.secrets.map((s) => s.length));
  }
  mask(text: string): string {
    let t = text;
    for (const s of this.secrets) t = t.split(s).join(MASK);
    return t;
  }
  stream(): MaskStream {
    let held = "";
    const hold = Math.max(0, this.maxMatch - 1);
    return {
      push: (chunk) => {
        held = this.mask(held + chunk);
        const cut = Math.max(0, held.length - hold);
        const out = held.slice(0, cut);
        held = held.slice(cut);
        return out;
      },
      end: () => {
        const out = this.mask(held);
        held = "";
        return out;
      },
    };
  }
}

/** INTERIM: helper "mask" masks the run folder's text files; this stand-in does nothing. */
export function maskRunFolder(_runDir: string, _secrets: string[]): string | null {
  return null;
}
