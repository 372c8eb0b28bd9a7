/**
 * What the shared container code (image builds, the home layer) needs of a container engine.
 * docker/engine.ts implements it over the Docker API; another engine (podman) would implement
 * the same few calls.
 */

/** One event of a build or pull stream: a line of output, a status, or the error that ended it. */
export interface EngineEvent {
  stream?: string;
  status?: string;
  id?: string;
  error?: string;
  errorDetail?: { message?: string };
}

/** An image as the engine describes it. */
export interface EngineImage {
  /** Content-addressed id (sha256:…). */
  id: string;
  /** Registry digests (repo@sha256:…), when it came from a registry. */
  repoDigests: string[];
  entrypoint: string[] | null;
  /** The image's USER ("" or absent: root). */
  user: string;
}

/** A build: the context's files (relative paths) and the build's settings. */
export interface EngineBuild {
  context: string;
  files: string[];
  tag: string;
  dockerfile: string;
  target?: string;
  args?: Record<string, string>;
  labels: Record<string, string>;
  /** Bounds of each build step: bytes of memory (no swap) and CPUs. */
  limits?: { memory: number; cpus: number };
  network?: "none" | "bridge";
}

export interface ImageEngine {
  /** The image, or null when the engine does not have it. */
  inspect(ref: string): Promise<EngineImage | null>;
  /** Builds, calling `onEvent` for each event; resolves at the end of the stream. */
  build(build: EngineBuild, onEvent: (e: EngineEvent) => void): Promise<void>;
  /** Pulls `ref`, calling `onEvent` for each event; resolves at the end of the stream. */
  pull(ref: string, onEvent: (e: EngineEvent) => void): Promise<void>;
  /** Imports a root filesystem tarball as the image `tag` (name:version). */
  importRootfs(file: string, tag: string): Promise<void>;
}

/** A command started in a running container, its stdio attached (Docker's exec; podman's compat API). */
export interface ContainerExec {
  /** The attached stream: stdin in, stdout/stderr out in 8-byte-header frames (1 stdout, 2 stderr). */
  start(opts: { hijack: true; stdin: true }): Promise<NodeJS.ReadWriteStream>;
  /** The command's exit code once it ended (null or absent while it runs). */
  inspect(): Promise<{ ExitCode?: number | null }>;
}

/** A running container a command can be started in (the validation relay's). */
export interface ExecTarget {
  exec(opts: {
    Cmd: string[];
    AttachStdin: boolean;
    AttachStdout: boolean;
    AttachStderr: boolean;
    Tty: boolean;
    Env: string[];
    User?: string;
  }): Promise<ContainerExec>;
}

/**
 * A helper container beside the agent's (the localhost:5000 sidecar). The engine runs it
 * hardened whatever the spec: no capabilities, no new privileges, read-only root filesystem, an
 * init, swap no larger than its memory, a small log.
 */
export interface HelperSpec {
  name: string;
  image: string;
  entrypoint: string[];
  user: string;
  workingDir: string;
  env: string[];
  labels: Record<string, string>;
  /** One read-only bind mount. */
  mount: { source: string; target: string };
  /** The network ("none", "bridge", …). */
  network: string;
  /** The OCI runtime; default the engine's. */
  runtime?: string;
  memoryBytes: number;
  pids: number;
  cpus: number;
}

export interface HelperContainer {
  readonly id: string;
  start(): Promise<void>;
  /** Removes it (running or not) with its volumes. */
  remove(): Promise<void>;
  state(): Promise<{ running: boolean; exitCode: number | null }>;
  /** Its stdout and stderr so far. */
  output(): Promise<string>;
}

export interface HelperEngine {
  /** Removes the container of that name, when there is one. */
  removeNamed(name: string): Promise<void>;
  create(spec: HelperSpec): Promise<HelperContainer>;
}
