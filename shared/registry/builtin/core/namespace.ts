// Namespaces: cluster-scoped, DNS-label names, a spec finalizer list emptied through /finalize.

import type { ResourceType } from '../../types.js';
import { ageColumn, fieldColumn } from '../common/columns.js';
import { asArray, asObject, ensureObject, setDefault } from '../common/field-errors.js';
import { conditionList, typedCondition } from '../common/meta.js';
import { described, obj, setList, str, strEnum } from '../common/schema.js';
import { cloneJson } from '../../../patch/json-value.js';
import type { ApiObject } from '../../../api/types.js';
import { PLATFORM_NAMES, type WellKnownNames } from '../../../api/well-known-names.js';

/**
 * The name labels (the spec's, and upstream's `kubernetes.io/metadata.name` with upstream names on)
 * always hold the namespace's name, whatever a client writes: selectors can pick namespaces by name.
 */
function labelWithName(o: ApiObject, names: WellKnownNames = PLATFORM_NAMES): void {
  const name = o.metadata.name;
  if (!name) return;
  const labels = { ...(o.metadata.labels ?? {}) };
  for (const key of names.namespaceNameLabels) labels[key] = name;
  o.metadata.labels = labels;
}

const schema = described(
  obj({
    spec: described(obj({ finalizers: setList(str) }), {
      finalizers:
        'Cleanups that must finish before a deleted namespace goes away; the server adds `platform`, which the namespace controller removes once everything in the namespace is deleted. Changed only through the finalize subresource.',
    }),
    status: described(
      obj({
        phase: strEnum('Active', 'Terminating'),
        conditions: conditionList(typedCondition()),
      }),
      {
        phase: 'Active, or Terminating once deletion was asked for: then no new object may be created in the namespace.',
        conditions: 'How the deletion of the contents is going, such as NamespaceDeletionContentFailure or NamespaceContentRemaining.',
      },
    ),
  }),
  { spec: 'The finalizers of the namespace.', status: 'The phase of the namespace and how its deletion is going.' },
  'A namespace: a scope for the names of namespaced objects, and the unit that access rules, quotas and limits apply to. Deleting one deletes everything in it.',
);

export const namespaces: ResourceType = {
  group: '',
  versions: [{ name: 'v1', schema }],
  kind: 'Namespace',
  plural: 'namespaces',
  singular: 'namespace',
  scope: 'Cluster',
  returnDeletedObject: true,
  shortNames: ['ns'],
  nameRule: 'dns-label',
  subresources: {
    status: true,
    others: [{ name: 'finalize', kind: 'Namespace', verbs: ['update'] }],
  },
  columns: [fieldColumn('Status', 'status.phase', { description: 'The status of the namespace' }), ageColumn],
  fieldSelectors: { 'status.phase': (o) => asObject(o.status)?.phase as string | undefined },
  strategy: {
    defaults(o, names) {
      setDefault(ensureObject(o, 'status'), 'phase', 'Active');
      labelWithName(o, names);
    },
    prepareForCreate(o, ctx) {
      // Again once generateName has made the name (defaults ran before), as upstream's Canonicalize.
      labelWithName(o, ctx.names);
      // The namespace controller removes this finalizer once the contents are gone.
      const finalizers = asArray(asObject(o.spec)?.finalizers).filter((f): f is string => typeof f === 'string');
      if (!finalizers.includes('platform')) finalizers.push('platform');
      o.spec = { finalizers };
      o.status = { phase: 'Active' };
    },
    prepareForUpdate(o, old) {
      // spec.finalizers changes only through /finalize.
      const oldSpec = asObject(old.spec);
      if (oldSpec) o.spec = cloneJson(oldSpec);
      else delete o.spec;
    },
    // Namespaces carry their own finalizer list in spec (emptied through /finalize); deleting one
    // shows phase Terminating until the namespace controller is done.
    deletion: {
      pendingFinalizers: (o) => asArray(asObject(o.spec)?.finalizers).length,
      markTerminating(o) {
        o.status = { ...(asObject(o.status) ?? {}), phase: 'Terminating' };
      },
    },
    subresources: {
      // The namespace controller's last step: only spec.finalizers comes from the client.
      finalize: {
        prepareForUpdate(o, old) {
          const next = cloneJson(old);
          next.spec = { ...(asObject(next.spec) ?? {}), finalizers: asObject(o.spec)?.finalizers ?? [] };
          return next;
        },
      },
    },
  },
};
