import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Docker from "dockerode";
import { describe, expect, it } from "vitest";
import { DaemonWatch, isConnectionError } from "../../src/execute/docker/daemon-watch.js";
import { requireDocker } from "./helpers.js";

const docker = await requireDocker();

// A socket path nothing listens on: the calls fail the way they do once a daemon is gone.
const socketPath = join(mkdtempSync(join(tmpdir(), "medalist-daemon-watch-")), "docker.sock");

async function failure(docker: Docker): Promise<unknown> {
  try {
    await docker.ping();
  } catch (e) {
    return e;
  }
  throw new Error("ping answered on a socket that does not exist");
}

describe("DaemonWatch.unreachable", () => {
  it("tells a socket that does not answer from an answer the daemon gave", async () => {
    const e = await failure(new Docker({ socketPath }));
    expect(isConnectionError(e)).toBe(true);
    expect(
      isConnectionError(Object.assign(new Error("(HTTP code 500) server error"), { statusCode: 500 })),
    ).toBe(false);
    expect(
      isConnectionError(Object.assign(new Error("no such file"), { code: "ENOENT", syscall: "open" })),
    ).toBe(false);
    expect(isConnectionError(new Error("socket hang up"))).toBe(true);
    expect(isConnectionError("connect ENOENT")).toBe(false);
  });

  it("a call that found no daemon makes the next ready() wait within the bound, then give the one sentence", async () => {
    const docker = new Docker({ socketPath });
    const lines: string[] = [];
    const watch = new DaemonWatch(docker, "suite-x", 1, socketPath, (l) => lines.push(l));
    expect(
      watch.unreachable(Object.assign(new Error("(HTTP code 500) server error"), { statusCode: 500 })),
    ).toBe(false);
    expect(watch.unreachable(await failure(docker))).toBe(true);
    const t0 = Date.now();
    const gone = await watch.ready();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    expect(gone).toMatch(
      new RegExp(
        `^the Docker daemon at ${socketPath} did not answer for \\d+ s \\(run\\.reconnectSecs: 1; last: .*\\): this run and the ones after it have no result`,
      ),
    );
    // Every later attempt gets the same sentence at once.
    expect(await watch.ready()).toBe(gone);
    watch.close();
  });

  it.skipIf(!docker)(
    "a watch whose stream is up counts the daemon lost from a call that found no socket, and finds it again",
    async () => {
      const lines: string[] = [];
      const watch = new DaemonWatch(docker!, "suite-y", 30, "the test daemon", (l) => lines.push(l));
      await watch.open();
      expect(await watch.ready()).toBeNull();
      expect(lines).toEqual([]);
      const epoch = watch.epoch;
      expect(watch.unreachable(await failure(new Docker({ socketPath })))).toBe(true);
      expect(watch.epoch).toBe(epoch + 1);
      // The next attempt asks the daemon again before anything else: it answers, so the attempt goes on.
      expect(await watch.ready()).toBeNull();
      expect(lines[0]).toMatch(/^the Docker daemon at the test daemon went away; waiting up to 30 s for it$/);
      expect(lines[1]).toMatch(/^the Docker daemon at the test daemon answers again after \d+\.\d s$/);
      watch.close();
    },
  );
});
