import { describe, expect, it } from "vitest";
import { checkRuntimeGate, runtimeRefusal } from "../../src/action/runtime-gate.js";
import { weakRuntime, weakRuntimeOf } from "../../src/execute/docker/pr-gate.js";
import { pickRuntime, runtimeNote } from "../../src/execute/docker/runtime.js";
import { requireDocker, testRuntimes } from "../docker/helpers.js";

const pr = { pr: { number: 7 } } as never;
const push = { pr: null } as never;
const docker = (runtime?: string) =>
  ({ executor: "docker", agent: { image: "x" }, docker: runtime ? { runtime } : {} }) as never;
/** The refusal the action words, with the docker executor's reason from these daemon runtimes. */
const refusal = (runtime: string | undefined, event: never, allowRunc: boolean, daemon: typeof plain) =>
  runtimeRefusal(event, { allowRunc }, weakRuntime(runtime, daemon));
const plain = { names: ["runc"], default: "runc" };
const withRunsc = { names: ["runc", "runsc"], default: "runc" };

describe("docker.runtime: auto", () => {
  it("picks runsc, else sysbox-runc, else runc, and says which and why", () => {
    expect(pickRuntime(undefined, withRunsc)).toMatchObject({ name: "runsc", sandboxed: true, how: "auto" });
    expect(pickRuntime("auto", { names: ["runc", "sysbox-runc"], default: "runc" }).name).toBe("sysbox-runc");
    expect(pickRuntime("auto", { names: ["runc", "runsc", "sysbox-runc"], default: "runc" }).name).toBe(
      "runsc",
    );
    const r = pickRuntime("auto", plain);
    expect(r).toMatchObject({ name: "runc", sandboxed: false });
    expect(runtimeNote(r)).toBe(
      "runtime: runc (no sandbox beyond the container's namespaces: the agent's system calls reach the runner's kernel; chosen by docker.runtime: auto from the daemon's runc)",
    );
    expect(runtimeNote(pickRuntime("runsc", withRunsc))).toBe(
      "runtime: runsc (gVisor: the agent's system calls go to gVisor's kernel, not the runner's; set by docker.runtime)",
    );
    expect(() => pickRuntime("sysbox-runc", withRunsc)).toThrow(
      /^docker\.runtime: sysbox-runc is not a runtime of this Docker daemon \(it has runc, runsc\)/,
    );
  });
});

describe("a pull request's agent needs a sandboxing runtime", () => {
  it("is refused under runc with one sentence naming the daemon's runtimes and how to get runsc", () => {
    expect(refusal(undefined, pr, false, plain)).toBe(
      "refusing to run pull request #7's agent under runc, which is no sandbox (the Docker daemon has runc; Medalist needs runsc or sysbox-runc): " +
        'install gVisor (`apt-get install runsc`) and register it in /etc/docker/daemon.json as `"runtimes": {"runsc": {"path": "/usr/bin/runsc", "runtimeArgs": ["--network=none"]}}`, then reload dockerd, ' +
        "or set `allow-runc: true` to accept it",
    );
    // runc asked for by name, where the daemon has runsc: refused all the same.
    expect(refusal("runc", pr, false, withRunsc)).toMatch(/under runc, which is no sandbox/);
  });

  it("passes with runsc, with allow-runc, off pull requests, and for other executors", async () => {
    expect(refusal(undefined, pr, false, withRunsc)).toBeNull();
    expect(refusal(undefined, pr, true, plain)).toBeNull();
    expect(refusal(undefined, push, false, plain)).toBeNull();
    // Another executor has no weak sandbox to name: nothing is asked of any daemon.
    await expect(
      checkRuntimeGate({ executor: "local", agent: { command: "x" } } as never, pr, { allowRunc: false }),
    ).resolves.toBeUndefined();
  });
});

const daemon = await requireDocker();
const runtimes = await testRuntimes(daemon);

describe.skipIf(!daemon)("the gate against the real daemon", () => {
  it("lets auto through where runsc is registered; refuses runc by name", async () => {
    if (runtimes.includes("runsc")) expect(await weakRuntimeOf(undefined, daemon!)).toBeNull();
    expect(await weakRuntimeOf({ runtime: "runc" } as never, daemon!)).toMatch(
      /^under runc, which is no sandbox \(the Docker daemon has [^()]*runc/,
    );
    // The action's gate asks the docker backend, which asks the daemon the executor would use.
    await expect(checkRuntimeGate(docker("runc"), pr, { allowRunc: false })).rejects.toThrow(
      /^refusing to run pull request #7's agent under runc, which is no sandbox \(the Docker daemon has [^()]*runc/,
    );
    await expect(checkRuntimeGate(docker("runc"), pr, { allowRunc: true })).resolves.toBeUndefined();
  });
});
