// NamespaceLifecycle: no new content in a namespace that does not exist or is being terminated,
// and the system namespaces cannot be deleted. Runs in the mutating phase, as upstream, so a
// doomed request is refused before any other plugin or webhook does work for it.

import { notFound } from '../../../../shared/api/status.js';
import { AdmissionOperation, type AdmissionRequest } from '../../../../shared/bus/messages.js';
import { admissionForbidden } from '../../errors.js';
import type { NamespaceCache } from '../../namespace-cache.js';
import type { AdmissionPlugin, PluginDefinition } from '../../types.js';
import { AUTHORIZATION_GROUP } from '../../../../shared/api/groups.js';
import { UPSTREAM_PUBLIC_NAMESPACE, UPSTREAM_SYSTEM_NAMESPACE } from '../../../../shared/api/well-known-names.js';

export const NAMESPACE_LIFECYCLE = 'NamespaceLifecycle';

export const IMMORTAL_NAMESPACES: readonly string[] = ['default', 'platform-system', 'platform-public'];
/** Upstream's twins of the immortal system namespaces, immortal too when the gateway serves upstream's names. */
export const UPSTREAM_IMMORTAL_NAMESPACES: readonly string[] = [UPSTREAM_SYSTEM_NAMESPACE, UPSTREAM_PUBLIC_NAMESPACE];

/** The cause type upstream clients look for to tell "terminating" from other 403s. */
export const NAMESPACE_TERMINATING_CAUSE = 'NamespaceTerminating';

/**
 * After a namespace delete passes admission, the watch may lag behind; for this long a cache
 * hit that still says Active is double-checked with a live read.
 */
export const FORCE_LIVE_LOOKUP_MS = 5_000;

/** Reviews are never stored; answering 404 for their namespace would leak whether it exists. */
const ACCESS_REVIEWS = new Set(['localsubjectaccessreviews', 'subjectaccessreviews', 'selfsubjectaccessreviews', 'selfsubjectrulesreviews']);

export interface NamespaceLifecycleOptions {
  immortal?: readonly string[];
  /** Immortal besides `immortal` on requests telling of upstream names (`upstreamNames`). */
  upstreamImmortal?: readonly string[];
  now?: () => number;
}

function isNamespaceRequest(req: AdmissionRequest): boolean {
  return (req.kind.group === '' && req.kind.kind === 'Namespace') || (req.resource.group === '' && req.resource.resource === 'namespaces');
}

export function createNamespaceLifecycle(namespaces: NamespaceCache, opts: NamespaceLifecycleOptions = {}): AdmissionPlugin {
  const immortal = new Set(opts.immortal ?? IMMORTAL_NAMESPACES);
  const upstreamImmortal = new Set(opts.upstreamImmortal ?? UPSTREAM_IMMORTAL_NAMESPACES);
  const now = opts.now ?? Date.now;
  const recentlyDeleted = new Map<string, number>();

  const deletedRecently = (name: string): boolean => {
    const until = recentlyDeleted.get(name);
    if (until === undefined) return false;
    if (until > now()) return true;
    recentlyDeleted.delete(name);
    return false;
  };

  return {
    name: NAMESPACE_LIFECYCLE,
    // Has nothing to say about an object in a namespace the caller sees Active.
    match: { namespace: 'inactive' },
    // Rejects only; never changes the object, so the chain need not copy it for this plugin.
    mutatesObject: false,
    async mutate(req) {
      const isNamespace = isNamespaceRequest(req);
      if (req.operation === AdmissionOperation.Delete && isNamespace && (immortal.has(req.name) || (req.upstreamNames && upstreamImmortal.has(req.name)))) {
        throw admissionForbidden(req, 'this namespace may not be deleted');
      }
      if (isNamespace) {
        if (req.operation === AdmissionOperation.Delete) recentlyDeleted.set(req.name, now() + FORCE_LIVE_LOOKUP_MS);
        return;
      }
      // Cluster-scoped objects and every delete pass: cleaning up a namespace must always work.
      if (!req.namespace || req.operation === AdmissionOperation.Delete) return;
      if (req.resource.group === AUTHORIZATION_GROUP && ACCESS_REVIEWS.has(req.resource.resource)) return;

      const cached = namespaces.cached(req.namespace);
      const forceLive = cached !== undefined && !cached.terminating && deletedRecently(req.namespace);
      const ns = cached && !forceLive ? cached : await namespaces.lookup(req.namespace, { forceLive: true });
      if (!ns) throw notFound({ group: '', resource: 'namespaces' }, req.namespace);

      if (req.operation === AdmissionOperation.Create && ns.terminating) {
        const why = `unable to create new content in namespace ${req.namespace} because it is being terminated`;
        const err = admissionForbidden(req, why);
        err.status.details = { ...err.status.details, causes: [{ reason: NAMESPACE_TERMINATING_CAUSE, message: why, field: 'metadata.namespace' }] };
        throw err;
      }
    },
  };
}

export const namespaceLifecyclePlugin: PluginDefinition = {
  name: NAMESPACE_LIFECYCLE,
  defaultEnabled: true,
  create: (deps) => createNamespaceLifecycle(deps.namespaces()),
};
