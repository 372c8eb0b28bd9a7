// The `workflow_run` half of the two-workflow pattern for fork pull requests: the evaluation
// (read-only token, untrusted code) uploads its comment as an artifact; this half (trusted code,
// write token, never runs the pull request's code) checks it and posts the sticky comment.
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { writeAtomic } from "../util/atomic.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DefaultArtifactClient } from "@actions/artifact";
import { z } from "zod";
import { UserError } from "../errors.js";
import type { GitHubClient } from "../github/client.js";
import { upsertStickyComment, type StickyResult } from "../github/comment.js";
import { commentMarker } from "../github/marker.js";
import { fitComment } from "../github/truncate.js";
import { stripMarkers } from "../report/inert.js";
import type { WorkflowRunInfo } from "./event.js";

export const COMMENT_ARTIFACT = "medalist-comment";
export const COMMENT_FILE = "comment.json";

export const CommentFileSchema = z.strictObject({
  version: z.literal(1),
  pr: z.number().int().positive(),
  headSha: z.string().regex(/^[0-9a-f]{40}$/),
  suite: z.string().min(1).max(200),
  /** Markdown without the marker (the relay adds it). */
  body: z.string().max(1_000_000),
});
export type CommentFile = z.output<typeof CommentFileSchema>;

export function writeCommentFile(path: string, c: CommentFile): void {
  writeAtomic(path, JSON.stringify(c) + "\n");
}

/** Artifact names of one suite's comment; the relay takes every name with the prefix. */
export const commentArtifactName = (suite: string, attempt: string | undefined) =>
  `${COMMENT_ARTIFACT}-${suite}${attempt && attempt !== "1" ? `-attempt${attempt}` : ""}`;

/** Downloads every comment artifact of another run (one per suite), oldest first; needs `actions: read`. */
export async function downloadCommentFiles(
  token: string,
  owner: string,
  repo: string,
  runId: number,
): Promise<unknown[]> {
  const client = new DefaultArtifactClient();
  const findBy = { token, workflowRunId: runId, repositoryOwner: owner, repositoryName: repo };
  const { artifacts } = await client.listArtifacts({ findBy, latest: true });
  const mine = artifacts.filter((a) => a.name.startsWith(COMMENT_ARTIFACT)).sort((a, b) => a.id - b.id);
  const out: unknown[] = [];
  for (const a of mine) {
    const dir = mkdtempSync(join(process.env.RUNNER_TEMP || tmpdir(), "medalist-relay-"));
    await client.downloadArtifact(a.id, { path: dir, findBy });
    const names = readdirSync(dir);
    const file = names.includes(COMMENT_FILE) ? COMMENT_FILE : names[0];
    if (!file) throw new UserError(`the ${a.name} artifact of run ${runId} is empty`);
    out.push(JSON.parse(readFileSync(join(dir, file), "utf8")));
  }
  return out;
}

/**
 * Checks the artifact against what the trusted event says (the pull request's head must be the
 * commit the evaluation ran on) and posts it as the sticky comment of (evaluation workflow, suite).
 */
export async function relayComment(
  client: GitHubClient,
  repo: { owner: string; repo: string },
  run: WorkflowRunInfo,
  raw: unknown,
  fullReportUrl: string,
): Promise<StickyResult | null> {
  const parsed = CommentFileSchema.safeParse(raw);
  if (!parsed.success) throw new UserError(`the ${COMMENT_ARTIFACT} artifact is not a Medalist comment file`);
  const c = parsed.data;
  const { data: pull } = await client.rest.pulls.get({ ...repo, pull_number: c.pr });
  if (pull.head.sha !== run.headSha || c.headSha !== run.headSha) {
    throw new UserError(
      `the comment artifact names pull request #${c.pr}, whose head ${pull.head.sha.slice(0, 7)} is not the commit ${run.headSha.slice(0, 7)} that run ${run.id} evaluated; not posting`,
    );
  }
  const marker = commentMarker(run.name, c.suite);
  // Markers inside the untrusted body could make this comment match another suite's lookup (the
  // lookup reads the first line only, and no HTML comment survives stripMarkers, nested or not).
  const clean = stripMarkers(c.body);
  const body = fitComment(`${marker}\n${clean}`, fullReportUrl);
  return upsertStickyComment(client, { ...repo, issueNumber: c.pr, marker }, body);
}
