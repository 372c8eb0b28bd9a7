import type Docker from "dockerode";
import type { EngineEvent, ImageEngine } from "../container/engine.js";
import { statusCode } from "./client.js";

/** Follows a build or pull stream to its end, each event to `onEvent`. */
function follow(
  docker: Docker,
  stream: NodeJS.ReadableStream,
  onEvent: (e: EngineEvent) => void,
): Promise<void> {
  return new Promise((resolve, reject) =>
    docker.modem.followProgress(stream, (err: Error | null) => (err ? reject(err) : resolve()), onEvent),
  );
}

/** The shared container code's image calls, over the Docker API. */
export function imageEngine(docker: Docker): ImageEngine {
  return {
    async inspect(ref) {
      try {
        const info = await docker.getImage(ref).inspect();
        const entrypoint = info.Config?.Entrypoint;
        return {
          id: info.Id,
          repoDigests: info.RepoDigests ?? [],
          entrypoint: Array.isArray(entrypoint) && entrypoint.length > 0 ? entrypoint : null,
          user: info.Config?.User ?? "",
        };
      } catch (e) {
        if (statusCode(e) === 404) return null;
        throw e;
      }
    },
    async build(b, onEvent) {
      // The build's steps run in containers too: bounded in memory (no swap) and CPU time.
      const bounds = b.limits
        ? {
            memory: b.limits.memory,
            memswap: b.limits.memory,
            cpuperiod: 100_000,
            cpuquota: Math.max(1000, Math.round(b.limits.cpus * 100_000)),
          }
        : {};
      const stream = await docker.buildImage({ context: b.context, src: b.files }, {
        ...bounds,
        ...(b.network ? { networkmode: b.network } : {}),
        t: b.tag,
        dockerfile: b.dockerfile,
        target: b.target,
        buildargs: b.args,
        labels: b.labels,
        rm: true,
        forcerm: true,
      } as Docker.ImageBuildOptions);
      await follow(docker, stream, onEvent);
    },
    async pull(ref, onEvent) {
      await follow(docker, await docker.pull(ref), onEvent);
    },
  };
}
