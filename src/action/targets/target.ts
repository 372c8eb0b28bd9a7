// A report target takes the finished Evaluation somewhere: stdout or report.md, artifacts, the
// pull request's sticky comment, the job summary. Targets run in order after everything is on
// disk; what one learns (artifact links, the comment's URL, a problem to mention) the next ones see.
import type { RenderOptions } from "../../report/evaluation.js";
import type { Evaluation } from "../../session/evaluate.js";

export interface Delivery {
  ev: Evaluation;
  /** Trajectory artifact pages by run directory, once uploaded. */
  links: Record<string, string>;
  /** The viewer's page, once uploaded. */
  viewerUrl?: string;
  /** The report artifact's page, once uploaded. */
  reportArtifactUrl: string | null;
  /** The sticky comment's URL, once posted. */
  commentUrl: string | null;
  /** Lines for later targets to show (the job summary): what an earlier one could not do. */
  notes: string[];
  /** The report with what is known so far (links, viewer). */
  report(): string;
  warn(message: string): void;
  info(message: string): void;
}

export interface ReportTarget {
  /** What it delivers, for the warning when it cannot ("the job summary"). */
  name: string;
  deliver(d: Delivery): Promise<void>;
}

/** A delivery of `ev`; `render` holds the door's own render options (e.g. the full report's URL). */
export function newDelivery(
  ev: Evaluation,
  render: RenderOptions,
  log: { warn(message: string): void; info(message: string): void },
): Delivery {
  const d: Delivery = {
    ev,
    links: {},
    reportArtifactUrl: null,
    commentUrl: null,
    notes: [],
    report: () =>
      ev.render({
        ...render,
        links: Object.keys(d.links).length ? d.links : render.links,
        viewerUrl: d.viewerUrl ?? render.viewerUrl,
      }),
    warn: log.warn,
    info: log.info,
  };
  return d;
}

/** Every target in order; one that fails is a warning, never a failed evaluation. */
export async function deliverAll(targets: ReportTarget[], d: Delivery): Promise<void> {
  for (const t of targets) {
    try {
      await t.deliver(d);
    } catch (e) {
      d.warn(`medalist: ${t.name} not delivered: ${(e as Error).message}`);
    }
  }
}
