// The one line a failed image build is said in (execute/container/image.ts BuildSteps): the failing
// step, its exit code and its own last stderr line; a missing base image with how to get it.
import { describe, expect, it } from "vitest";
import { BuildSteps } from "../../src/execute/container/image.js";

const feed = (lines: string[]) => {
  const s = new BuildSteps();
  for (const l of lines) s.add(l);
  return s;
};

describe("BuildSteps", () => {
  it("names the RUN step, its exit code and its last stderr line (the builder's red), not stdout's", () => {
    const s = feed([
      "Step 1/3 : FROM mlebench-env",
      " ---> 463e62a7884f",
      "Step 3/3 : RUN conda run -n agent pip install -r /home/agent/requirements.txt",
      " ---> Running in 3b0b09dbc3c0",
      "\x1b[91m/opt/conda/bin/conda: line 31: exec: pip: not found",
      "\x1b[0mcollected nothing",
      "Removing intermediate container 3b0b09dbc3c0",
    ]);
    expect(
      s.cause(
        "The command '/bin/sh -c conda run -n agent pip install -r /home/agent/requirements.txt' returned a non-zero code: 127",
      ),
    ).toBe(
      "step 3/3 (RUN conda run -n agent pip install -r /home/agent/requirements.txt) exited with code 127: /opt/conda/bin/conda: line 31: exec: pip: not found",
    );
  });

  it("falls back to the step's last stdout line, or to the daemon's words", () => {
    const s = feed(["Step 2/2 : RUN make", " ---> Running in 1", "make: *** [all] Error 2"]);
    expect(s.cause("The command '/bin/sh -c make' returned a non-zero code: 2")).toBe(
      "step 2/2 (RUN make) exited with code 2: make: *** [all] Error 2",
    );
    expect(feed(["Step 2/2 : COPY missing /x"]).cause("COPY failed: file not found in build context")).toBe(
      "step 2/2 (COPY missing /x) failed: COPY failed: file not found in build context",
    );
    expect(feed([]).cause("Cannot locate specified Dockerfile: Dockerfile")).toBe(
      "Cannot locate specified Dockerfile: Dockerfile",
    );
  });

  it("a FROM that cannot be pulled: the base image's name and how to get it", () => {
    const why = 'Get "https://registry-1.docker.io/v2/": dial tcp: lookup registry-1.docker.io: no such host';
    expect(feed(["Step 1/15 : FROM mlebench-env"]).cause(why)).toBe(
      `the base image mlebench-env (FROM, step 1/15) is not on this runner and could not be pulled (${why}); build it with: medalist mlebench-env build (docs/mlebench.md)`,
    );
    expect(feed(["Step 1/4 : FROM --platform=linux/amd64 acme/agent-base:2"]).cause(why)).toBe(
      `the base image acme/agent-base:2 (FROM, step 1/4) is not on this runner and could not be pulled (${why}); docker pull it where a registry is reachable, or docker load it on the runner`,
    );
  });

  it("cuts a long instruction", () => {
    const long = `RUN ${"x".repeat(300)}`;
    const text = feed([`Step 1/1 : ${long}`]).cause("returned a non-zero code: 1");
    expect(text).toBe(`step 1/1 (${long.slice(0, 119)}…) exited with code 1`);
  });
});
