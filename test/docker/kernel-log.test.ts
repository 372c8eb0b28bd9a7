// The kernel log's limit lines, read for one container: only the kernel's own records, only its cgroup.
import { describe, expect, it } from "vitest";
import { limitEventsIn } from "../../src/execute/docker/kernel-log.js";

const id = "565c95ea4d3c5452420072f1348d16d0e9bc132eddf0c480c759990cbdedfdb1";
const other = "8050e9d8d5e27f541b4acca812e91d0bd6f28a74d9e79484ac982f214d4ec116";
const fork = (cg: string, pri = 6) =>
  `${pri},43230,33981032720,-;cgroup: fork rejected by pids controller in ${cg}\n`;
const oom = (cg: string, pri = 6) =>
  `${pri},43499,32628226071,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=${id},mems_allowed=0,oom_memcg=${cg},task_memcg=${cg},task=exe,pid=30032,uid=65534\n`;

describe("limitEventsIn", () => {
  it("finds a refused fork and an OOM kill in the container's cgroup (cgroupfs, a parent, systemd)", () => {
    expect(limitEventsIn([fork(`/docker/${id}`)], id)).toEqual({ pids: true, oom: false });
    expect(limitEventsIn([oom(`/medalist/${id}`)], id)).toEqual({ pids: false, oom: true });
    expect(limitEventsIn([fork(`/system.slice/docker-${id}.scope`), oom(`/docker/${id}`)], id)).toEqual({
      pids: true,
      oom: true,
    });
  });

  it("ignores other containers, records not from the kernel, and a bad id", () => {
    expect(limitEventsIn([fork(`/docker/${other}`), oom(`/docker/${other}`)], id)).toEqual({
      pids: false,
      oom: false,
    });
    // Facility 1 (user): a record a process wrote to /dev/kmsg.
    expect(limitEventsIn([fork(`/docker/${id}`, 12), oom(`/docker/${id}`, 14)], id)).toEqual({
      pids: false,
      oom: false,
    });
    // The cgroup's name must be the id, not merely contain it.
    expect(limitEventsIn([fork(`/docker/${id}x`), fork(`/docker/x${id}`)], id)).toEqual({
      pids: false,
      oom: false,
    });
    expect(limitEventsIn([fork("/docker/")], "")).toEqual({ pids: false, oom: false });
  });
});
