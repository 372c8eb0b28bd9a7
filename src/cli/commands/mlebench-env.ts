import { backendOf } from "../../execute/backends.js";
import { errorMessage } from "../../util/error-message.js";
import {
  buildMlebenchEnv,
  cachedRootfs,
  MLEBENCH_ENV_TAG,
  ROOTFS_BASE_TAG,
} from "../../mlebench/env-image.js";
import { parseCommandArgs, UserError, type Command } from "../command.js";

export const mlebenchEnvCommand: Command = {
  name: "mlebench-env",
  summary: "Build the mlebench-env base image that MLE-bench agent Dockerfiles start FROM (offline)",
  usage: `Usage: medalist mlebench-env build [--tag TAG] [--base IMAGE | --rootfs TAR] [--pip-wheel FILE]
       medalist mlebench-env build --from MLE-BENCH-CHECKOUT [--tag TAG]

Builds the image agents in upstream's agents/<id> format start FROM (tag: mlebench-env), without a
registry or the network: conda (environments are Python venvs: \`conda run -n agent pip …\`,
\`conda activate agent\` after \`eval "$(conda shell.bash hook)"\`), an \`agent\` environment with
python and pip, /home/{data,submission,logs,code,agent}, the user nonroot, /private (0700),
/home/validate_submission.sh and a root /entrypoint.sh as upstream's (Medalist never runs it: its
own format check answers localhost:5000). docs/mlebench.md says what else is and is not there.

The base layer is, in order: --base IMAGE (a local image with bash and python3), --rootfs TAR (a
root filesystem tarball, imported as ${ROOTFS_BASE_TAG}), ${ROOTFS_BASE_TAG} when imported before,
or the root filesystem scripts/mlebench-standin-image.sh caches (${cachedRootfs()}).
pip comes from --pip-wheel FILE, else this machine's pip wheel (/usr/share/python-wheels, or
python3's ensurepip), else the base image's ensurepip.

With --from, builds upstream's own environment/Dockerfile from that checkout (INSTALL_HEAVY_DEPENDENCIES=false),
which downloads Ubuntu, apt packages, Miniconda and PyPI packages: it needs the network.

Options:
  --tag TAG          the image's tag (default: ${MLEBENCH_ENV_TAG}, the name agent Dockerfiles say FROM)
  --base IMAGE       build on this local image
  --rootfs TAR       build on this root filesystem tarball
  --pip-wheel FILE   the pip wheel installed into the agent environment
  --from DIR         an MLE-bench checkout: build its environment/Dockerfile instead

Exit codes: 0 built, 1 the build failed, 2 bad input.`,
  async run(argv) {
    const { values, positionals } = parseCommandArgs(
      argv,
      {
        tag: { type: "string" },
        base: { type: "string" },
        rootfs: { type: "string" },
        "pip-wheel": { type: "string" },
        from: { type: "string" },
      },
      true,
    );
    if (positionals.length !== 1 || positionals[0] !== "build")
      throw new UserError(
        positionals.length === 0
          ? "mlebench-env: say what to do: medalist mlebench-env build (see --help)"
          : `mlebench-env: unknown action ${positionals.join(" ")}; the action is build (see --help)`,
      );
    if (values.from !== undefined && (values.base ?? values.rootfs ?? values["pip-wheel"]) !== undefined)
      throw new UserError(
        "--from builds upstream's own Dockerfile: it goes without --base, --rootfs and --pip-wheel",
      );
    if (values.base !== undefined && values.rootfs !== undefined)
      throw new UserError("--base and --rootfs both name the base layer: give one");
    const tag = values.tag ?? MLEBENCH_ENV_TAG;
    if (!/^[a-z0-9][a-z0-9._/-]*(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?$/.test(tag))
      throw new UserError(
        `--tag ${JSON.stringify(tag)} is not a Docker image tag (name[:version], lower case)`,
      );
    // The image is built in the docker executor's engine: the daemon its agent images build in.
    const engine = await backendOf("docker").imageEngine!().catch((e: unknown) => {
      throw new UserError(`no Docker daemon answers (${errorMessage(e)}): start Docker first`, 1);
    });
    const started = Date.now();
    const log = (line: string) => console.error(line);
    const image = await buildMlebenchEnv({
      engine,
      tag,
      base: values.base,
      rootfs: values.rootfs,
      pipWheel: values["pip-wheel"],
      from: values.from,
      log,
    });
    console.log(
      `built ${tag} (${image.id.slice(0, 19)}) in ${((Date.now() - started) / 1000).toFixed(0)}s: agent Dockerfiles can now start FROM ${tag}`,
    );
    return 0;
  },
};
