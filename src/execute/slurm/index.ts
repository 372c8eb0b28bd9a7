export { orphans, sweepOrphans } from "./cleanup.js";
export { openSlurm, slurmDescriptor, SlurmExecutor, type SlurmOpenOptions } from "./executor.js";
export { jobComment, jobName, parseComment, planJob, type JobPlan } from "./job.js";
export { spawnRunner, type CommandResult, type CommandRunner } from "./runner.js";
export { classify, parseJobId, parseSacct, phaseOf, type JobRecord } from "./sacct.js";
export { slurmSettings, type SlurmSettings } from "./settings.js";
export { JobTracker } from "./tracker.js";
