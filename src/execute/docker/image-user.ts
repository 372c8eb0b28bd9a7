// docker.user by name ("nonroot"): resolved to uid:gid from the image's own /etc/passwd and
// /etc/group, read from a created (never started) container, so the run folders can be given to
// that user and the agent's HOME and getpass.getuser() are the image's.
import path from "node:path";
import type Docker from "dockerode";
import { statusCode } from "./client.js";
import { errorMessage } from "../../util/error-message.js";
import { LABEL, ownerLabel } from "./container.js";

export interface PasswdEntry {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

/** Lines of /etc/passwd (name:x:uid:gid:gecos:home:shell); malformed lines are skipped. */
export function parsePasswd(text: string): PasswdEntry[] {
  const out: PasswdEntry[] = [];
  for (const line of text.split("\n")) {
    const f = line.split(":");
    if (f.length < 7 || !/^\d+$/.test(f[2]) || !/^\d+$/.test(f[3])) continue;
    out.push({ name: f[0], uid: Number(f[2]), gid: Number(f[3]), home: f[5] });
  }
  return out;
}

/** Group name → gid, from /etc/group (name:x:gid:members). */
export function parseGroup(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    const f = line.split(":");
    if (f.length >= 3 && /^\d+$/.test(f[2])) out.set(f[0], Number(f[2]));
  }
  return out;
}

/** Whether `user` ("name", "uid", "name:group", "uid:gid") names anything by name. */
export function needsLookup(user: string): boolean {
  return user.split(":").some((p) => !/^\d+$/.test(p));
}

/**
 * "uid:gid" for `user` from the image's passwd and group text; a sentence saying what is missing
 * otherwise. A numeric part is kept as it is; a user without a group gets its passwd group.
 */
export function resolveUser(
  user: string,
  passwd: string | null,
  group: string | null,
): { ok: string } | { error: string } {
  const [u, g] = user.split(":");
  const entries = parsePasswd(passwd ?? "");
  let uid: number;
  let gid: number | undefined;
  if (/^\d+$/.test(u)) {
    uid = Number(u);
    gid = entries.find((e) => e.uid === uid)?.gid;
  } else {
    const e = entries.find((x) => x.name === u);
    if (!e)
      return {
        error: `docker.user: the image has no user ${u} in /etc/passwd${passwd === null ? " (it has no /etc/passwd)" : ""}; add it in the Dockerfile (useradd ${u}) or set docker.user to a uid`,
      };
    uid = e.uid;
    gid = e.gid;
  }
  if (g !== undefined) {
    if (/^\d+$/.test(g)) gid = Number(g);
    else {
      const found = parseGroup(group ?? "").get(g);
      if (found === undefined)
        return {
          error: `docker.user: the image has no group ${g} in /etc/group; name a group it has, or a gid`,
        };
      gid = found;
    }
  }
  return { ok: `${uid}:${gid ?? uid}` };
}

/** The text of one file in a tar archive holding just that file (what the archive endpoint sends). */
export function firstTarFile(tar: Buffer): string | null {
  if (tar.length < 512) return null;
  const size = parseInt(tar.subarray(124, 136).toString("latin1").replace(/\0.*$/s, "").trim() || "0", 8);
  if (!Number.isFinite(size) || 512 + size > tar.length) return null;
  return tar.subarray(512, 512 + size).toString("utf8");
}

async function archiveText(container: Docker.Container, path: string): Promise<string | null> {
  try {
    const stream = await container.getArchive({ path });
    const chunks: Buffer[] = [];
    for await (const c of stream as AsyncIterable<Buffer>) chunks.push(c);
    return firstTarFile(Buffer.concat(chunks));
  } catch (e) {
    if (statusCode(e) === 404) return null;
    throw e;
  }
}

/** /etc/passwd and /etc/group of an image (null for a file it lacks); nothing in the image runs. */
export function readImageAccounts(
  docker: Docker,
  imageId: string,
): Promise<{ passwd: string | null; group: string | null }> {
  return inCreated(docker, imageId, async (container) => ({
    passwd: await archiveText(container, "/etc/passwd"),
    group: await archiveText(container, "/etc/group"),
  }));
}

/** Whether the image has something at `file` (a link counts as it is); nothing in the image runs. */
export function imageHas(docker: Docker, imageId: string, file: string): Promise<boolean> {
  return inCreated(docker, imageId, async (container) => {
    try {
      await container.infoArchive({ path: file });
      return true;
    } catch (e) {
      if (statusCode(e) === 404) return false;
      throw e;
    }
  });
}

/** `read` on a created, never started container of the image, removed after. */
async function inCreated<T>(
  docker: Docker,
  imageId: string,
  read: (container: Docker.Container) => Promise<T>,
): Promise<T> {
  const container = await docker.createContainer({
    Image: imageId,
    Entrypoint: ["/nonexistent"],
    Cmd: [],
    NetworkDisabled: true,
    Labels: {
      [LABEL.suite]: "medalist-user-lookup",
      [LABEL.owner]: ownerLabel(),
      [LABEL.deadline]: String(Date.now() + 300_000),
    },
    HostConfig: { NetworkMode: "none" },
  });
  try {
    return await read(container);
  } finally {
    await container.remove({ force: true, v: true }).catch(() => {});
  }
}

/** `user` as "uid:gid" for the image (names looked up in it); "" and numeric users unchanged. */
export async function imageUser(docker: Docker, imageId: string, user: string): Promise<string> {
  if (user === "" || !needsLookup(user)) return user;
  let files: { passwd: string | null; group: string | null };
  try {
    files = await readImageAccounts(docker, imageId);
  } catch (e) {
    throw new Error(`reading the image's /etc/passwd for docker.user ${user} failed: ${errorMessage(e)}`);
  }
  const r = resolveUser(user, files.passwd, files.group);
  if ("error" in r) throw new UserLookupError(r.error);
  return r.ok;
}

/** The user named by docker.user is not in the image: the config's (or the agent's) mistake. */
export class UserLookupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UserLookupError";
  }
}

/**
 * The HOME a container of `imageId` gets as `user` ("uid[:gid]", "" the image's USER): the image's
 * ENV HOME, else the user's home in its /etc/passwd; null when neither names a folder other than "/".
 */
export async function imageHome(docker: Docker, imageId: string, user: string): Promise<string | null> {
  const config = (await docker.getImage(imageId).inspect()).Config ?? {};
  const env = (config.Env ?? []).find((e) => e.startsWith("HOME="));
  const pick = (h: string | undefined) =>
    h !== undefined && h.startsWith("/") && path.posix.normalize(h) !== "/"
      ? path.posix.normalize(h).replace(/\/$/, "")
      : null;
  if (env !== undefined) return pick(env.slice(5));
  const who = user === "" ? (config.User ?? "") : user;
  const [u] = who.split(":");
  const { passwd } = await readImageAccounts(docker, imageId);
  const entries = parsePasswd(passwd ?? "");
  const e = /^\d+$/.test(u)
    ? entries.find((x) => x.uid === Number(u))
    : entries.find((x) => x.name === (u || "root"));
  return pick(e?.home);
}
