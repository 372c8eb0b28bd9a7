// The job summary: the report, the gate's sentence, and what other targets could not do.
import * as core from "@actions/core";
import type { ReportTarget } from "./target.js";

export const jobSummaryTarget = (
  write = (text: string) => core.summary.addRaw(text, true).write(),
): ReportTarget => ({
  name: "the job summary",
  deliver: async (d) => {
    const notes = d.notes.flatMap((n) => ["", n]);
    await write([d.report(), "", d.ev.gate.sentence, ...notes].join("\n"));
  },
});
