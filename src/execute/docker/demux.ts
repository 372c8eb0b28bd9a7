/**
 * Splits Docker's multiplexed stream (8-byte frame headers: type, 0, 0, 0, size) into
 * stdout/stderr text. Resolves when the stream ends or errors.
 */
export function demux(
  stream: NodeJS.ReadableStream,
  onText: (s: "stdout" | "stderr", text: string) => void,
): Promise<void> {
  return new Promise((resolve) => {
    let pending: Buffer = Buffer.alloc(0);
    const decoders = { stdout: new TextDecoder(), stderr: new TextDecoder() };
    stream.on("data", (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      while (pending.length >= 8) {
        const size = pending.readUInt32BE(4);
        if (pending.length < 8 + size) break;
        const which = pending[0] === 2 ? "stderr" : "stdout";
        onText(which, decoders[which].decode(pending.subarray(8, 8 + size), { stream: true }));
        pending = pending.subarray(8 + size);
      }
    });
    stream.on("end", () => resolve());
    stream.on("close", () => resolve());
    stream.on("error", () => resolve());
  });
}
