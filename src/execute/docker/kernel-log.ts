// What the kernel's own log says a container's cgroup reached: a fork refused at pids.max and an
// OOM kill at the memory limit. Both lines name the cgroup, and they outlive it: under gVisor a
// sandbox past either limit dies (exit 2 or 137) and its cgroup is removed before a watch reading
// pids.events or memory.oom_control once a second sees the counter; under runc an agent whose own
// shell dies on a refused fork ends the same way. Only kernel records count (facility 0): nothing
// in a container can write them. Reading needs root (CAP_SYSLOG); where it cannot, nothing is said.
import { closeSync, constants, openSync, readSync } from "node:fs";

/** The limits the kernel log says a container's cgroup reached. */
export interface KernelLimitEvents {
  /** "cgroup: fork rejected by pids controller in <its cgroup>" (printed once per cgroup). */
  pids: boolean;
  /** "oom-kill:…,oom_memcg=<its cgroup>,…": the kernel killed a process at its memory limit. */
  oom: boolean;
}

/** Whether a cgroup path is the container's (cgroupfs `/…/<id>` or systemd `…/docker-<id>.scope`). */
function isContainers(cgroupPath: string, containerId: string): boolean {
  const last = cgroupPath.slice(cgroupPath.lastIndexOf("/") + 1);
  return last === containerId || last === `docker-${containerId}.scope`;
}

/**
 * The limit events for `containerId` in /dev/kmsg records ("pri,seq,usec,flags;message"); records
 * that are not the kernel's own (facility > 0, e.g. written to /dev/kmsg by a process) are ignored.
 */
export function limitEventsIn(records: Iterable<string>, containerId: string): KernelLimitEvents {
  const out: KernelLimitEvents = { pids: false, oom: false };
  if (!/^[0-9a-f]{12,64}$/.test(containerId)) return out;
  for (const rec of records) {
    const m = /^(\d+),\d+,\d+,[^;]*;(.*)$/m.exec(rec);
    if (!m || Number(m[1]) >> 3 !== 0) continue;
    const msg = m[2];
    const fork = /^cgroup: fork rejected by pids controller in (\S+)$/.exec(msg);
    if (fork && isContainers(fork[1], containerId)) out.pids = true;
    const oom = /^oom-kill:.*[:,]oom_memcg=([^,]+),/.exec(msg);
    if (oom && isContainers(oom[1], containerId)) out.oom = true;
  }
  return out;
}

/** The records in the kernel's log buffer now, oldest first; null when it cannot be read. */
export function kernelRecords(): string[] | null {
  let fd: number;
  try {
    fd = openSync("/dev/kmsg", constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  const out: string[] = [];
  const buf = Buffer.alloc(16 * 1024);
  try {
    for (;;) {
      try {
        const got = readSync(fd, buf, 0, buf.length, null);
        if (got <= 0) break;
        out.push(buf.toString("utf8", 0, got));
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        // EPIPE: the next record was overwritten while reading; go on with the one after it.
        if (code === "EPIPE") continue;
        if (code === "EAGAIN") break;
        return out.length > 0 ? out : null;
      }
    }
  } finally {
    closeSync(fd);
  }
  return out;
}

/** The limit events the kernel logged for `containerId`; null when its log cannot be read. */
export function kernelLimitEvents(containerId: string): KernelLimitEvents | null {
  const records = kernelRecords();
  return records === null ? null : limitEventsIn(records, containerId);
}
