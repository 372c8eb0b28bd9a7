// The report as a file (report.md, rewritten with the links the artifacts gave) or on stdout.
import { writeAtomic } from "../../util/atomic.js";
import type { ReportTarget } from "./target.js";

/** report.md again, now with the links earlier targets learned. */
export const reportFileTarget = (path: string): ReportTarget => ({
  name: "report.md",
  deliver: async (d) => writeAtomic(path, d.report()),
});
