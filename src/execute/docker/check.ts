// `medalist check` for the docker executor: the daemon (and the runtime the config names), the
// agent's image or its Dockerfile's base images, and the sandbox. Nothing is built or pulled.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type Docker from "dockerode";
import type { DockerConfig } from "../../config/blocks/docker.js";
import type { AgentConfig } from "../../config/parts.js";
import { UserError } from "../../errors.js";
import { errorMessage } from "../../util/error-message.js";
import type { CheckLine } from "../backend.js";
import { ImageMissingError, inspectImage } from "../container/image.js";
import { connectDocker } from "./client.js";
import { imageEngine } from "./engine.js";
import { checkRuntime } from "./setup.js";

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

/** `medalist check`'s docker lines: the daemon and its runtime, the image, the sandbox. */
export async function dockerMachineCheck({
  agent,
  block,
  baseDir,
}: {
  agent: AgentConfig | null;
  block: DockerConfig;
  baseDir: string;
}): Promise<CheckLine[]> {
  const lines: CheckLine[] = [];
  let docker: Docker | null = null;
  try {
    docker = await connectDocker({ attempts: 1 });
    const runtime = block.runtime;
    if (runtime) await checkRuntime(docker, runtime);
    lines.push({
      what: "executor",
      ok: true,
      text: `docker: the daemon answers${runtime ? `, runtime ${runtime} is registered` : ""}`,
    });
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    lines.push({ what: "executor", ok: false, text: e.message });
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
    text: `each run in its own container (${block.runtime ? `runtime ${block.runtime}` : "the daemon's default runtime"})`,
  });
  return lines;
}
