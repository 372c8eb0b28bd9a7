// The action's front door: read the inputs and the event, judge the config, then hand over to the
// step this bundle runs (src/action/steps/): the whole evaluation (all.ts), or a sub-action of the
// sharded workflow (plan/, run/, report/, decide/), or the comment relay of workflow_run (relay.ts).
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import * as core from "@actions/core";
import { UserError } from "../errors.js";
import { cancelOnSignals } from "../session/cancel.js";
import { defaultDeps, type Deps } from "./deps.js";
import { readEvent, type EventInfo } from "./event.js";
import { readSettings, type Settings } from "./inputs.js";
import { loadSession } from "./load.js";
import { judgeConfig } from "./judge.js";
import { checkRuntimeGate } from "./runtime-gate.js";
import { refuseLinkedResultsDir } from "./run-records.js";
import { readStep } from "./step-inputs.js";
import { allStep } from "./steps/all.js";
import { decideStep } from "./steps/decide.js";
import { planStep } from "./steps/plan.js";
import { relayStep } from "./steps/relay.js";
import { reportStep } from "./steps/report.js";
import { runStep } from "./steps/run.js";

/** Refuses pull requests from forks on self-hosted runners unless the workflow opted in. */
export function forkRefusal(event: EventInfo, settings: Settings): string | null {
  if (!event.pr?.isFork || settings.allowForkPrs) return null;
  if (event.runnerEnvironment === "github-hosted") return null;
  return (
    `medalist: refusing to run pull request #${event.pr.number} from the fork ${event.pr.headRepo ?? "(deleted)"} on a self-hosted runner: ` +
    "its code would run on your machine with access to whatever the runner can reach. " +
    "Review the change and set `allow-fork-prs: true` to accept such runs, or use the two-workflow pattern in docs/action.md."
  );
}

/** The action's entry; testable without side effects on import. */
export async function run(overrides: Partial<Deps> = {}): Promise<void> {
  const deps = { ...defaultDeps, ...overrides };
  try {
    await main(deps);
  } catch (e) {
    if (e instanceof UserError) core.setFailed(`medalist: ${e.message}`);
    else {
      core.setFailed(`medalist: unexpected error: ${(e as Error)?.message ?? String(e)}`);
      core.debug((e as Error)?.stack ?? "");
    }
  }
}

async function main(deps: Deps): Promise<void> {
  if (!deps.env.GITHUB_ACTIONS) {
    throw new UserError(
      "this is the GitHub Action entry point; outside GitHub Actions use the CLI (npx medalist --help).",
    );
  }
  const settings = readSettings();
  const event = readEvent(deps.env);
  if (settings.token) core.setSecret(settings.token);
  // The key that seals run records and shard results; shared by shards on several runners.
  if (settings.runKey) {
    core.setSecret(settings.runKey);
    deps.env.MEDALIST_RUN_KEY = settings.runKey;
    process.env.MEDALIST_RUN_KEY = settings.runKey;
  }

  if (event.workflowRun) return relayStep(settings, event);

  const refusal = forkRefusal(event, settings);
  if (refusal) {
    core.setFailed(refusal);
    await core.summary.addHeading("Medalist: not run", 3).addRaw(refusal, true).write();
    return;
  }

  const step = readStep();
  const judged = await judgeConfig(settings, event, deps.env, (line) => core.info(line));
  refuseLinkedResultsDir(settings.resultsDir, event, deps.env);
  if (step === "plan") return planStep(settings, judged);
  // Only the steps that run agents need the daemon: a pull request's agent needs a sandboxing runtime.
  if (step === "all" || step === "run") await checkRuntimeGate(judged.config, event, settings);
  const s = loadSession(settings, judged);
  mkdirSync(resolve(settings.resultsDir), { recursive: true });
  // A cancelled job gets SIGINT then SIGTERM: the first stops the runs, the second kills them.
  const cancel = cancelOnSignals((line) => core.info(line));
  try {
    if (step === "run") return await runStep(deps, s, event, cancel.signal);
    if (step === "report") return await reportStep(deps, s, event);
    if (step === "decide") return await decideStep(deps, s, event);
    await allStep(deps, s, event, cancel.signal);
  } finally {
    cancel.dispose();
  }
}
