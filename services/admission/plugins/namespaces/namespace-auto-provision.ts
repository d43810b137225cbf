// NamespaceAutoProvision: creating an object in a namespace that does not exist creates the
// namespace first, as the API server would for a client's create (uid, creationTimestamp, the
// namespace finalizer, phase Active). Runs before NamespaceLifecycle, which then finds it. A
// dry run creates nothing (sideEffects NoneOnDryRun), as upstream.

import { invalid, StatusError } from '../../../../shared/api/status.js';
import { nowTimestamp } from '../../../../shared/api/time.js';
import type { ApiObject, UserInfo } from '../../../../shared/api/types.js';
import { isDNS1123Label } from '../../../../shared/api/validation.js';
import { AdmissionOperation } from '../../../../shared/bus/messages.js';
import { normalizeObject } from '../../../../shared/proto/envelope.js';
import { namespaces as namespaceType } from '../../../../shared/registry/builtin/core/namespace.js';
import { prepareForCreate } from '../../../../shared/registry/rest/prepare.js';
import { API_SERVER_USER } from '../../../../shared/registry/rest/internal-store.js';
import { admissionForbidden } from '../../errors.js';
import type { NamespaceCache } from '../../namespace-cache.js';
import type { StorageWriter } from '../../storage-writer.js';
import type { AdmissionPlugin, PluginDefinition, PluginMatch } from '../../types.js';
import { isNamespaceKind } from './namespace-exists.js';
import { PLATFORM_NAMES, UPSTREAM_NAMES, type WellKnownNames } from '../../../../shared/api/well-known-names.js';

export const NAMESPACE_AUTO_PROVISION = 'NamespaceAutoProvision';

const CREATES: PluginMatch = { operations: [AdmissionOperation.Create] };

/** A Namespace as the generic store prepares one for a create: defaults, then server-owned fields. */
export function newNamespace(name: string, user: UserInfo = API_SERVER_USER, now: string = nowTimestamp(), names: WellKnownNames = PLATFORM_NAMES): ApiObject {
  const ns: ApiObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
  namespaceType.strategy?.defaults?.(ns, names);
  prepareForCreate(namespaceType, ns, { user, now, names });
  normalizeObject('v1', 'Namespace', ns as unknown as Record<string, unknown>, true);
  return ns;
}

export function createNamespaceAutoProvision(namespaces: NamespaceCache, write: StorageWriter): AdmissionPlugin {
  return {
    name: NAMESPACE_AUTO_PROVISION,
    match: CREATES,
    sideEffects: 'NoneOnDryRun',
    mutatesObject: false,
    async mutate(req) {
      if (req.dryRun || !req.namespace || isNamespaceKind(req)) return;
      if (namespaces.cached(req.namespace)) return;
      const name = req.namespace;
      // Upstream creates it through the API, whose validation would refuse such a name.
      const errs = isDNS1123Label(name);
      if (errs.length) throw admissionForbidden(req, invalid('Namespace', '', name, errs).message);
      try {
        // A namespace the cache has not seen yet may exist already: the create then finds it.
        await write.create({ group: '', resource: 'namespaces', name }, newNamespace(name, API_SERVER_USER, nowTimestamp(), req.upstreamNames ? UPSTREAM_NAMES : PLATFORM_NAMES));
      } catch (err) {
        if (err instanceof StatusError && err.status.reason === 'AlreadyExists') return;
        throw admissionForbidden(req, err instanceof Error ? err.message : String(err));
      }
    },
  };
}

export const namespaceAutoProvisionPlugin: PluginDefinition = {
  name: NAMESPACE_AUTO_PROVISION,
  defaultEnabled: false,
  create: (deps) => createNamespaceAutoProvision(deps.namespaces(), deps.write),
};
