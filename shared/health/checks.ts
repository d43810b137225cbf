// The health endpoints every server here answers (/healthz, /livez, /readyz) run their checks the
// same way: `verbose`, `exclude` and per-check paths, in upstream's text format (`[+]ping ok` …
// `readyz check passed`). Machines rely on the status code alone. The gateway and the controllers
// service each supply their own checks.

export type HealthCheck = { name: string; check: () => Promise<void> | void };

export interface HealthResult {
  code: number;
  text: string;
}

/** `/healthz`, `/livez`, `/readyz`, optionally with one check's name after it. */
export const HEALTH_PATH = /^\/(healthz|livez|readyz)(?:\/([^/]+))?\/?$/;

/** The answer of `endpoint` (with `single`, of that one check); null when no check has that name. */
export async function runChecks(endpoint: string, checks: HealthCheck[], query: URLSearchParams, single?: string): Promise<HealthResult | null> {
  if (single !== undefined) {
    const c = checks.find((x) => x.name === single);
    if (!c) return null;
    try {
      await c.check();
      return { code: 200, text: 'ok' };
    } catch (err) {
      return { code: 500, text: `internal server error: ${(err as Error).message}` };
    }
  }
  const excluded = new Set(
    query
      .getAll('exclude')
      .flatMap((e) => e.split(','))
      .filter(Boolean),
  );
  const verbose = query.has('verbose');
  const lines: string[] = [];
  let failed = false;
  const results = await Promise.all(
    checks.map(async (c) => {
      if (excluded.has(c.name)) return `[+]${c.name} excluded: ok`;
      try {
        await c.check();
        return `[+]${c.name} ok`;
      } catch {
        failed = true;
        return `[-]${c.name} failed: reason withheld`;
      }
    }),
  );
  lines.push(...results);
  for (const name of excluded) if (!checks.some((c) => c.name === name)) lines.push(`warn: some health checks cannot be excluded: no matches for "${name}"`);
  if (!failed && !verbose) return { code: 200, text: 'ok' };
  lines.push(failed ? `${endpoint} check failed` : `${endpoint} check passed`);
  return { code: failed ? 500 : 200, text: lines.join('\n') + '\n' };
}
