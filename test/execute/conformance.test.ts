// The conformance suite, generated from the registered backends (execute/backends.ts's registry,
// plus test/execute/fixtures/*-backend.ts, each registering itself in one line): every backend,
// in every variant its selfTest names, owes the same hostile agent the same duties (harness.ts's
// DUTIES). A backend that cannot run here (no daemon, no cluster) is skipped with its reason;
// MEDALIST_REQUIRE_<NAME>=1 (MEDALIST_REQUIRE_DOCKER=1, MEDALIST_REQUIRE_SLURM=1) makes it mandatory.
// test/execute/conformance-catches.test.ts shows the suite fails a backend that skips a duty.
import { afterAll, beforeAll, describe, it } from "vitest";
import { lockCluster } from "../slurm/helpers.js";
import { availability, backendsUnderTest, DUTIES, openTarget, type Target } from "./conformance/harness.js";

const backends = await backendsUnderTest();

for (const b of backends) {
  const why = await availability(b);
  if (why !== null) {
    console.warn(`[conformance] ${b.name} skipped: ${why}`);
    describe.skip(`${b.name}: skipped (${why})`, () => it("runs nothing", () => {}));
    continue;
  }
  for (const variant of (await b.selfTest.variants?.()) ?? [""]) {
    describe(`the conformance suite on ${variant ? `${b.name} (${variant})` : b.name}`, () => {
      let target: Target;
      // The Slurm cluster's one node is shared with test/slurm/cluster.test.ts, which takes it down once.
      let unlock = () => {};
      beforeAll(async () => {
        if (b.name === "slurm") unlock = await lockCluster();
        target = await openTarget(b, variant);
      }, 600_000);
      afterAll(async () => {
        await target?.close();
        unlock();
      }, 60_000);
      for (const duty of DUTIES) it(duty.name, () => duty.check(target), 120_000);
    });
  }
}
