// NamespaceExists: a write to a namespaced object in a namespace that does not exist is refused
// with 404 for the namespace. (NamespaceLifecycle, on by default, also refuses new content in a
// namespace being deleted; this one only asks whether it exists.)

import { notFound } from '../../../../shared/api/status.js';
import { AdmissionOperation, type AdmissionRequest } from '../../../../shared/bus/messages.js';
import type { NamespaceCache } from '../../namespace-cache.js';
import type { AdmissionPlugin, PluginDefinition, PluginMatch } from '../../types.js';

export const NAMESPACE_EXISTS = 'NamespaceExists';

const WRITES: PluginMatch = { operations: [AdmissionOperation.Create, AdmissionOperation.Update, AdmissionOperation.Delete] };

/** Requests for Namespace objects themselves (and their subresources) name no namespace to check. */
export function isNamespaceKind(req: AdmissionRequest): boolean {
  return req.kind.group === '' && req.kind.kind === 'Namespace';
}

export function createNamespaceExists(namespaces: NamespaceCache): AdmissionPlugin {
  return {
    name: NAMESPACE_EXISTS,
    match: WRITES,
    async validate(req) {
      if (!req.namespace || isNamespaceKind(req)) return;
      // A miss is confirmed with a live read: the watch may not have delivered a namespace created a moment ago.
      if (await namespaces.lookup(req.namespace)) return;
      throw notFound({ group: '', resource: 'namespaces' }, req.namespace);
    },
  };
}

export const namespaceExistsPlugin: PluginDefinition = {
  name: NAMESPACE_EXISTS,
  defaultEnabled: false,
  create: (deps) => createNamespaceExists(deps.namespaces()),
};
