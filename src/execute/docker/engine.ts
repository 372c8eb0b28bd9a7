import { createReadStream } from "node:fs";
import type Docker from "dockerode";
import type { EngineEvent, HelperEngine, ImageEngine } from "../container/engine.js";
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
    async importRootfs(file, tag) {
      const [repo, version] = tag.split(":");
      const stream = await docker.importImage(createReadStream(file) as unknown as string, {
        repo,
        tag: version,
      });
      await follow(docker, stream, () => {});
    },
  };
}

/** Docker's log stream without its 8-byte frame headers. */
function unframe(raw: Buffer): string {
  const parts: string[] = [];
  for (let i = 0; i + 8 <= raw.length;) {
    const size = raw.readUInt32BE(i + 4);
    parts.push(raw.subarray(i + 8, i + 8 + size).toString("utf8"));
    i += 8 + size;
  }
  return parts.join("");
}

/** Helper containers (the localhost:5000 sidecar) over the Docker API, hardened as HelperSpec says. */
export function helperEngine(docker: Docker): HelperEngine {
  return {
    async removeNamed(name) {
      await docker
        .getContainer(name)
        .remove({ force: true, v: true })
        .catch((e: unknown) => {
          if (statusCode(e) !== 404) throw e;
        });
    },
    async create(spec) {
      const container = await docker.createContainer({
        name: spec.name,
        Image: spec.image,
        Entrypoint: spec.entrypoint,
        User: spec.user,
        WorkingDir: spec.workingDir,
        Env: spec.env,
        Labels: spec.labels,
        HostConfig: {
          Mounts: [{ Type: "bind", Source: spec.mount.source, Target: spec.mount.target, ReadOnly: true }],
          NetworkMode: spec.network,
          Runtime: spec.runtime,
          Privileged: false,
          ReadonlyRootfs: true,
          CapDrop: ["ALL"],
          SecurityOpt: ["no-new-privileges:true"],
          Init: true,
          Memory: spec.memoryBytes,
          MemorySwap: spec.memoryBytes,
          PidsLimit: spec.pids,
          NanoCpus: Math.round(spec.cpus * 1e9),
          LogConfig: { Type: "json-file", Config: { "max-size": "1m", "max-file": "1" } },
        },
      });
      return {
        id: container.id,
        start: async () => void (await container.start()),
        remove: async () => void (await container.remove({ force: true, v: true })),
        async state() {
          const s = (await container.inspect()).State;
          return { running: s.Running, exitCode: s.ExitCode ?? null };
        },
        async output() {
          const raw = (await container.logs({
            stdout: true,
            stderr: true,
            follow: false,
          })) as unknown as Buffer;
          return unframe(raw);
        },
      };
    },
  };
}
