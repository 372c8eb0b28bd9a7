// `medalist check` (and the part of it `plan` runs): each thing a suite needs before its first run,
// one line each, checked without running or building anything. The doors print the lines; the
// action can call the same checks.
import { lstatSync } from "node:fs";
import { resolve } from "node:path";
import type { LoadedConfig } from "../config/load.js";
import type { AgentConfig } from "../config/parts.js";
import { configView } from "../config/executors.js";
import { UserError } from "../errors.js";
import type { CheckLine } from "../execute/backend.js";
import { backendOf } from "../execute/backends.js";
import { checkBuildContext } from "../execute/build-context.js";
import { expandMlebenchAgent } from "../mlebench/agent-folder.js";
import { notPrepared, prepareCommandFor } from "../suite/prepare.js";
import { countOf } from "../util/count.js";
import { defaultResultsDir } from "../config/results-dir.js";
import { openSession, type Session } from "./input.js";

export interface CheckOptions {
  /**
   * Also check this machine: data prepared, executor reachable, image present or buildable, sandbox
   * available (`check`); without it only what holds on any machine (`plan`, which may run elsewhere).
   */
  machine: boolean;
}

/** The line as printed: "✓ config: …" or "✗ agent: …". */
export const checkText = (l: CheckLine) => `${l.ok ? "✓" : "✗"} ${l.what}: ${l.text}`;

const failed = (what: string, e: unknown): CheckLine => {
  if (e instanceof UserError) return { what, ok: false, text: e.message };
  throw e;
};

/** The agent's folder, script and build, as far as they can be checked without building. */
function agentLines(loaded: LoadedConfig): { lines: CheckLine[]; agent: AgentConfig | null } {
  const { config, baseDir } = loaded;
  const backend = backendOf(config.executor);
  let agent: AgentConfig;
  const lines: CheckLine[] = [];
  try {
    agent = expandMlebenchAgent(config.agent, baseDir).agent;
  } catch (e) {
    return { lines: [failed("agent", e)], agent: null };
  }
  try {
    if (config.agent.mlebench) {
      lines.push({
        what: "agent",
        ok: true,
        text: `MLE-bench agent ${config.agent.mlebench.id} in ${config.agent.mlebench.agentsDir}: its start script and Dockerfile are there`,
      });
    } else if (backend.agentCheck) {
      lines.push({
        what: "agent",
        ok: true,
        text: backend.agentCheck({ agent, block: configView(config.executor, config).block, baseDir }),
      });
    } else if (agent.build) {
      const context = checkBuildContext({
        agent,
        baseDir,
        dataDir: resolve(baseDir, config.dataDir),
        // Where `medalist run` writes this suite by default (the guard keeps it out of the context).
        outDir: resolve(defaultResultsDir(config.name), "head"),
      })!;
      const dockerfile = resolve(context, agent.build.dockerfile);
      if (!lstatSync(context, { throwIfNoEntry: false })?.isDirectory())
        throw new UserError(`agent.build.context: ${context} is not a folder`);
      if (!lstatSync(dockerfile, { throwIfNoEntry: false })?.isFile())
        throw new UserError(`agent.build.dockerfile: ${dockerfile} is not a file`);
      lines.push({ what: "agent", ok: true, text: `image built from ${dockerfile}` });
    } else {
      lines.push({ what: "agent", ok: true, text: `image ${agent.image ?? "(none)"}` });
    }
  } catch (e) {
    lines.push(failed("agent", e));
  }
  return { lines, agent };
}

/** The checks that hold on any machine: the config and the agent's files. */
export function staticChecks(loaded: LoadedConfig): {
  lines: CheckLine[];
  session: Session | null;
  agent: AgentConfig | null;
} {
  const { config } = loaded;
  let session: Session;
  try {
    session = openSession(config, loaded.baseDir);
  } catch (e) {
    return { lines: [failed("config", e)], session: null, agent: null };
  }
  // Competitions Medalist does not grade itself need the config's grader (as runSuite says).
  const external = session.plan.competitions.filter(
    (id) => session.registry.get(id)!.competition.grading === "external",
  );
  if (external.length > 0 && !config.externalGrader)
    return {
      lines: [
        {
          what: "config",
          ok: false,
          text: `externalGrader: ${external.join(", ")} ${external.length === 1 ? "is" : "are"} not graded natively; set externalGrader or exclude ${external.length === 1 ? "it" : "them"}`,
        },
      ],
      session: null,
      agent: null,
    };
  const n = session.plan.competitions.length;
  const config_: CheckLine = {
    what: "config",
    ok: true,
    text: `${loaded.path}: suite ${config.name}, ${countOf(session.plan.runs.length, "run")} (${countOf(n, "competition")} × ${countOf(config.seeds, "seed")}), executor ${config.executor}`,
  };
  const { lines, agent } = agentLines(loaded);
  return { lines: [config_, ...lines], session, agent };
}

/** Data, executor, image and sandbox on this machine. */
async function machineChecks(
  loaded: LoadedConfig,
  session: Session,
  agent: AgentConfig | null,
): Promise<CheckLine[]> {
  const { config, baseDir } = loaded;
  const lines: CheckLine[] = [];
  // Data: prepared, or generated on the first run (toy competitions).
  const dataDir = resolve(baseDir, config.dataDir);
  const entries = session.plan.competitions.map((id) => session.registry.get(id)!);
  const missing = notPrepared(entries, dataDir).map((e) => e.competition.id);
  lines.push(
    missing.length === 0
      ? {
          what: "data",
          ok: true,
          text: `${countOf(entries.length, "competition")} ready in ${dataDir} (toy competitions are generated on the first run)`,
        }
      : {
          what: "data",
          ok: false,
          text: `${countOf(missing.length, "competition")} not prepared in ${dataDir} (${missing.slice(0, 3).join(", ")}${missing.length > 3 ? ", …" : ""}): run ${prepareCommandFor(missing, dataDir, { split: config.competitions.split, include: missing })}`,
        },
  );
  const backend = backendOf(config.executor);
  if (backend.machineCheck) {
    const block = configView(config.executor, config).block;
    lines.push(...(await backend.machineCheck({ agent, block, baseDir })));
  } else {
    lines.push({
      what: "executor",
      ok: true,
      text: `${config.executor}: not checked on this machine (the executor has no check of its own)`,
    });
  }
  return lines;
}

/** Every check (`machine`: this machine's too), one line each; nothing runs or is built. */
export async function checkSuite(loaded: LoadedConfig, opts: CheckOptions): Promise<CheckLine[]> {
  const { lines, session, agent } = staticChecks(loaded);
  if (!opts.machine || !session) return lines;
  return [...lines, ...(await machineChecks(loaded, session, agent))];
}
