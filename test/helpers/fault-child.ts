// A suite run in a child process, to be killed (SIGKILL) at a random point and resumed by its
// parent (test/suite/record-faults.test.ts, bench/faults/records.ts). Args: dir m seeds salt outDir
// [storeDir]. Prints "exec <runId>" as each run starts; each run takes `FAULT_RUN_MS` (default 40).
import { faultSuite } from "./fault-suite.js";

const [dir, m, seeds, salt, outDir, storeDir] = process.argv.slice(2);
const s = faultSuite(dir, Number(m), Number(seeds), salt);
const ms = Number(process.env.FAULT_RUN_MS ?? 40);
s.hook = async (spec) => {
  process.stdout.write(`exec ${spec.runId}\n`);
  await new Promise((r) => setTimeout(r, ms));
};
await s.run(outDir, { storeDir: storeDir || null });
process.stdout.write("done\n");
