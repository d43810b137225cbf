// `--authorization-mode=Node`: what a node agent (user `system:node:<name>` in group
// `system:nodes`) may do. Secrets, config maps, claims, volumes, attachments and service-account
// tokens follow the node graph: only what a pod bound to that node needs. The rest is a short
// fixed list (upstream's node rules, narrowed where the name is known: its own Node object, its
// own lease, status of its own pods). Everyone else, and everything not listed, gets NoOpinion,
// so a later mode (RBAC) still decides.
// The mode cannot enumerate graph grants: a node's rules review is `incomplete` (as upstream's);
// anyone else's gets nothing from this mode and stays complete.

import { NODE_LEASE_NAMESPACE, nodeIdentity } from '../../../shared/api/node-identity.js';
import { wellKnownNames } from '../../../shared/api/well-known-names.js';
import { Decision, type AuthzAttributes } from '../../../shared/bus/messages.js';
import { resourceFilter } from '../../../shared/store/object-feed.js';
import { NodeGraph, STORAGE_GROUP } from '../node/graph.js';
import type { Authorizer, AuthorizerDecision, ModeFactory } from '../types.js';
import { AUTHENTICATION_GROUP, AUTHORIZATION_GROUP } from '../../../shared/api/groups.js';

const COORDINATION_GROUP = 'coordination.platform.io';
const CERTIFICATES_GROUP = 'certificates.platform.io';
const EVENTS_GROUP = 'events.platform.io';

export const REASON_GET_ONLY = 'can only get individual resources of this type';
export const noRelationship = (node: string) => `no relationship found between node '${node}' and this object`;

const allow: AuthorizerDecision = { decision: Decision.Allow };
const noOpinion = (reason?: string): AuthorizerDecision => (reason ? { decision: Decision.NoOpinion, reason } : { decision: Decision.NoOpinion });
const READ = new Set(['get', 'list', 'watch']);
const MODIFY = new Set(['update', 'patch']);

function decideGraphGet(node: string, a: AuthzAttributes, related: (name: string) => boolean): AuthorizerDecision {
  // Listing would reveal every object of the type, not just those the node's pods use.
  if (a.verb !== 'get') return noOpinion(REASON_GET_ONLY);
  if (a.subresource) return noOpinion('cannot get subresource');
  if (!a.name) return noOpinion('no object name found');
  return related(a.name) ? allow : noOpinion(noRelationship(node));
}

/** `leaseNamespaces`: where node leases may live (upstream's `kube-node-lease` too with upstream names on). */
export function decideForNode(graph: NodeGraph, node: string, a: AuthzAttributes, leaseNamespaces: readonly string[] = [NODE_LEASE_NAMESPACE]): AuthorizerDecision {
  if (!a.isResourceRequest) return noOpinion();
  const ns = a.namespace ?? '';
  const sub = a.subresource ?? '';
  const verb = a.verb;
  // Every graph-held namespaced type is read in a namespace; a cluster-wide get names nothing.
  const nsGet = (related: (ns: string, name: string) => boolean) => decideGraphGet(node, a, (name) => ns !== '' && related(ns, name));
  switch (`${a.apiGroup ?? ''}/${a.resource ?? ''}`) {
    case '/secrets':
      return nsGet((n, name) => graph.canGetSecret(node, n, name));
    case '/configmaps':
      return nsGet((n, name) => graph.canGetConfigMap(node, n, name));
    case '/persistentvolumeclaims':
      return nsGet((n, name) => graph.canGetClaim(node, n, name));
    case '/persistentvolumes':
      return decideGraphGet(node, a, (name) => graph.canGetVolume(node, name));
    case `${STORAGE_GROUP}/volumeattachments`:
      return decideGraphGet(node, a, (name) => graph.canGetAttachment(node, name));
    case '/serviceaccounts':
      if (verb !== 'create' || sub !== 'token' || !a.name) return noOpinion('can only create tokens for individual service accounts');
      return ns && graph.usesServiceAccount(node, ns, a.name) ? allow : noOpinion(noRelationship(node));
    case `${COORDINATION_GROUP}/leases`:
      if (!['get', 'create', 'update', 'patch', 'delete'].includes(verb) || sub) return noOpinion('can only get, create, update, patch, or delete a node lease');
      if (!leaseNamespaces.includes(ns)) return noOpinion(`can only access leases in the "${NODE_LEASE_NAMESPACE}" namespace`);
      // A create names its object only in the body; its name is checked on the way in (admission).
      if (a.name !== node && !(verb === 'create' && !a.name)) return noOpinion('can only access the node lease with the same name as the requesting node');
      return allow;
    case '/nodes':
      if (READ.has(verb) && !sub) return allow;
      if (verb === 'create' && !sub) return !a.name || a.name === node ? allow : noOpinion('can only create its own node object');
      if (MODIFY.has(verb) && (sub === '' || sub === 'status')) return a.name === node ? allow : noOpinion('can only modify its own node object');
      return noOpinion();
    case '/pods':
      if (READ.has(verb) && !sub) return allow;
      // Status updates and deletion of mirror pods, limited to pods bound to this node.
      if ((MODIFY.has(verb) && sub === 'status') || (verb === 'delete' && !sub)) {
        return a.name && ns && graph.podOnNode(node, ns, a.name) ? allow : noOpinion(noRelationship(node));
      }
      return noOpinion();
    case '/services':
    case '/endpoints':
      return READ.has(verb) && !sub ? allow : noOpinion();
    case '/events':
    case `${EVENTS_GROUP}/events`:
      return ['create', 'update', 'patch'].includes(verb) && !sub ? allow : noOpinion();
    case `${CERTIFICATES_GROUP}/certificatesigningrequests`:
      // Certificate rotation: request a certificate and wait for it to be issued.
      return ['create', 'get', 'list', 'watch'].includes(verb) && !sub ? allow : noOpinion();
    case `${AUTHENTICATION_GROUP}/tokenreviews`:
    case `${AUTHORIZATION_GROUP}/subjectaccessreviews`:
      // The agent checks the credentials and permissions of callers of its own API.
      return verb === 'create' && !sub ? allow : noOpinion();
    default:
      return noOpinion();
  }
}

export function createNodeAuthorizer(graph: NodeGraph, leaseNamespaces: readonly string[] = [NODE_LEASE_NAMESPACE]): Authorizer {
  return {
    name: 'Node',
    rulesFor(user) {
      if (nodeIdentity(user) === undefined) return { resourceRules: [], nonResourceRules: [], incomplete: false };
      return { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'node authorizer does not support user rule resolution' };
    },
    authorize(attrs: AuthzAttributes): AuthorizerDecision {
      const node = nodeIdentity(attrs.user);
      if (node === undefined) return noOpinion();
      if (node === '') return noOpinion(`unknown node for user "${attrs.user.username}"`);
      return decideForNode(graph, node, attrs, leaseNamespaces);
    },
  };
}

/** The resources the graph is built from. */
export const NODE_GRAPH_FILTERS: readonly string[] = [
  resourceFilter('', 'pods'),
  resourceFilter('', 'persistentvolumeclaims'),
  resourceFilter('', 'persistentvolumes'),
  resourceFilter(STORAGE_GROUP, 'volumeattachments'),
];

export const nodeMode: ModeFactory = (ctx) => {
  const graph = new NodeGraph();
  const feed = ctx.feed([...NODE_GRAPH_FILTERS], (e) => graph.apply(e));
  void feed.synced.then(() => ctx.log.info(graph.stats(), 'node graph loaded'));
  return createNodeAuthorizer(graph, wellKnownNames(ctx.config.upstreamGroupAliases ?? false).nodeLeaseNamespaces);
};
