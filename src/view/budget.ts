import { clip, esc } from "./escape.js";
import { LIMITS } from "./read.js";

/**
 * The size bound of one viewer page. Every piece of agent text that enters the page is escaped and
 * charged here: each text is cut to its own cap, and once the page's budget is spent the rest is
 * replaced by a note. A cut is always said, with how much was shown and where the whole file is.
 */
export class PageBudget {
  /** Bytes (UTF-8) of escaped agent text still allowed on the page. */
  left: number;
  constructor(bytes: number) {
    this.left = bytes;
  }

  /** The markup a row, node or entry adds around its text: charged as this many bytes. */
  static readonly ROW = 256;

  /** Charges one row's markup; false (and nothing charged) when the page has no room left. */
  row(): boolean {
    if (this.left < 4 * PageBudget.ROW) return false;
    this.left -= PageBudget.ROW;
    return true;
  }

  /** Charges already escaped HTML; returns it, or `instead` when it does not fit. */
  html(html: string, instead = ""): string {
    const n = Buffer.byteLength(html);
    if (n > this.left) return instead;
    this.left -= n;
    return html;
  }

  /**
   * The escaped first part of `text`: at most `cap` characters and what the page has left (nothing
   * when that would be a sliver of under 256 characters); `cut` when that is not all of it.
   */
  text(text: string, cap: number): { html: string; shown: number; cut: boolean } {
    let shown = Math.min(text.length, cap);
    let html = esc(text.slice(0, shown));
    let n = Buffer.byteLength(html);
    // Escaping grows text up to 6 times: shrink the slice until it fits what is left.
    while (n > this.left && shown > 0) {
      shown = Math.max(0, Math.floor(shown * (this.left / n) * 0.95) - 1);
      html = esc(text.slice(0, shown));
      n = Buffer.byteLength(html);
    }
    if (shown < text.length && shown < Math.min(cap, 256)) return { html: "", shown: 0, cut: true };
    this.left -= n;
    return { html, shown, cut: shown < text.length };
  }
}

export function sizeText(bytes: number): string {
  return bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 ** 2
      ? `${(bytes / 1024).toFixed(1)} KiB`
      : `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
}

/** "showing the first 64.0 KiB of 30.0 MiB; the full file is in the run's artifact". */
export function cutNote(shownBytes: number, totalBytes: number, what = "the full file"): string {
  return `showing the first ${sizeText(shownBytes)} of ${sizeText(totalBytes)}; ${what} is in the run's artifact`;
}

/** A piece of agent text as <pre>, charged to the page, with a note when cut. */
export function preText(
  text: string,
  cap: number,
  budget: PageBudget,
  fileBytes?: number,
  truncated = false,
): string {
  const b = budget.text(text, cap);
  if (b.shown === 0 && text.length > 0) return `<p class="muted">${esc(FULL_NOTE)}</p>`;
  const cut = b.cut || truncated;
  const shownBytes = Buffer.byteLength(text.slice(0, b.shown));
  const total = fileBytes ?? Buffer.byteLength(text);
  return `<pre>${b.html}</pre>${cut ? `<p class="muted">${esc(cutNote(shownBytes, total, fileBytes === undefined ? "the full text" : "the full file"))}</p>` : ""}`;
}

export const LIMIT_REACHED = `this page reached its ${sizeText(LIMITS.pageBytes)} size limit`;
export const FULL_NOTE = `not shown: ${LIMIT_REACHED}; the full file is in the run's artifact`;

/** One line of agent text (a summary, a cell), clipped and charged to the page. */
export function lineText(text: string, max: number, budget: PageBudget): string {
  return budget.text(clip(text, max), max + 40).html;
}
