// What a CustomResourceDefinition's status should say, as upstream's naming, establishing and
// finalizer controllers keep it: the names it may serve (none another definition of its group has
// accepted), NamesAccepted, Established (once the names were first accepted, for good),
// Terminating while its objects are deleted, and storedVersions. Pure: the controller applies it.

import { isDeepStrictEqual } from 'node:util';
import type { ApiObject } from '../../../shared/api/types.js';
import { mergeConditions, type Condition } from '../namespace/controller.js';

/** Held by every definition until its objects are gone (upstream's name, so upstream tools recognise it). */
export const CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

export interface Names {
  plural: string;
  singular?: string;
  kind: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

interface DefinitionStatus {
  conditions?: Array<Condition & { lastTransitionTime?: string; message?: string }>;
  acceptedNames?: Names;
  storedVersions?: string[];
}

const specOf = (crd: ApiObject) => crd.spec as unknown as { group: string; names: Names; versions: Array<{ name: string; storage?: boolean }> };
const statusOf = (crd: ApiObject) => (crd.status ?? {}) as DefinitionStatus;

/** The requested names with upstream's defaults: singular is the lower-case kind, listKind `<Kind>List`. */
export function requestedNames(crd: ApiObject): Names {
  const n = specOf(crd).names;
  return {
    plural: n.plural,
    singular: n.singular || n.kind.toLowerCase(),
    kind: n.kind,
    listKind: n.listKind || `${n.kind}List`,
    ...(n.shortNames?.length ? { shortNames: [...n.shortNames] } : {}),
    ...(n.categories?.length ? { categories: [...n.categories] } : {}),
  };
}

/** Why the requested names cannot all be accepted, given the names the group's other definitions accepted; [] when they can. */
export function nameConflicts(crd: ApiObject, others: readonly ApiObject[]): { reason: string; message: string } | undefined {
  const group = specOf(crd).group;
  const used = { plurals: new Set<string>(), singulars: new Set<string>(), shortNames: new Set<string>(), kinds: new Set<string>(), listKinds: new Set<string>() };
  for (const o of others) {
    if (o.metadata.name === crd.metadata.name || specOf(o).group !== group) continue;
    const a = statusOf(o).acceptedNames;
    if (!a) continue;
    used.plurals.add(a.plural);
    if (a.singular) used.singulars.add(a.singular);
    for (const s of a.shortNames ?? []) used.shortNames.add(s);
    used.kinds.add(a.kind);
    if (a.listKind) used.listKinds.add(a.listKind);
  }
  const want = requestedNames(crd);
  if (used.plurals.has(want.plural) || used.singulars.has(want.plural)) return { reason: 'PluralConflict', message: `"${want.plural}" is already in use` };
  if (used.plurals.has(want.singular!) || used.singulars.has(want.singular!)) return { reason: 'SingularConflict', message: `"${want.singular}" is already in use` };
  for (const s of want.shortNames ?? []) {
    if (used.shortNames.has(s) || used.plurals.has(s) || used.singulars.has(s)) return { reason: 'ShortNamesConflict', message: `"${s}" is already in use` };
  }
  if (used.kinds.has(want.kind) || used.listKinds.has(want.kind)) return { reason: 'KindConflict', message: `"${want.kind}" is already in use` };
  if (used.kinds.has(want.listKind!) || used.listKinds.has(want.listKind!)) return { reason: 'ListKindConflict', message: `"${want.listKind}" is already in use` };
  return undefined;
}

/**
 * The status the definition should have now, or undefined when it has it already. `terminating`
 * says how deleting its objects goes, for a definition being deleted.
 */
export function desiredStatus(crd: ApiObject, others: readonly ApiObject[], now: string, terminating?: { remaining: number; error?: string }): DefinitionStatus | undefined {
  const status = statusOf(crd);
  const conflict = nameConflicts(crd, others);
  const was = status.conditions ?? [];
  const established = was.some((c) => c.type === 'Established' && c.status === 'True');
  const conditions: Array<Condition & { message?: string }> = [
    conflict
      ? { type: 'NamesAccepted', status: 'False', reason: conflict.reason, message: conflict.message }
      : { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' },
  ];
  // Established stays once reached: a later conflict keeps the names already served.
  if (established || !conflict) conditions.push({ type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' });
  else conditions.push({ type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' });
  if (terminating) {
    conditions.push(
      terminating.error
        ? { type: 'Terminating', status: 'True', reason: 'InstanceDeletionFailed', message: `could not delete instances: ${terminating.error}` }
        : terminating.remaining > 0
          ? { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' }
          : { type: 'Terminating', status: 'False', reason: 'InstanceDeletionCompleted', message: 'removed all instances' },
    );
  }
  const storage = specOf(crd).versions.find((v) => v.storage)?.name;
  const storedVersions = [...(status.storedVersions ?? [])];
  if (storage && !storedVersions.includes(storage)) storedVersions.push(storage);
  const next: DefinitionStatus = {
    ...status,
    conditions: mergeConditions(was, conditions, now) as DefinitionStatus['conditions'],
    acceptedNames: conflict ? (status.acceptedNames ?? { plural: '', kind: '' }) : requestedNames(crd),
    storedVersions,
  };
  const strip = (s: DefinitionStatus) => ({ ...s, conditions: (s.conditions ?? []).map(({ lastTransitionTime: _t, ...c }) => c) });
  return isDeepStrictEqual(strip(next), strip(status)) ? undefined : next;
}
