// What the shared container steps (image build or pull, the home layer) read of a container
// backend's settings; docker/settings.ts's DockerSettings extends it, as any other container
// backend's settings would.

/** A build of the agent image from a Dockerfile; the result is tagged `tag`. */
export interface ImageBuild {
  context: string;
  dockerfile: string;
  target?: string;
  args: Record<string, string>;
  tag: string;
}

/** The image build's memory (no swap, bytes) and CPUs. */
export interface BuildLimits {
  memory: number;
  cpus: number;
}

/** A container backend's image settings. */
export interface ImageSettings {
  /** An existing image tag; used when no build is given. */
  image?: string;
  /** Build the image from a Dockerfile; the result is tagged `build.tag`. */
  build?: ImageBuild;
  /** Pull `image` when it is not on the runner. Default true. */
  pull?: boolean;
  /** The network of the image build's RUN steps (docker.buildNetwork). Default the daemon's (bridge). */
  buildNetwork?: "bridge" | "none";
  /** The image build's memory (no swap) and CPUs; setup sets them from the runner. Default none. */
  buildLimits?: BuildLimits;
  /** The runs' network (the build's log line says when the build gets more). */
  network: "bridge" | "none";
}
