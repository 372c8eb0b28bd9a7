import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { spawnSync } from "node:child_process";
import { UserError } from "../errors.js";
import { errorMessage } from "../util/error-message.js";
import type { ImageEngine } from "../execute/container/engine.js";
import {
  AgentBuildError,
  buildImage,
  inspectImage,
  ImageMissingError,
  type ImageInfo,
} from "../execute/container/image.js";

/**
 * `medalist mlebench-env build`: an offline `mlebench-env` base image that upstream's agent
 * Dockerfiles build on unchanged (`FROM mlebench-env`, `conda run -n agent pip install …`), or
 * upstream's own environment/Dockerfile from a checkout. The image's files are written here.
 */

export const MLEBENCH_ENV_TAG = "mlebench-env";
/** The root filesystem imported as the base layer, kept so a rebuild imports nothing. */
export const ROOTFS_BASE_TAG = "mlebench-env-base:bookworm";

/** The debootstrap root filesystem scripts/mlebench-standin-image.sh caches (ci-docker.sh makes it). */
export function cachedRootfs(env: NodeJS.ProcessEnv = process.env): string {
  const cache = env.MEDALIST_CACHE ?? join(homedir(), ".cache", "medalist");
  return join(cache, "mlebench-standin", "bookworm-minbase-v1.tar");
}

/** A pip wheel on this machine (Debian's python3-pip-whl, else the host python's ensurepip), or null. */
export function findPipWheel(): string | null {
  const dirs = ["/usr/share/python-wheels"];
  const py = spawnSync(
    "python3",
    ["-c", "import ensurepip, os; print(os.path.dirname(ensurepip.__file__))"],
    {
      encoding: "utf8",
      timeout: 10_000,
    },
  );
  if (py.status === 0 && py.stdout.trim()) dirs.push(join(py.stdout.trim(), "_bundled"));
  for (const dir of dirs) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    const wheel = names
      .filter((n) => /^pip-[0-9][^/]*-py3-none-any\.whl$/.test(n))
      .sort()
      .pop();
    if (wheel) return join(dir, wheel);
  }
  return null;
}

/** A literal "$" inside the shell texts below (their `${…}` are the shell's). */
const D = "$";

/** The conda the image offers: environments are folders of /opt/conda/envs; `agent` is a venv with pip. */
const CONDA = String.raw`#!/bin/bash
# conda as agent Dockerfiles and start.sh files use it (written by medalist mlebench-env build):
# each environment is a folder of /opt/conda/envs holding a Python venv; base is the image's python3.
# Nothing is downloaded: pip installs what it can reach (local wheels, or an index when the build has a network).
prefix() {
  case "$1" in
    base) echo /opt/conda ;;
    *) [ -d "/opt/conda/envs/$1" ] && echo "/opt/conda/envs/$1" || return 1 ;;
  esac
}
envs() { echo "base  /opt/conda"; for d in /opt/conda/envs/*/; do [ -d "$d" ] && echo "$(basename "$d")  ${D}{d%/}"; done; }
case "${D}{1:-}" in
  shell.bash | shell.posix)
    [ "${D}{2:-}" = hook ] || { echo "conda: only 'conda shell.bash hook' is supported" >&2; exit 2; }
    cat <<'HOOK'
conda() {
  case "${D}{1:-}" in
    activate)
      local p
      p="$(command conda prefix "${D}{2:-base}")" || { echo "EnvironmentNameNotFound: ${D}{2:-base}" >&2; return 1; }
      [ -n "${D}{CONDA_PREFIX:-}" ] && [ "$CONDA_PREFIX" != /opt/conda ] && PATH="${D}{PATH//$CONDA_PREFIX\/bin:/}"
      export CONDA_DEFAULT_ENV="${D}{2:-base}" CONDA_PREFIX="$p"
      [ "$p" != /opt/conda ] && export PATH="$p/bin:$PATH"
      hash -r ;;
    deactivate)
      [ -n "${D}{CONDA_PREFIX:-}" ] && PATH="${D}{PATH//$CONDA_PREFIX\/bin:/}"
      unset CONDA_DEFAULT_ENV CONDA_PREFIX
      hash -r ;;
    *) command conda "$@" ;;
  esac
}
HOOK
    ;;
  prefix) prefix "${D}{2:-base}" ;;
  run)
    shift
    name=base
    while [ $# -gt 0 ]; do
      case "$1" in
        -n | --name) name="${D}{2:-}"; shift 2 ;;
        --no-capture-output | --live-stream | -s | --no-banner) shift ;;
        *) break ;;
      esac
    done
    p="$(prefix "$name")" || { echo "EnvironmentNameNotFound: $name" >&2; exit 1; }
    [ "$p" != /opt/conda ] && export PATH="$p/bin:$PATH"
    export CONDA_DEFAULT_ENV="$name" CONDA_PREFIX="$p"
    exec "$@" ;;
  create)
    shift
    name=""
    while [ $# -gt 0 ]; do
      case "$1" in
        -n | --name) name="${D}{2:-}"; shift 2 ;;
        *) shift ;;
      esac
    done
    [ -n "$name" ] || { echo "conda create: give -n NAME" >&2; exit 2; }
    d="/opt/conda/envs/$name"
    [ -d "$d" ] && { echo "conda create: $name exists"; exit 0; }
    wheel="$(ls /opt/conda/pkgs/pip-*.whl 2>/dev/null | head -n1)"
    if [ -n "$wheel" ]; then
      python3 -m venv --without-pip "$d" && "$d/bin/python" "$wheel/pip" install -q --no-index --no-cache-dir "$wheel"
    else
      python3 -m venv "$d"
    fi ;;
  env | info)
    case "${D}{2:-}" in list | --envs) envs ;; *) echo "conda (mlebench-env, medalist): python $(python3 -c 'import sys; print(sys.version.split()[0])')"; envs ;; esac ;;
  clean | tos | init | config) exit 0 ;;
  --version | -V) echo "conda 0.0 (mlebench-env built by medalist: venvs, no package downloads)" ;;
  activate | deactivate)
    echo "conda: run 'eval \"\$(conda shell.bash hook)\"' first" >&2
    exit 1 ;;
  *)
    echo "conda: '$*' is not supported in this image (environments are venvs: use pip in them)" >&2
    exit 2 ;;
esac
`;

const ENTRYPOINT = String.raw`#!/bin/bash
# mlebench-env's entrypoint (root), as upstream's: opens /home to every user except /home/data, then
# serves :5000 from /private. Medalist never runs it: its own format check answers localhost:5000.
set -x
{
  mkdir -p /home/logs
  find /home -path /home/data -prune -o -exec chmod a+rw {} \;
  ls -l /home
  python3 /private/grading_server.py
} 2>&1 | tee /home/logs/entrypoint.log
`;

const SERVER = `# This image's :5000 holds no answers and grades nothing (Medalist checks submissions outside it).
import json
from http.server import BaseHTTPRequestHandler, HTTPServer


class Handler(BaseHTTPRequestHandler):
    def answer(self, code, body):
        data = (json.dumps(body) + "\\n").encode()
        self.send_response(code)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/health":
            return self.answer(200, {"status": "running"})
        self.answer(404, {"error": "not found"})

    def do_POST(self):
        self.answer(503, {"error": "mlebench-env (medalist): no grader in this image"})


HTTPServer(("0.0.0.0", 5000), Handler).serve_forever()
`;

const VALIDATE = String.raw`#!/bin/bash
# Sends a submission file to the format check at localhost:5000 and prints its answer.
# Usage: validate_submission.sh SUBMISSION_FILE
file="${D}{1:-}"
[ -n "$file" ] || { echo "usage: $0 SUBMISSION_FILE"; exit 1; }
[ -f "$file" ] || { echo "no such file: $file"; exit 1; }
if command -v curl >/dev/null 2>&1; then
  curl -sS -X POST -F "file=@${D}{file}" http://localhost:5000/validate
else
  python3 - "$file" <<'PY'
import sys, urllib.request, uuid
path = sys.argv[1]
b = uuid.uuid4().hex
body = (f'--{b}\r\nContent-Disposition: form-data; name="file"; filename="submission.csv"\r\n'
        'Content-Type: text/csv\r\n\r\n').encode() + open(path, "rb").read() + f"\r\n--{b}--\r\n".encode()
req = urllib.request.Request("http://localhost:5000/validate", data=body,
                             headers={"Content-Type": f"multipart/form-data; boundary={b}"})
try:
    print(urllib.request.urlopen(req).read().decode())
except urllib.error.HTTPError as e:
    print(e.read().decode())
PY
fi
`;

/** The Dockerfile over `base`; the files it copies are in the context's medalist/ folder. */
export function envDockerfile(base: string): string {
  return `# mlebench-env for agents in upstream's agents/<id> format, written by medalist mlebench-env build.
FROM ${base}
ENV PATH=/opt/conda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
ENV LANG=C.UTF-8
USER root
COPY medalist/ /tmp/medalist-env/
RUN for c in bash python3; do command -v $c >/dev/null || { echo "the base image has no $c" >&2; exit 1; }; done \\
 && mkdir -p /opt/conda/bin /opt/conda/envs /opt/conda/pkgs /home/data /home/submission /home/logs /home/code /home/agent \\
 && install -m 755 /tmp/medalist-env/conda /opt/conda/bin/conda \\
 && install -m 755 /tmp/medalist-env/entrypoint.sh /entrypoint.sh \\
 && install -m 755 /tmp/medalist-env/validate_submission.sh /home/validate_submission.sh \\
 && install -m 644 /tmp/medalist-env/instructions.txt /home/instructions.txt \\
 && mkdir -p /private && chmod 700 /private && install -m 600 /tmp/medalist-env/grading_server.py /private/grading_server.py \\
 && (cp /tmp/medalist-env/wheels/pip-*.whl /opt/conda/pkgs/ 2>/dev/null || true)
RUN conda create -n agent -y && conda create -n mleb -y && conda run -n agent pip --version
RUN id nonroot >/dev/null 2>&1 || useradd -m -s /bin/bash nonroot \\
 && rm -rf /tmp/medalist-env
LABEL medalist.mlebench-env="1"
WORKDIR /home
ENTRYPOINT ["/entrypoint.sh"]
`;
}

/** Writes the build context (Dockerfile, medalist/…) into `dir`. */
export function writeEnvContext(dir: string, base: string, pipWheel: string | null): void {
  const files = join(dir, "medalist");
  mkdirSync(join(files, "wheels"), { recursive: true });
  writeFileSync(join(dir, "Dockerfile"), envDockerfile(base));
  writeFileSync(join(files, "conda"), CONDA);
  writeFileSync(join(files, "entrypoint.sh"), ENTRYPOINT);
  writeFileSync(join(files, "grading_server.py"), SERVER);
  writeFileSync(join(files, "validate_submission.sh"), VALIDATE);
  writeFileSync(
    join(files, "instructions.txt"),
    "mlebench-env (medalist): each run's instructions are mounted over this file.\n",
  );
  if (pipWheel) copyFileSync(pipWheel, join(files, "wheels", basename(pipWheel)));
}

export interface EnvBuildOptions {
  /** The container engine the image is built in (the docker backend's daemon). */
  engine: ImageEngine;
  tag: string;
  /** A local image to build on (bash, python3). */
  base?: string;
  /** A root filesystem tarball to import as the base layer (default: the cached debootstrap one). */
  rootfs?: string;
  /** The pip wheel for the agent env (default: findPipWheel()). */
  pipWheel?: string;
  /** An MLE-bench checkout: build its environment/Dockerfile instead (needs the network). */
  from?: string;
  log: (line: string) => void;
}

/** The base image to build on: --base, else a rootfs imported once (--rootfs, or the cached one). */
async function baseImage(o: EnvBuildOptions): Promise<string> {
  const { engine, log } = o;
  if (o.base) {
    try {
      await inspectImage(engine, o.base);
    } catch (e) {
      if (e instanceof ImageMissingError)
        throw new UserError(
          `--base ${o.base}: no such image on this Docker daemon; docker pull or docker load it first (any image with bash and python3)`,
        );
      throw e;
    }
    return o.base;
  }
  if (!o.rootfs) {
    const kept = await inspectImage(engine, ROOTFS_BASE_TAG).catch(() => null);
    if (kept) {
      log(`base: ${ROOTFS_BASE_TAG} (imported earlier)`);
      return ROOTFS_BASE_TAG;
    }
  }
  const file = o.rootfs ? resolve(o.rootfs) : cachedRootfs();
  if (!existsSync(file))
    throw new UserError(
      o.rootfs
        ? `--rootfs ${o.rootfs}: no such file`
        : `no base to build on: pass --base IMAGE (a local image with bash and python3, e.g. debian:bookworm after docker pull), ` +
            `--rootfs TAR (a root filesystem tarball, e.g. debootstrap's), or --from an MLE-bench checkout (needs the network); ` +
            `scripts/mlebench-standin-image.sh debootstraps one into ${file}`,
    );
  log(`base: importing the root filesystem ${file} as ${ROOTFS_BASE_TAG}`);
  try {
    await engine.importRootfs(file, ROOTFS_BASE_TAG);
  } catch (e) {
    throw new UserError(`importing ${file} failed: ${errorMessage(e)}`, 1);
  }
  return ROOTFS_BASE_TAG;
}

/** Builds the image; a failed build is one sentence with the failing step's own error line. */
export async function buildMlebenchEnv(o: EnvBuildOptions): Promise<ImageInfo> {
  if (o.from) return buildUpstream(o, o.from);
  const base = await baseImage(o);
  const wheel = o.pipWheel ? resolve(o.pipWheel) : findPipWheel();
  if (o.pipWheel && !existsSync(wheel!)) throw new UserError(`--pip-wheel ${o.pipWheel}: no such file`);
  o.log(
    wheel
      ? `pip for the agent env from ${wheel}`
      : "no pip wheel on this machine (--pip-wheel FILE): the agent env gets pip from the base image's ensurepip, if it has one",
  );
  const dir = mkdtempSync(join(tmpdir(), "medalist-mlebench-env-"));
  try {
    writeEnvContext(dir, base, wheel);
    return await buildImage(
      o.engine,
      { context: dir, dockerfile: "Dockerfile", tag: o.tag, args: {} },
      o.log,
      undefined,
      "none",
    );
  } catch (e) {
    if (e instanceof AgentBuildError) throw new UserError(`${o.tag} did not build: ${e.message}`, 1);
    if (e instanceof UserError) throw e;
    throw new UserError(`${o.tag} did not build: ${errorMessage(e)}`, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Upstream's own environment/Dockerfile, from its checkout (ubuntu, apt, Miniconda, PyPI: the network). */
async function buildUpstream(o: EnvBuildOptions, checkout: string): Promise<ImageInfo> {
  const dir = resolve(checkout);
  if (!existsSync(join(dir, "environment", "Dockerfile")))
    throw new UserError(
      `--from ${checkout}: no environment/Dockerfile there; give the root of an MLE-bench checkout`,
    );
  o.log(
    `building upstream's ${join(dir, "environment", "Dockerfile")} as ${o.tag}: it downloads ubuntu:20.04, apt packages, Miniconda and PyPI packages`,
  );
  try {
    return await buildImage(
      o.engine,
      {
        context: dir,
        dockerfile: "environment/Dockerfile",
        tag: o.tag,
        args: { INSTALL_HEAVY_DEPENDENCIES: "false" },
      },
      o.log,
    );
  } catch (e) {
    const why = e instanceof AgentBuildError ? e.message : errorMessage(e);
    throw new UserError(
      `upstream's environment/Dockerfile did not build: ${why}; it needs the network (Docker Hub, apt, Miniconda, PyPI). ` +
        `Without one, run medalist mlebench-env build without --from`,
      1,
    );
  }
}
