// The description coverage of every served kind, measured on the OpenAPI v3 documents the server
// publishes (what `kubectl explain` reads), so a description lost on the way (beside a `$ref`, in a
// dialect conversion) counts as missing. Used by the coverage test and by scripts/field-docs.ts.

import { gvKey } from './openapi-operations.js';
import { definitionName, openApiV3, type OpenApiSource } from './openapi.js';
import { coveragePercent, fieldDocCoverage, type FieldDocCoverage } from './schema-docs.js';
import type { JsonSchema } from '../api/types.js';

export interface KindDocCoverage extends FieldDocCoverage {
  /** `<group>/<version> <Kind>` (`v1 Pod` for the core group). */
  id: string;
}

/** One row per kind served under its own group (an upstream alias shows the same definition). */
export function kindDocCoverage(source: OpenApiSource): KindDocCoverage[] {
  const { documents } = openApiV3(source);
  const rows: KindDocCoverage[] = [];
  const gvs = [{ name: '', versions: ['v1'] }, ...source.groups()].flatMap((g) => g.versions.map((version) => ({ group: g.name, version })));
  for (const { group, version } of gvs) {
    const doc = documents.get(gvKey(group, version))?.document as { components?: { schemas?: Record<string, JsonSchema> } } | undefined;
    const schemas = doc?.components?.schemas ?? {};
    const seen = new Set<string>();
    for (const served of source.resources(group, version)) {
      if (served.group !== served.type.group || seen.has(served.type.kind)) continue;
      seen.add(served.type.kind);
      const kind = schemas[definitionName(group, version, served.type.kind)];
      if (!kind) continue;
      const coverage = fieldDocCoverage(kind, (name) => schemas[name]);
      rows.push({ id: `${group ? `${group}/` : ''}${version} ${served.type.kind}`, ...coverage });
    }
  }
  return rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The table: one line per kind with described/total fields and the share in percent. */
export function formatCoverageTable(rows: readonly KindDocCoverage[]): string {
  const width = Math.max(4, ...rows.map((r) => r.id.length));
  const lines = [`${'KIND'.padEnd(width)}  DESCRIBED  FIELDS  SHARE`];
  for (const r of rows) lines.push(`${r.id.padEnd(width)}  ${String(r.described).padStart(9)}  ${String(r.total).padStart(6)}  ${coveragePercent(r).toFixed(1).padStart(5)}%`);
  const described = rows.reduce((n, r) => n + r.described, 0);
  const total = rows.reduce((n, r) => n + r.total, 0);
  lines.push(`${'all kinds'.padEnd(width)}  ${String(described).padStart(9)}  ${String(total).padStart(6)}  ${coveragePercent({ described, total }).toFixed(1).padStart(5)}%`);
  return lines.join('\n') + '\n';
}

/** The fields still missing a description, kind by kind (kinds with none missing are left out). */
export function formatMissing(rows: readonly KindDocCoverage[]): string {
  return rows
    .filter((r) => r.missing.length)
    .map((r) => `${r.id} (${r.missing.length} missing)\n${r.missing.map((m) => `  ${m}\n`).join('')}`)
    .join('');
}
