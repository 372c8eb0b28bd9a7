// An MLE-bench agent's /home as upstream's entrypoint leaves it: every file under it readable and
// writable by the agent's user (`chmod a+rw`, /home/data excepted). Upstream's entrypoint does that
// at start as root and then serves answers; Medalist never runs that entrypoint, so the same chmod
// is one layer built on top of the agent's image (cached by the daemon like any build step).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { AgentBuildError, buildImage, type ImageInfo } from "./image.js";
import type { BuildLimits } from "./settings.js";
import type { ImageEngine } from "./engine.js";

/** The layer's Dockerfile: chmod as root, then the image's own USER again. */
export function homeLayerDockerfile(base: ImageInfo): string {
  const lines = [
    `FROM ${base.id}`,
    "USER root",
    "RUN find /home -path /home/data -prune -o -exec chmod a+rw {} +",
  ];
  if (base.user) lines.push(`USER ${base.user}`);
  return lines.join("\n") + "\n";
}

/** The tag of the layered image: the agent's tag with "-home". */
export function homeLayerTag(ref: string): string {
  const at = ref.lastIndexOf(":");
  const hasTag = at > ref.lastIndexOf("/");
  return hasTag ? `${ref}-home` : `${ref}:home`;
}

/** Builds the layer over `base`; the result keeps the agent's ENTRYPOINT (inspected again). */
export async function withWritableHome(
  engine: ImageEngine,
  base: ImageInfo,
  log: (line: string) => void,
  limits?: BuildLimits,
): Promise<ImageInfo> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "medalist-home-layer-"));
  try {
    await writeFile(path.join(dir, "Dockerfile"), homeLayerDockerfile(base));
    const tag = homeLayerTag(base.ref);
    log(`making /home writable for the agent's user as MLE-bench's entrypoint does: ${tag}`);
    try {
      return await buildImage(
        engine,
        { context: dir, dockerfile: "Dockerfile", args: {}, tag },
        () => {},
        limits,
        // find and chmod need no network.
        "none",
      );
    } catch (e) {
      if (!(e instanceof AgentBuildError)) throw e;
      throw new AgentBuildError(
        `making /home writable in the agent's image failed (it needs find and chmod): ${e.message}`,
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
