// How `npm start` shows its services' output. On a terminal their pino JSON lines become one
// readable line each (time, level, message, the other fields inline), through pino-pretty; into a
// pipe or a file (CI, `| tee`) the lines stay JSON, for tools. Anything that is not a JSON log
// line (nats-server's own log) is shown as it is.

/** Turns one line of a child's output into the lines to print. */
export type LineFormat = (line: string) => string[];

const asIs: LineFormat = (line) => [line];

/**
 * The format for this terminal. pino-pretty is a development dependency, imported only here: the
 * image's compiled local-up (`--init-only` in docker compose) never needs it.
 */
export async function terminalLineFormat(isTTY: boolean | undefined): Promise<LineFormat> {
  if (!isTTY) return asIs;
  const { prettyFactory } = (await import('pino-pretty')).default;
  const pretty = prettyFactory({
    colorize: true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    // The line's prefix already names the service; pid and hostname are the same on every line.
    ignore: 'pid,hostname,name',
  });
  // An error's stack stays on lines of its own, each under the service's prefix.
  return (line) => (line.startsWith('{"level":') ? pretty(line).trimEnd().split('\n') : [line]);
}
