/** An error's message in one trimmed line: a container engine's JSON reply (`json.message`) when it has one. */
export function errorMessage(e: unknown): string {
  if (e instanceof Error) {
    // dockerode (and engines speaking its API) put the daemon's JSON reply in `json`: its message is the useful part.
    const json = (e as { json?: { message?: string } }).json;
    return (json?.message ?? e.message).trim();
  }
  return String(e);
}
