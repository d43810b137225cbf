// The printed table: one row per figure, the raw limit measured in the same run beside it, the
// ratio, the target, and a verdict. Numbers are formatted for reading, not parsing.

export interface Row {
  figure: string;
  measured: string;
  limit?: string;
  ratio?: number;
  /** e.g. "≥ 0.35"; absent for figures reported without a target. */
  target?: string;
  ok?: boolean;
}

export function rate(n: number): string {
  return `${Math.round(n).toLocaleString('en-US')}/s`;
}

export function ms(n: number): string {
  return Number.isNaN(n) ? 'n/a' : n < 10 ? `${n.toFixed(1)} ms` : `${Math.round(n).toLocaleString('en-US')} ms`;
}

export function mib(n: number): string {
  return `${n.toFixed(0)} MiB`;
}

export function printTable(rows: Row[]): void {
  const cells = rows.map((r) => [
    r.figure,
    r.measured,
    r.limit ?? '',
    r.ratio === undefined ? '' : `ratio ${r.ratio.toFixed(2)}`,
    r.target ? `(target ${r.target})` : '',
    r.ok === undefined ? '' : r.ok ? 'OK' : 'BELOW TARGET',
  ]);
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((c) => c[i]!.length)));
  for (const c of cells)
    process.stdout.write(
      c
        .map((x, i) => x.padEnd(widths[i]!))
        .join('   ')
        .trimEnd() + '\n',
    );
}
