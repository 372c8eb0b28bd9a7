import { CONTAINER_PATHS, contractEnv, defaultAgentUser, hostPaths, runName } from "../contract.js";
import { runPaths, type RunSpec } from "../types.js";
import { OUTPUT_FILES } from "./output.js";
import type { SlurmSettings } from "./settings.js";
import { formatBytes } from "../../util/atomic.js";
import { configuredWritable, defaultTmp, NOT_HOME, TMP_DIRS, writablePlaces } from "../container/writable.js";

/** Prefix of every job's comment: leftovers of a crashed suite are found by it. */
export const COMMENT_PREFIX = "medalist";
/** Exit code of a job whose node does not see the shared folder. */
export const NO_SHARED_DIR_EXIT = 97;
/** File in the run folder where the job script records node facts before the agent starts. */
export const FACTS_FILE = ".medalist-node";
export const SCRIPT_FILE = "slurm-job.sh";

/** Runner variables a command-mode agent keeps so that interpreters still work. */
const KEEP = ["PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "TZ"];

/** Quotes one word for /bin/sh. */
export function sh(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A valid job name: medalist-<suite>-<run>, shortened with a hash if long. */
export const jobName = runName;

/** "medalist suite=<id> run=<id> owner=<host>:<pid>": parsed back by `parseComment`. */
export function jobComment(suiteId: string, runId: string, owner: string): string {
  const clean = (s: string) => s.replace(/[^a-zA-Z0-9_.:-]+/g, "-");
  return `${COMMENT_PREFIX} suite=${clean(suiteId)} run=${clean(runId)} owner=${clean(owner)}`;
}

export function parseComment(comment: string): { suite: string; run: string; owner: string } | null {
  const m = /^medalist suite=(\S+) run=(\S+) owner=(\S+)$/.exec(comment.trim());
  return m ? { suite: m[1], run: m[2], owner: m[3] } : null;
}

export interface JobPlan {
  /** sbatch's arguments, the script path last. */
  args: string[];
  script: string;
  scriptPath: string;
  /** sbatch's environment (exported to the job with --export=ALL; keeps secrets off the command line). */
  env: Record<string, string>;
  name: string;
  comment: string;
}

function timeMinutes(secs: number): number {
  return Math.max(1, Math.ceil(secs / 60));
}

/** sbatch arguments and job script for one run attempt (pure). */
export function planJob(
  spec: RunSpec,
  s: SlurmSettings,
  runnerEnv: NodeJS.ProcessEnv = process.env,
): JobPlan {
  const name = jobName(spec.suiteId, spec.runId);
  const comment = jobComment(spec.suiteId, spec.runId, s.owner);
  const scriptPath = `${spec.runDir}/${SCRIPT_FILE}`;
  const { limits } = s;
  const args = [
    "--parsable",
    "--no-requeue",
    `--job-name=${name}`,
    `--comment=${comment}`,
    // Raw output beside the run folder's files; the runner masks it into run.log (slurm/output.ts).
    `--output=${spec.runDir}/${OUTPUT_FILES.stdout}`,
    `--error=${spec.runDir}/${OUTPUT_FILES.stderr}`,
    "--open-mode=append",
    `--chdir=${spec.runDir}`,
    `--time=${timeMinutes(spec.timeLimitSecs + s.graceSecs)}`,
    "--ntasks=1",
  ];
  if (limits.cpus !== undefined) args.push(`--cpus-per-task=${Math.ceil(limits.cpus)}`);
  if (limits.memory !== undefined) args.push(`--mem=${Math.ceil(limits.memory / 2 ** 20)}M`);
  if (limits.gpus > 0) {
    args.push(
      s.gpuFlag === "gpus"
        ? `--gpus=${s.gpuType ? `${s.gpuType}:` : ""}${limits.gpus}`
        : `--gres=gpu:${s.gpuType ? `${s.gpuType}:` : ""}${limits.gpus}`,
    );
  }
  if (s.partition) args.push(`--partition=${s.partition}`);
  if (s.account) args.push(`--account=${s.account}`);
  if (s.qos) args.push(`--qos=${s.qos}`);
  if (s.constraint) args.push(`--constraint=${s.constraint}`);
  args.push("--export=ALL", ...s.sbatchArgs, scriptPath);

  const inContainer = s.mode !== "command";
  const paths = inContainer ? { ...CONTAINER_PATHS } : hostPaths(spec);
  const agentEnv = { ...spec.env, ...contractEnv(spec, paths) };
  if (inContainer && s.network === "none") delete agentEnv.MEDALIST_VALIDATION_URL;
  const env: Record<string, string> = {};
  for (const k of KEEP) if (runnerEnv[k] !== undefined) env[k] = runnerEnv[k]!;
  // sbatch itself must find the cluster.
  if (runnerEnv.SLURM_CONF) env.SLURM_CONF = runnerEnv.SLURM_CONF;
  Object.assign(env, agentEnv);

  return {
    args,
    script: jobScript(spec, s, Object.keys(agentEnv)),
    scriptPath,
    env,
    name,
    comment,
  };
}

function commandWords(command: string | string[] | undefined): string[] {
  if (command === undefined) return [];
  return typeof command === "string" ? ["/bin/sh", "-c", command] : command;
}

/** An anonymous volume at `dst` as one sh word for `docker run`: Docker copies the image's files there. */
function volumeArg(dst: string): string {
  return `--mount ${sh(`type=volume,"dst=${dst.replace(/"/g, '""')}"`)}`;
}

/**
 * mode: docker's read-only root (unless limits.disk.root: writable): `docker run` arguments, the
 * writable places known before the image is (HOME is looked up on the node) and the job log's line.
 */
export function readOnlyRoot(s: SlurmSettings): { args: string[]; paths: string[]; note: string[] } | null {
  const disk = s.limits.disk;
  if (disk.root === "writable") return null;
  const tmp = disk.tmp ?? defaultTmp(s.limits.memory);
  // The image is not known on the runner: /home/agent (MLE-bench's agent folder) always.
  const paths = configuredWritable(disk.writable, true);
  const tmpfs = `rw,nosuid,nodev,size=${tmp},mode=1777`;
  const args = [
    "--read-only",
    ...TMP_DIRS.map((d) => `--tmpfs ${sh(`${d}:${tmpfs}`)}`),
    ...paths.map(volumeArg),
    // $home has only [A-Za-z0-9_./-] (homeLookup): unquoted, it splits into exactly these two words.
    "${home:+--mount type=volume,dst=$home}",
  ];
  const note = [
    `[medalist] read-only root filesystem: the agent can write only to ${writablePlaces(paths).join(", ")}`,
    ` (/tmp and /var/tmp: ${formatBytes(tmp)} each, in memory, counted in the memory limit; ${paths.join(", ")}`,
    ", with the image's files: Docker volumes on the node's Docker storage, not size-bounded, removed with the container)",
  ];
  return { args, paths, note };
}

/**
 * sh lines that set $home to the container user's HOME in the image (its ENV HOME, else its
 * /etc/passwd entry for the user's uid) when that needs a writable place of its own, else to ""
 * (as the Docker executor decides, container/writable.ts).
 */
function homeLookup(s: SlurmSettings, spec: RunSpec, paths: string[]): string[] {
  const uid = defaultAgentUser().split(":")[0];
  const skip = [...["/", "/home", ...paths].map(sh), ...NOT_HOME.flatMap((r) => [sh(r), `${sh(r)}/*`])];
  return [
    `image=${sh(s.image ?? "")}`,
    `home=$(docker image inspect -f '{{range .Config.Env}}{{println .}}{{end}}' "$image" 2>/dev/null | sed -n 's/^HOME=//p' | head -n 1)`,
    'if [ -z "$home" ]; then',
    `  c=$(docker create --label medalist.suite=${sh(spec.suiteId)} --label medalist.run=${sh(spec.runId)} "$image" 2>/dev/null)`,
    '  if [ -n "$c" ]; then',
    `    home=$(docker cp "$c:/etc/passwd" - 2>/dev/null | tar -xOf - 2>/dev/null | awk -F: -v u=${uid} '$3 == u { print $6; exit }')`,
    '    docker rm -f "$c" >/dev/null 2>&1',
    "  fi",
    "fi",
    'while [ "${home%/}" != "$home" ]; do home=${home%/}; done',
    // Only a plain absolute path of its own (no "..", no characters --mount would read).
    'case "$home" in /*) ;; *) home= ;; esac',
    `case "$home" in *[!A-Za-z0-9_./-]*|*/./*|*/../*|*/.|*/..|*//*) home= ;; esac`,
    `case "$home" in ${skip.join("|")}) home= ;; esac`,
  ];
}

function jobScript(spec: RunSpec, s: SlurmSettings, envNames: string[]): string {
  const p = runPaths(spec.runDir);
  const lines = [
    "#!/bin/sh",
    `# Medalist job for run ${spec.runId} of suite ${spec.suiteId} (generated).`,
    `if [ ! -f ${sh(s.token)} ]; then`,
    `  echo "[medalist] node $(hostname) does not see the shared folder "${sh(s.sharedDir)} >&2`,
    `  exit ${NO_SHARED_DIR_EXIT}`,
    "fi",
    `facts=${sh(`${spec.runDir}/${FACTS_FILE}`)}`,
    "{",
    '  echo "node=$(hostname)"',
    '  echo "cuda_visible_devices=${CUDA_VISIBLE_DEVICES:-}"',
    '  if [ -n "${CUDA_VISIBLE_DEVICES:-}" ] && command -v nvidia-smi >/dev/null 2>&1; then',
    '    echo "gpu_model=$(nvidia-smi --query-gpu=name --format=csv,noheader -i "$CUDA_VISIBLE_DEVICES" 2>/dev/null | head -n 1)"',
    "  fi",
    '} >"$facts.tmp" && mv "$facts.tmp" "$facts"',
    'echo "[medalist] job ${SLURM_JOB_ID:-?} on $(hostname), CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-none}"',
  ];
  const mounts: [string, string, boolean][] = [
    [spec.publicDir, CONTAINER_PATHS.data, true],
    [p.submissionDir, CONTAINER_PATHS.submission, false],
    [p.logsDir, CONTAINER_PATHS.logs, false],
    [p.codeDir, CONTAINER_PATHS.code, false],
    [p.instructionsFile, CONTAINER_PATHS.instructions, true],
  ];
  const cmd = commandWords(s.command);
  const gpus = s.limits.gpus > 0;
  switch (s.mode) {
    case "command":
      lines.push(`cd ${sh(s.cwd)} || exit 96`, `exec ${cmd.map(sh).join(" ")}`);
      break;
    case "docker": {
      const l = s.limits;
      const ro = readOnlyRoot(s);
      if (ro) {
        const [places, sizes, volumes] = ro.note;
        lines.push(
          ...homeLookup(s, spec, ro.paths),
          `echo ${sh(places)}"\${home:+, $home}"${sh(sizes)}"\${home:+, $home (HOME)}"${sh(volumes)}`,
        );
      }
      const run = [
        "docker run",
        '--name "$name"',
        "--init",
        `--network ${s.network}`,
        "--security-opt no-new-privileges",
        // The agent is hostile: no capabilities, not root (as with the Docker executor).
        "--cap-drop ALL",
        `--user ${defaultAgentUser()}`,
        `--label medalist.suite=${sh(spec.suiteId)}`,
        `--label medalist.run=${sh(spec.runId)}`,
        ...(l.memory !== undefined ? [`--memory ${l.memory}`, `--memory-swap ${l.memory}`] : []),
        ...(l.cpus !== undefined ? [`--cpus ${l.cpus}`] : []),
        ...(l.pids !== undefined ? [`--pids-limit ${l.pids}`] : []),
        ...(l.shmSize !== undefined ? [`--shm-size ${l.shmSize}`] : []),
        ...(gpus ? ['--gpus "device=$CUDA_VISIBLE_DEVICES"'] : []),
        ...(ro ? ro.args : []),
        ...mounts.map(([src, dst, ro]) => `-v ${sh(`${src}:${dst}${ro ? ":ro" : ""}`)}`),
        ...envNames.map((n) => `-e ${n}`),
        sh(s.image ?? ""),
        ...cmd.map(sh),
      ];
      lines.push(
        `name=${sh(jobName(spec.suiteId, spec.runId))}`,
        `trap 'docker stop -t ${s.stopGraceSecs} "$name" >/dev/null 2>&1' TERM INT`,
        // -v: the container's anonymous volumes (the writable places of a read-only root) go with it.
        'docker rm -f -v "$name" >/dev/null 2>&1',
        `${run.join(" ")} &`,
        "pid=$!",
        // wait returns early when a trapped signal arrives: wait until docker run really ended.
        'wait "$pid"; rc=$?',
        'while kill -0 "$pid" 2>/dev/null; do wait "$pid"; rc=$?; done',
        `echo "container_oom=$(docker inspect -f '{{.State.OOMKilled}}' "$name" 2>/dev/null)" >>"$facts"`,
        'docker rm -f -v "$name" >/dev/null 2>&1',
        'exit "$rc"',
      );
      break;
    }
    case "apptainer": {
      const prefix = /singularity$/.test(s.apptainer) ? "SINGULARITYENV_" : "APPTAINERENV_";
      const binds = mounts.map(([src, dst, ro]) => `${src}:${dst}${ro ? ":ro" : ""}`).join(",");
      for (const n of envNames) lines.push(`export ${prefix}${n}="$${n}"`);
      const verb = cmd.length > 0 ? "exec" : "run";
      lines.push(
        [
          "exec",
          sh(s.apptainer),
          verb,
          "--containall --cleanenv --no-home",
          ...(gpus ? ["--nv"] : []),
          `--bind ${sh(binds)}`,
          sh(s.image ?? ""),
          ...cmd.map(sh),
        ].join(" "),
      );
      break;
    }
    case "pyxis": {
      const mountList = mounts.map(([src, dst, ro]) => `${src}:${dst}${ro ? ":ro" : ""}`).join(",");
      lines.push(
        [
          "exec srun --ntasks=1",
          `--container-image=${sh(s.image ?? "")}`,
          `--container-mounts=${sh(mountList)}`,
          "--no-container-mount-home",
          `--container-workdir=${CONTAINER_PATHS.code}`,
          ...cmd.map(sh),
        ].join(" "),
      );
      break;
    }
  }
  return `${lines.join("\n")}\n`;
}
