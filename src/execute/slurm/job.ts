import { CONTAINER_PATHS, contractEnv, defaultAgentUser, hostPaths, runName } from "../contract.js";
import { runPaths, type RunSpec } from "../types.js";
import { OUTPUT_FILES } from "./output.js";
import type { SlurmSettings } from "./settings.js";

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
        ...mounts.map(([src, dst, ro]) => `-v ${sh(`${src}:${dst}${ro ? ":ro" : ""}`)}`),
        ...envNames.map((n) => `-e ${n}`),
        sh(s.image ?? ""),
        ...cmd.map(sh),
      ];
      lines.push(
        `name=${sh(jobName(spec.suiteId, spec.runId))}`,
        `trap 'docker stop -t ${s.stopGraceSecs} "$name" >/dev/null 2>&1' TERM INT`,
        'docker rm -f "$name" >/dev/null 2>&1',
        `${run.join(" ")} &`,
        "pid=$!",
        // wait returns early when a trapped signal arrives: wait until docker run really ended.
        'wait "$pid"; rc=$?',
        'while kill -0 "$pid" 2>/dev/null; do wait "$pid"; rc=$?; done',
        `echo "container_oom=$(docker inspect -f '{{.State.OOMKilled}}' "$name" 2>/dev/null)" >>"$facts"`,
        'docker rm -f "$name" >/dev/null 2>&1',
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
