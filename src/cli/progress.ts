// The CLI's progress output on stderr (medalist run): log lines and a terminal's live status line.

export /**
 * Progress on stderr. On a terminal the heartbeat is one live status line, redrawn in place every
 * 2 s and cleared before any other line; elsewhere every heartbeat is a plain line (once a minute).
 */
function progressOutput(stream: NodeJS.WriteStream = process.stderr) {
  const tty = stream.isTTY === true;
  let shown = false;
  const clear = () => {
    if (shown) stream.write("\r\x1b[K");
    shown = false;
  };
  return {
    log: (line: string) => {
      clear();
      console.error(line);
    },
    options: tty
      ? {
          heartbeatSecs: 2,
          statusWidth: Math.max(40, (stream.columns ?? 120) - 1),
          status: (line: string) => {
            clear();
            stream.write(line);
            shown = true;
          },
        }
      : {},
    done: clear,
  };
}

/** The one progress output of this process. */
export const terminal = progressOutput();
