import { z } from "zod";
import { bytes } from "../units.js";
import type { ConfigIssue, ExecutorConfigPart, ExecutorConfigView } from "../executors.js";

/** The `local:` block: the local executor's sandbox (see docs/security.md). */
export const LocalSchema = z.strictObject({
  /** auto: bubblewrap where it can run, else none; bwrap: required; none: the agent runs unconfined. */
  sandbox: z.enum(["auto", "bwrap", "none"]).default("auto"),
  /** Size of each in-memory folder inside the sandbox (HOME, /tmp, /dev/shm). */
  scratch: bytes.default(512 * 1024 ** 2),
});

export type LocalConfig = z.output<typeof LocalSchema>;

export const LOCAL_DEFAULTS: LocalConfig = { sandbox: "auto", scratch: 512 * 1024 ** 2 };

/** The local executor runs a command. */
export function checkLocal(c: ExecutorConfigView<LocalConfig>): ConfigIssue[] {
  if (c.agent.mlebench)
    return [
      { path: ["agent", "mlebench"], message: "agent.mlebench builds a Docker image: use executor: docker" },
    ];
  return c.agent.command === undefined
    ? [{ path: ["agent", "command"], message: "the local executor needs agent.command" }]
    : [];
}

/** The local executor's part of the config. */
export const LOCAL_CONFIG: ExecutorConfigPart<"local", typeof LocalSchema> = {
  name: "local",
  configSchema: LocalSchema,
  configDefault: LOCAL_DEFAULTS,
  check: checkLocal,
};
