// What triggered the workflow, read from the runner's environment and the webhook payload.
import { readFileSync } from "node:fs";

export interface PullRequestInfo {
  number: number;
  baseSha: string;
  baseRef: string;
  headSha: string;
  /** owner/name of the head repository; null when the fork was deleted. */
  headRepo: string | null;
  /** The head branch lives in another repository. */
  isFork: boolean;
}

/** The run that triggered a `workflow_run` event (the evaluation whose report is relayed). */
export interface WorkflowRunInfo {
  id: number;
  name: string;
  event: string;
  headSha: string;
}

export interface EventInfo {
  eventName: string;
  owner: string;
  repo: string;
  sha: string;
  ref: string;
  serverUrl: string;
  apiUrl: string;
  runId: string;
  workflow: string;
  /** "github-hosted" or "self-hosted"; anything unknown counts as self-hosted. */
  runnerEnvironment: string;
  defaultBranch: string | null;
  pr: PullRequestInfo | null;
  workflowRun: WorkflowRunInfo | null;
  /** A push (or manual/scheduled run) on the default branch: the place baselines are saved. */
  onDefaultBranch: boolean;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === "object" ? (v as Json) : {});
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

export function readEvent(env: NodeJS.ProcessEnv = process.env): EventInfo {
  let payload: Json = {};
  if (env.GITHUB_EVENT_PATH) {
    try {
      payload = obj(JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, "utf8")));
    } catch (e) {
      throw new Error(`cannot read the event payload ${env.GITHUB_EVENT_PATH}: ${(e as Error).message}`);
    }
  }
  const [owner = "", repo = ""] = (env.GITHUB_REPOSITORY ?? "").split("/");
  const pull = payload.pull_request ? obj(payload.pull_request) : null;
  let pr: PullRequestInfo | null = null;
  if (pull) {
    const base = obj(pull.base);
    const head = obj(pull.head);
    const baseRepo = str(obj(base.repo).full_name);
    const headRepo = head.repo ? str(obj(head.repo).full_name) : null;
    pr = {
      number: Number(pull.number ?? payload.number),
      baseSha: str(base.sha) ?? "",
      baseRef: str(base.ref) ?? "",
      headSha: str(head.sha) ?? "",
      headRepo,
      isFork: headRepo === null || headRepo !== baseRepo,
    };
  }
  const wr = payload.workflow_run ? obj(payload.workflow_run) : null;
  const workflowRun: WorkflowRunInfo | null = wr
    ? {
        id: Number(wr.id),
        name: str(wr.name) ?? "",
        event: str(wr.event) ?? "",
        headSha: str(wr.head_sha) ?? "",
      }
    : null;
  const defaultBranch = str(obj(payload.repository).default_branch);
  const ref = env.GITHUB_REF ?? "";
  const eventName = env.GITHUB_EVENT_NAME ?? "";
  return {
    eventName,
    owner,
    repo,
    sha: env.GITHUB_SHA ?? "",
    ref,
    serverUrl: (env.GITHUB_SERVER_URL ?? "https://github.com").replace(/\/+$/, ""),
    apiUrl: (env.GITHUB_API_URL ?? "https://api.github.com").replace(/\/+$/, ""),
    runId: env.GITHUB_RUN_ID ?? "",
    workflow: env.GITHUB_WORKFLOW ?? "medalist",
    runnerEnvironment: env.RUNNER_ENVIRONMENT ?? "unknown",
    defaultBranch,
    pr,
    workflowRun,
    onDefaultBranch:
      pr === null &&
      defaultBranch !== null &&
      ref === `refs/heads/${defaultBranch}` &&
      ["push", "workflow_dispatch", "schedule"].includes(eventName),
  };
}

/** Where the job's page (and its summary) lives. */
export function runUrl(e: EventInfo): string {
  return `${e.serverUrl}/${e.owner}/${e.repo}/actions/runs/${e.runId}`;
}

/** GitHub Enterprise Server: no artifact service for @actions/artifact v2+. */
export function isGhes(e: EventInfo): boolean {
  const host = new URL(e.serverUrl).hostname.toLowerCase();
  return host !== "github.com" && !host.endsWith(".ghe.com") && host !== "localhost" && host !== "127.0.0.1";
}
