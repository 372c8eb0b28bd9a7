import os from "node:os";
import type Docker from "dockerode";
import {
  startValidationServer,
  type ValidationServer,
  type ValidationServerOptions,
} from "../validation-server.js";

/** The Docker bridge's gateway address on this host (what containers on `bridge` reach the runner by). */
export async function bridgeGateway(docker: Docker): Promise<string | null> {
  try {
    const net = await docker.getNetwork("bridge").inspect();
    const configs: { Gateway?: string; Subnet?: string }[] = net.IPAM?.Config ?? [];
    const gw = configs.map((c) => c.Gateway).find(Boolean);
    if (gw) return gw;
    // The default bridge often lists only its subnet; its gateway is the subnet's first address.
    const subnet = configs.map((c) => c.Subnet).find((s) => s && /^\d+\.\d+\.\d+\.\d+\/\d+$/.test(s));
    if (subnet) return firstHost(subnet);
  } catch {
    // fall back to the interface
  }
  const addrs = os.networkInterfaces().docker0 ?? [];
  return addrs.find((a) => a.family === "IPv4")?.address ?? null;
}

/** "172.17.0.0/16" → "172.17.0.1". */
export function firstHost(cidr: string): string {
  const [ip, bits] = cidr.split("/");
  const n = ip.split(".").reduce((a, o) => a * 256 + Number(o), 0);
  const first = (Math.floor(n / 2 ** (32 - Number(bits))) * 2 ** (32 - Number(bits)) + 1) % 2 ** 32;
  return [24, 16, 8, 0].map((s) => Math.floor(first / 2 ** s) % 256).join(".");
}

/** A validation server bound to the Docker bridge gateway, reachable from containers on `bridge`. */
export async function startValidationServerForDocker(
  docker: Docker,
  opts: Omit<ValidationServerOptions, "host"> = {},
): Promise<ValidationServer> {
  const gw = await bridgeGateway(docker);
  if (!gw) throw new Error("no Docker bridge gateway found: cannot serve format checks to containers");
  return startValidationServer({ ...opts, host: gw });
}
