// `medalist check` (and the part of it `plan` runs): each thing a suite needs before its first run,
// one line each, checked without running or building anything. The doors print the lines; the
// action can call the same checks.
import { execFile } from "node:child_process";
import { lstatSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import type Docker from "dockerode";
import type { LoadedConfig } from "../config/load.js";
import type { AgentConfig } from "../config/parts.js";
import { UserError } from "../errors.js";
import { checkBuildContext } from "../execute/build-context.js";
import { connectDocker } from "../execute/docker/client.js";
import { errorMessage } from "../util/error-message.js";
import { ImageMissingError, inspectImage } from "../execute/container/image.js";
import { imageEngine } from "../execute/docker/engine.js";
import { checkRuntime } from "../execute/docker/setup.js";
import type { LocalConfig } from "../config/blocks/local.js";
import { bwrapProblem } from "../execute/local/sandbox.js";
import { hiddenCommandPath } from "../execute/local/visible.js";
import { expandMlebenchAgent } from "../mlebench/agent-folder.js";
import { notPrepared, prepareCommandFor } from "../suite/prepare.js";
import { agentCwd } from "../util/contained.js";
import { countOf } from "../util/count.js";
import { defaultResultsDir } from "../config/results-dir.js";
import { openSession, type Session } from "./input.js";

export interface CheckLine {
  /** What was checked: config, agent, image, data, executor, sandbox. */
  what: string;
  ok: boolean;
  /** One sentence: what was found, or what is wrong and what to do. */
  text: string;
}

export interface CheckOptions {
  /**
   * Also check this machine: data prepared, executor reachable, image present or buildable, sandbox
   * available (`check`); without it only what holds on any machine (`plan`, which may run elsewhere).
   */
  machine: boolean;
  /** dockerode's options (tests); default DOCKER_HOST or the local socket. */
  docker?: Docker.DockerOptions;
}

/** The line as printed: "✓ config: …" or "✗ agent: …". */
export const checkText = (l: CheckLine) => `${l.ok ? "✓" : "✗"} ${l.what}: ${l.text}`;

const failed = (what: string, e: unknown): CheckLine => {
  if (e instanceof UserError) return { what, ok: false, text: e.message };
  throw e;
};

/** The base images a Dockerfile starts FROM (stage names, `scratch` and unresolved ARGs left out). */
export function baseImages(dockerfile: string): string[] {
  const stages = new Set<string>();
  const out: string[] = [];
  for (const line of dockerfile.split(/\r?\n/)) {
    const m = /^\s*FROM\s+(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (!m) continue;
    const image = m[1];
    if (
      !stages.has(image.toLowerCase()) &&
      image !== "scratch" &&
      !image.includes("$") &&
      !out.includes(image)
    )
      out.push(image);
    if (m[2]) stages.add(m[2].toLowerCase());
  }
  return out;
}

/** The agent's folder, script and build, as far as they can be checked without building. */
function agentLines(loaded: LoadedConfig): { lines: CheckLine[]; agent: AgentConfig | null } {
  const { config, baseDir } = loaded;
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
    } else if (config.executor === "local") {
      if (agent.command === undefined)
        throw new UserError("agent.command: the local executor needs a command");
      const cwd = agentCwd(agent.cwd, baseDir);
      // A file the command names that the sandbox will not show (where bubblewrap is what runs it).
      const mode = (config.local as LocalConfig | undefined)?.sandbox ?? "auto";
      const hidden =
        mode !== "none" && bwrapProblem() === null ? hiddenCommandPath(agent.command, cwd) : null;
      if (hidden) throw new UserError(hidden);
      lines.push({ what: "agent", ok: true, text: `command ${describe(agent.command)} in ${cwd}` });
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

const describe = (c: string | string[]) => (Array.isArray(c) ? c.join(" ") : c);

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

/** Runs `file args`, resolving with its first output line, or rejecting with its first error line. */
function firstLine(file: string, args: string[]): Promise<string> {
  return new Promise((ok, fail) =>
    execFile(file, args, { timeout: 15_000 }, (err, stdout, stderr) => {
      if (err) {
        const said = String(stderr).trim().split("\n")[0];
        fail(
          new Error(
            (err as NodeJS.ErrnoException).code === "ENOENT"
              ? `${file} is not installed (not on PATH)`
              : said || err.message,
          ),
        );
      } else ok(String(stdout).trim().split("\n")[0] ?? "");
    }),
  );
}

/** Data, executor, image and sandbox on this machine. */
async function machineChecks(
  loaded: LoadedConfig,
  session: Session,
  agent: AgentConfig | null,
  opts: CheckOptions,
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
  if (config.executor === "docker") {
    let docker: Docker | null = null;
    try {
      docker = await connectDocker({ docker: opts.docker, attempts: 1 });
      const runtime = config.docker.runtime;
      if (runtime) await checkRuntime(docker, runtime);
      lines.push({
        what: "executor",
        ok: true,
        text: `docker: the daemon answers${runtime ? `, runtime ${runtime} is registered` : ""}`,
      });
    } catch (e) {
      lines.push(failed("executor", e));
    }
    lines.push(
      docker && agent
        ? await imageLine(docker, agent, baseDir)
        : {
            what: "image",
            ok: false,
            text: "not checked: no Docker daemon answers",
          },
    );
    lines.push({
      what: "sandbox",
      ok: true,
      text: `each run in its own container (${config.docker.runtime ? `runtime ${config.docker.runtime}` : "the daemon's default runtime"})`,
    });
  } else if (config.executor === "slurm") {
    try {
      const said = await firstLine("scontrol", ["ping"]);
      lines.push({ what: "executor", ok: true, text: `slurm: ${said || "the controller answers"}` });
    } catch (e) {
      lines.push({
        what: "executor",
        ok: false,
        text: `slurm: the controller does not answer (scontrol ping: ${(e as Error).message})`,
      });
    }
    lines.push({
      what: "sandbox",
      ok: true,
      text: `slurm.mode ${config.slurm.mode} decides how the agent runs on the node (docs/slurm.md)`,
    });
  } else {
    lines.push({ what: "executor", ok: true, text: "local: the agent runs as a process on this machine" });
    lines.push(sandboxLine(config.local as LocalConfig | undefined));
  }
  return lines;
}

/** Whether bubblewrap can start, as the local executor's sandbox setting needs. */
function sandboxLine(local: LocalConfig | undefined): CheckLine {
  const mode = local?.sandbox ?? "auto";
  if (mode === "none")
    return {
      what: "sandbox",
      ok: true,
      text: "none (local.sandbox: none): the agent runs as this machine's user",
    };
  const problem = bwrapProblem();
  if (problem === null)
    return { what: "sandbox", ok: true, text: "bubblewrap starts a sandbox on this machine" };
  return {
    what: "sandbox",
    ok: false,
    text:
      mode === "bwrap"
        ? `local.sandbox is bwrap and bubblewrap cannot start here (${problem}): install bubblewrap and allow user namespaces`
        : `bubblewrap cannot start here (${problem}), so the agent would run unsandboxed: install bubblewrap, or set local.sandbox: none to accept that`,
  };
}

/** The agent's image present, or its Dockerfile's base images present (nothing is built or pulled). */
async function imageLine(docker: Docker, agent: AgentConfig, baseDir: string): Promise<CheckLine> {
  try {
    if (agent.build) {
      const context = resolve(baseDir, agent.build.context);
      const text = readFileSync(resolve(context, agent.build.dockerfile), "utf8");
      const bases = baseImages(text);
      const absent: string[] = [];
      for (const ref of bases)
        await inspectImage(imageEngine(docker), ref).catch((e: unknown) => {
          if (e instanceof ImageMissingError) absent.push(ref);
          else throw e;
        });
      if (absent.length > 0)
        return {
          what: "image",
          ok: false,
          text: `the Dockerfile's base image${absent.length > 1 ? "s" : ""} ${absent.join(", ")} ${absent.length > 1 ? "are" : "is"} not on this machine and no registry is asked: build or docker load ${absent.length > 1 ? "them" : "it"} first${absent.includes("mlebench-env") ? " (mlebench-env: medalist mlebench-env build, see docs/mlebench.md)" : ""}`,
        };
      return {
        what: "image",
        ok: true,
        text: bases.length
          ? `buildable: the base image${bases.length > 1 ? "s" : ""} ${bases.join(", ")} ${bases.length > 1 ? "are" : "is"} on this machine`
          : "buildable: the Dockerfile names no base image to fetch",
      };
    }
    const ref = agent.image!;
    const info = await inspectImage(imageEngine(docker), ref);
    return { what: "image", ok: true, text: `${ref} is on this machine (${info.id.slice(0, 19)})` };
  } catch (e) {
    if (e instanceof ImageMissingError || e instanceof UserError)
      return { what: "image", ok: false, text: e.message };
    return { what: "image", ok: false, text: `cannot inspect the image (${errorMessage(e)})` };
  }
}

/** Every check (`machine`: this machine's too), one line each; nothing runs or is built. */
export async function checkSuite(loaded: LoadedConfig, opts: CheckOptions): Promise<CheckLine[]> {
  const { lines, session, agent } = staticChecks(loaded);
  if (!opts.machine || !session) return lines;
  return [...lines, ...(await machineChecks(loaded, session, agent, opts))];
}
