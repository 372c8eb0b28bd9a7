import { readdir } from "node:fs/promises";
import path from "node:path";
import { errorMessage } from "../../util/error-message.js";
import type { BuildLimits, ImageBuild, ImageSettings } from "./settings.js";
import type { EngineEvent, ImageEngine } from "./engine.js";

export interface ImageInfo {
  /** The tag asked for (or built). */
  ref: string;
  /** Content-addressed image id (sha256:…): what containers are created from. */
  id: string;
  /** Registry digest (repo@sha256:…) when the image came from a registry, else the id. */
  digest: string;
  /** The image's ENTRYPOINT (null: none). */
  entrypoint?: string[] | null;
  /** The image's USER ("" or absent: root). */
  user?: string;
}

/** The image is not on this runner and could not be pulled: not worth retrying. */
export class ImageMissingError extends Error {
  constructor(ref: string, pullError?: string) {
    super(
      `image ${ref} is not on this runner` +
        (pullError === undefined ? "" : ` and could not be pulled (${pullError})`) +
        ": build it or docker load it on the runner, or set agent.build",
    );
    this.name = "ImageMissingError";
  }
}

/** The agent's own Dockerfile failed to build: the agent's failure, not the runner's. */
export class AgentBuildError extends Error {
  constructor(
    message: string,
    /** How the runs' cause starts: the image did not build, or it built but cannot run. */
    readonly what = "the agent image did not build",
  ) {
    super(message);
    this.name = "AgentBuildError";
  }
}

export async function inspectImage(engine: ImageEngine, ref: string): Promise<ImageInfo> {
  const info = await engine.inspect(ref);
  if (!info) throw new ImageMissingError(ref);
  return {
    ref,
    id: info.id,
    digest: info.repoDigests[0] ?? info.id,
    entrypoint: info.entrypoint,
    user: info.user,
  };
}

/** Files of a build context, relative to it (the engine applies .dockerignore to this list). */
async function contextFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() || e.isSymbolicLink())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join("/"));
}

/** How to get a base image that is not on the runner: mlebench-env has its own command. */
export function baseImageHint(ref: string): string {
  return ref.split(":")[0] === "mlebench-env"
    ? "build it with: medalist mlebench-env build (docs/mlebench.md)"
    : `docker pull it where a registry is reachable, or docker load it on the runner`;
}

// Docker's colour codes around a build step's stderr.
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

/**
 * The legacy builder's output, step by step, so that a failed build is said in one line: the
 * failing step, its exit code and its own last output line (e.g. "exec: pip: not found"), or the
 * missing base image with how to get it.
 */
export class BuildSteps {
  private step: string | null = null;
  private last: string | null = null;
  /** The step's last stderr line (the builder colours stderr red), preferred over stdout's. */
  private lastErr: string | null = null;
  private inErr = false;

  add(raw: string): void {
    // Whether the line's text is stderr: the colour in force where its text starts.
    let err = this.inErr;
    let seen = false;
    // eslint-disable-next-line no-control-regex
    for (const piece of raw.split(/(\x1b\[[0-9;]*m)/)) {
      if (piece.startsWith("\x1b[")) {
        this.inErr = piece === "\x1b[91m";
        if (!seen) err = this.inErr;
      } else if (piece.trim() !== "") seen = true;
    }
    const line = raw.replace(ANSI, "").trim();
    if (line === "") return;
    if (/^Step \d+\/\d+ : /.test(line)) {
      this.step = line;
      this.last = this.lastErr = null;
    } else if (!/^(---> |Removing intermediate container |Sending build context|Successfully )/.test(line)) {
      this.last = line;
      if (err) this.lastErr = line;
    }
  }

  /** One line for the daemon's error `error`, in terms of the step that failed. */
  cause(error: string): string {
    const daemon = error.replace(ANSI, "").split("\n")[0].trim();
    const m = this.step ? /^Step (\d+\/\d+) : (.*)$/.exec(this.step) : null;
    if (!m) return daemon;
    const [, at, instruction] = m;
    const from = /^FROM\s+(?:--platform=\S+\s+)?(\S+)/i.exec(instruction);
    if (from)
      return `the base image ${from[1]} (FROM, step ${at}) is not on this runner and could not be pulled (${daemon}); ${baseImageHint(from[1])}`;
    const code = /returned a non-zero code: (\d+)/.exec(daemon)?.[1];
    const shown = instruction.replace(/\s+/g, " ");
    const what = `step ${at} (${shown.length > 120 ? `${shown.slice(0, 119)}…` : shown})`;
    const own = this.lastErr ?? this.last;
    if (code === undefined) return `${what} failed: ${own ?? daemon}`;
    return `${what} exited with code ${code}${own ? `: ${own}` : ""}`;
  }
}

/** Builds the agent image, streaming the build output line by line to `log`. */
export async function buildImage(
  engine: ImageEngine,
  build: ImageBuild,
  log: (line: string) => void,
  limits?: BuildLimits,
  network?: ImageSettings["buildNetwork"],
): Promise<ImageInfo> {
  const files = await contextFiles(build.context);
  const steps = new BuildSteps();
  let failed: string | null = null;
  await engine.build(
    {
      context: build.context,
      files,
      tag: build.tag,
      dockerfile: build.dockerfile,
      target: build.target,
      args: build.args,
      labels: { "medalist.built": "true" },
      limits,
      network,
    },
    (event: EngineEvent) => {
      if (event.error) failed = event.errorDetail?.message ?? event.error;
      const text = event.stream ?? event.status ?? event.error;
      if (text)
        for (const line of text.split("\n")) {
          if (line.trim() === "") continue;
          log(line.trimEnd());
          if (!event.error) steps.add(line);
        }
    },
  );
  if (failed !== null) throw new AgentBuildError(steps.cause(failed));
  return inspectImage(engine, build.tag);
}

/** The image for the runs: built when `settings.build` is given, else the existing tag. */
export async function prepareImage(
  engine: ImageEngine,
  settings: ImageSettings,
  log: (line: string) => void,
): Promise<ImageInfo> {
  if (settings.build) {
    const net = settings.buildNetwork ?? "bridge";
    log(
      `building ${settings.build.tag} from ${settings.build.context} (${settings.build.dockerfile}); its RUN steps run as the Dockerfile's USER (root unless it says) with the ${net} network (docker.buildNetwork)` +
        (settings.network === "none" && net !== "none" ? ", although the runs get none" : ""),
    );
    try {
      return await buildImage(engine, settings.build, log, settings.buildLimits, settings.buildNetwork);
    } catch (e) {
      if (e instanceof AgentBuildError) throw e;
      throw new Error(`building the agent image failed: ${errorMessage(e)}`);
    }
  }
  if (!settings.image) throw new Error("the docker executor needs agent.image or agent.build");
  try {
    return await inspectImage(engine, settings.image);
  } catch (e) {
    if (!(e instanceof ImageMissingError) || settings.pull === false) throw e;
  }
  // One line when the pull fails (the error says it was tried); the pull's own lines when it works.
  try {
    await pullImage(engine, settings.image, log);
  } catch (e) {
    // an engine's "(HTTP code 500) server error - " says nothing the daemon's words do not.
    const why = errorMessage(e)
      .split("\n")[0]
      .replace(/^\(HTTP code \d+\)[^-]*- /, "");
    throw new ImageMissingError(settings.image, why);
  }
  log(`pulled ${settings.image}`);
  return inspectImage(engine, settings.image);
}

async function pullImage(engine: ImageEngine, ref: string, log: (line: string) => void): Promise<void> {
  let last = "";
  let failed: string | null = null;
  await engine.pull(ref, (event: EngineEvent) => {
    if (event.error) {
      failed ??= event.error;
      return;
    }
    // Layer progress repeats a lot: log each distinct status once.
    const line = [event.id, event.status].filter(Boolean).join(": ");
    if (
      line &&
      line !== last &&
      !event.status?.startsWith("Downloading") &&
      !event.status?.startsWith("Extracting")
    )
      log(line);
    last = line;
  });
  if (failed !== null) throw new Error(failed);
}
