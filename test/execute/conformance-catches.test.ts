// The conformance suite catches a backend that skips a duty: the sh fixture's broken variants
// (test/execute/fixtures/sh-backend.ts), each run through the suite's own duties, fail the duty
// they skip; the sh backend itself passes them all in test/execute/conformance.test.ts.
import { afterAll, describe, expect, it } from "vitest";
import { backendsUnderTest, DUTIES, openTarget, type Duty, type Target } from "./conformance/harness.js";
import { leftBehind, shBackend, type Skip } from "./fixtures/sh-backend.js";

const duty = (start: string): Duty => {
  const d = DUTIES.find((d) => d.name.startsWith(start));
  if (!d) throw new Error(`no duty starts with "${start}"`);
  return d;
};

/** The variant that ignores stop and kill leaves its agent running: ended here. */
function endLeftBehind(): void {
  for (const pid of leftBehind) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // gone
    }
  }
  leftBehind.clear();
}

const opened: Target[] = [];
afterAll(async () => {
  for (const t of opened) await t.close();
  endLeftBehind();
}, 60_000);

const cases: [Skip, string, RegExp][] = [
  ["submission", "a plain agent", /submission\.csv|expected .* to be null/],
  ["env", "a plain agent", /runner-secret=absent|runner-only/],
  ["stop", "a hang past the time limit", /outcome: 'timed_out'|expected false to be true/],
];

describe("the conformance suite fails a backend that skips a duty", () => {
  it("runs on every registered backend, the fixture registered by its own one line included", async () => {
    expect((await backendsUnderTest()).map((b) => b.name)).toEqual(["local", "docker", "slurm", "sh"]);
  });

  it.each(cases)(
    "sh without %s fails '%s…'",
    async (skip, name, why) => {
      const t = await openTarget(shBackend({ skip }), "");
      opened.push(t);
      await expect(duty(name).check(t)).rejects.toThrow(why);
      endLeftBehind();
    },
    120_000,
  );

  it.each(cases)(
    "the sh backend itself, without skipping %s, passes '%s…'",
    async (_skip, name) => {
      const t = await openTarget(shBackend(), "");
      opened.push(t);
      await duty(name).check(t);
    },
    120_000,
  );
});
