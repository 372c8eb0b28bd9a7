// One sticky comment per (workflow, suite): found by its hidden marker on the FIRST LINE among the
// comments the token's own user wrote, created once, then updated in place; duplicates are removed.
// A comment that merely contains a marker further down (agent text quoting another suite's
// marker) is never this suite's comment: it is neither edited nor deleted.
import { type GitHubClient, statusOf, tokenLogin } from "./client.js";

export interface StickyTarget {
  owner: string;
  repo: string;
  issueNumber: number;
  /** From commentMarker(); the body's first line. */
  marker: string;
}

export interface StickyResult {
  action: "created" | "updated" | "unchanged";
  id: number;
  url: string;
  /** Ids of duplicate comments (same marker, same author) that were deleted. */
  deleted: number[];
}

interface Found {
  id: number;
  body: string;
  html_url: string;
}

/** A body's first line, without surrounding blanks (GitHub may store "\r\n"). */
export const firstLine = (body: string) => body.split("\n", 1)[0].trim();

async function findOwn(client: GitHubClient, t: StickyTarget, login: string): Promise<Found[]> {
  const comments = await client.paginate(client.rest.issues.listComments, {
    owner: t.owner,
    repo: t.repo,
    issue_number: t.issueNumber,
    per_page: 100,
  });
  return comments
    .filter((c) => c.user?.login === login && firstLine(c.body ?? "") === t.marker)
    .map((c) => ({ id: c.id, body: c.body ?? "", html_url: c.html_url }))
    .sort((a, b) => a.id - b.id);
}

/**
 * Creates or updates the sticky comment. `create: false` only updates an existing comment
 * (used by `comment: on-change` when nothing changed). Returns null when nothing was posted.
 */
export async function upsertStickyComment(
  client: GitHubClient,
  target: StickyTarget,
  body: string,
  options: { create?: boolean; login?: string } = {},
): Promise<StickyResult | null> {
  if (firstLine(body) !== target.marker) body = `${target.marker}\n${body}`;
  const login = options.login ?? (await tokenLogin(client));
  const repo = { owner: target.owner, repo: target.repo };
  let own = await findOwn(client, target, login);
  let action: StickyResult["action"];
  let keep: Found;

  if (own.length === 0) {
    if (options.create === false) return null;
    const { data } = await client.rest.issues.createComment({
      ...repo,
      issue_number: target.issueNumber,
      body,
    });
    action = "created";
    keep = { id: data.id, body, html_url: data.html_url };
    // A parallel run may have created one at the same time: keep the oldest.
    own = await findOwn(client, target, login);
    if (own.length > 1 && own[0].id !== keep.id) {
      keep = own[0];
      if (keep.body !== body) await client.rest.issues.updateComment({ ...repo, comment_id: keep.id, body });
      action = "updated";
    }
  } else {
    keep = own[0];
    if (keep.body === body) action = "unchanged";
    else {
      await client.rest.issues.updateComment({ ...repo, comment_id: keep.id, body });
      action = "updated";
    }
  }

  const deleted: number[] = [];
  for (const dup of own.filter((c) => c.id !== keep.id)) {
    try {
      await client.rest.issues.deleteComment({ ...repo, comment_id: dup.id });
      deleted.push(dup.id);
    } catch (error) {
      // Already removed by a parallel run.
      if (statusOf(error) !== 404) throw error;
    }
  }
  return { action, id: keep.id, url: keep.html_url, deleted };
}
