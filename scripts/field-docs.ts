// Development tool: how many fields of each served kind carry a description in the published
// OpenAPI v3 documents, and which ones still do not, so descriptions can be written group by group.
//
//   npx tsx scripts/field-docs.ts                     the table, one line per kind
//   npx tsx scripts/field-docs.ts --missing           and every field still missing a description
//   npx tsx scripts/field-docs.ts --missing apps/v1   only kinds whose `<group>/<version> <Kind>` contains a word given
//
// Descriptions are written with `described` (shared/registry/schema-docs.ts) where each schema is
// defined; raise the kind's floor in shared/registry/test/field-docs.test.ts afterwards.

import { createBuiltinRegistry } from '../shared/registry/builtin-registry.js';
import { formatCoverageTable, formatMissing, kindDocCoverage } from '../shared/registry/field-doc-report.js';
import { isEntryPoint } from './entry-point.js';

export function fieldDocsReport(args: readonly string[]): string {
  const missing = args.includes('--missing');
  const words = args.filter((a) => !a.startsWith('--'));
  const rows = kindDocCoverage(createBuiltinRegistry()).filter((r) => words.length === 0 || words.some((w) => r.id.includes(w)));
  return formatCoverageTable(rows) + (missing ? `\n${formatMissing(rows)}` : '');
}

if (isEntryPoint(import.meta.url)) process.stdout.write(fieldDocsReport(process.argv.slice(2)));
