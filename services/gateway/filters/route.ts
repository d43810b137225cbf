// The served type a resource request names. A served type addressed at a path that is none of its
// routes (a cluster-scoped type, the namespaces included, inside `namespaces/<ns>/`) is answered
// here, before any role is consulted: authorizing it against the namespace it carries would let
// that namespace's grants act on objects outside it. An unserved type is 404 after authorization,
// as upstream.

import { methodNotAllowed, pathNotFound } from '../../../shared/api/status.js';
import { Route, routeOf, type Targets } from '../../../shared/registry/target.js';
import type { Filter } from './filter.js';
import { apiState } from './request-info.js';

export function routeFilter(targets: Targets): Filter {
  return {
    name: 'route',
    onRequest(req) {
      const api = apiState(req);
      const info = api.info;
      if (!info.isResourceRequest) return;
      const t = targets.of(info.groupSpelling, info.apiVersion, info.resource);
      if (!t) return;
      switch (routeOf(t, info)) {
        case Route.Served:
          api.target = t;
          return;
        case Route.MethodNotAllowed:
          throw methodNotAllowed(`${info.verb} is only supported on namespaced ${t.type.plural} within a namespace`);
        default:
          throw pathNotFound();
      }
    },
  };
}
