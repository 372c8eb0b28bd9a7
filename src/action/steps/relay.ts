// workflow_run: post the comment an evaluation run left as an artifact; runs no agent.
import * as core from "@actions/core";
import { UserError } from "../../errors.js";
import { createClient } from "../../github/client.js";
import { Outputs } from "../constants.js";
import type { EventInfo } from "../event.js";
import type { Settings } from "../inputs.js";
import { COMMENT_ARTIFACT, downloadCommentFiles, relayComment } from "../relay.js";

/** workflow_run: post the comment an evaluation run left as an artifact; runs no agent. */
export async function relayStep(settings: Settings, event: EventInfo): Promise<void> {
  const run = event.workflowRun!;
  if (!["pull_request", "pull_request_target"].includes(run.event)) {
    core.info(`medalist: run ${run.id} was triggered by ${run.event}, not a pull request; nothing to relay`);
    return;
  }
  if (settings.comment === "never") return;
  if (!settings.token)
    throw new UserError(
      "relaying a comment needs github-token (with pull-requests: write and actions: read)",
    );
  const files = await downloadCommentFiles(settings.token, event.owner, event.repo, run.id);
  if (files.length === 0) {
    // A refused, cancelled or failed-early evaluation leaves no comment behind.
    core.info(`medalist: run ${run.id} left no ${COMMENT_ARTIFACT} artifact; nothing to relay`);
    return;
  }
  const client = createClient(settings.token, { baseUrl: event.apiUrl });
  const fullReport = `${event.serverUrl}/${event.owner}/${event.repo}/actions/runs/${run.id}`;
  let result: Awaited<ReturnType<typeof relayComment>> = null;
  for (const raw of files) {
    result = await relayComment(client, { owner: event.owner, repo: event.repo }, run, raw, fullReport);
    if (result) core.info(`comment ${result.action}: ${result.url}`);
  }
  core.setOutput(Outputs.CommentUrl, result?.url ?? "");
}
