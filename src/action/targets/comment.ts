// The pull request's sticky comment: one per (workflow, suite), updated in place.
import { createClient } from "../../github/client.js";
import { upsertStickyComment } from "../../github/comment.js";
import { commentMarker } from "../../github/marker.js";
import { fitComment } from "../../github/truncate.js";
import type { ReportTarget } from "./target.js";

export interface CommentPlace {
  mode: "always" | "on-change" | "never";
  token: string;
  apiUrl: string;
  owner: string;
  repo: string;
  pr: number | null;
  workflow: string;
  suite: string;
  /** Where the whole report is when the comment is cut short (the job's page). */
  fullReportUrl: string;
}

export function stickyCommentTarget(place: CommentPlace): ReportTarget {
  return {
    name: "the pull request comment",
    async deliver(d) {
      if (place.mode === "never" || place.pr === null) return;
      if (!place.token) {
        d.notes.push("> ⚠️ no github-token: the report is in this summary only.");
        return;
      }
      const cmp = d.ev.comparison;
      const marker = commentMarker(place.workflow, place.suite);
      const body = fitComment(`${marker}\n${d.report()}`, d.reportArtifactUrl ?? place.fullReportUrl);
      // "Nothing changed": the same medal rate and a verdict the gate passes.
      const changed =
        !cmp || cmp.verdict === "regressed" || cmp.verdict === "error" || (cmp.delta ?? 0) !== 0;
      try {
        const client = createClient(place.token, {
          baseUrl: place.apiUrl,
          onRetry: (r) =>
            d.info(
              `GitHub ${r.method} ${r.url}: ${r.status ?? "no answer"}; retry ${r.attempt} in ${r.waitMs} ms`,
            ),
        });
        const result = await upsertStickyComment(
          client,
          { owner: place.owner, repo: place.repo, issueNumber: place.pr, marker },
          body,
          { create: place.mode === "always" || changed },
        );
        if (result) d.info(`comment ${result.action}: ${result.url}`);
        d.commentUrl = result?.url ?? null;
      } catch (e) {
        const status = (e as { status?: number }).status;
        const problem =
          status === 403 && !/rate limit/i.test((e as Error).message)
            ? "could not comment on the pull request (403: the token is read-only, as for pull requests from forks); the report is in this job summary and the report artifact. See docs/action.md for the workflow_run pattern."
            : `could not comment on the pull request (${status ?? ""} ${(e as Error).message}); the report is in this job summary.`;
        d.warn(`medalist: ${problem}`);
        d.notes.push(`> ⚠️ ${problem}`);
      }
    },
  };
}
