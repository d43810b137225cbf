// Namespaces: cluster-scoped, DNS-label names, a spec finalizer list emptied through /finalize.

import type { ResourceType } from '../../types.js';
import { ageColumn, fieldColumn } from '../common/columns.js';
import { asArray, asObject, ensureObject, setDefault } from '../common/field-errors.js';
import { conditionList, typedCondition } from '../common/meta.js';
import { obj, setList, str, strEnum } from '../common/schema.js';
import { cloneJson } from '../../../patch/json-value.js';

const schema = obj({
  spec: obj({ finalizers: setList(str) }),
  status: obj({
    phase: strEnum('Active', 'Terminating'),
    conditions: conditionList(typedCondition()),
  }),
});

export const namespaces: ResourceType = {
  group: '',
  versions: [{ name: 'v1', schema }],
  kind: 'Namespace',
  plural: 'namespaces',
  singular: 'namespace',
  scope: 'Cluster',
  shortNames: ['ns'],
  nameRule: 'dns-label',
  subresources: {
    status: true,
    others: [{ name: 'finalize', kind: 'Namespace', verbs: ['update'] }],
  },
  columns: [fieldColumn('Status', 'status.phase', { description: 'The status of the namespace' }), ageColumn],
  fieldSelectors: { 'status.phase': (o) => asObject(o.status)?.phase as string | undefined },
  strategy: {
    defaults(o) {
      setDefault(ensureObject(o, 'status'), 'phase', 'Active');
      // The immutable name label lets selectors (e.g. webhook namespaceSelectors) pick namespaces by name.
      if (o.metadata.name) o.metadata.labels = { ...(o.metadata.labels ?? {}), 'platform.io/metadata.name': o.metadata.name };
    },
    prepareForCreate(o) {
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
