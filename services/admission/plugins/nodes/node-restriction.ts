// NodeRestriction: a node agent (user `system:node:<name>` in group `system:nodes`) may change
// only its own Node object and the pods bound to it. The Node authorizer decides which verbs a
// node has but never sees the objects; this plugin looks at them: the labels and taints a node
// gives itself, the node a pod is bound to, what a mirror pod references, which pod a token is
// bound to. Like upstream it hooks the mutating phase and only rejects, so a refused request
// costs no later plugin or webhook any work. Everyone who is not a node passes untouched.

import { isDeepStrictEqual } from 'node:util';
import { notFound } from '../../../../shared/api/status.js';
import type { ApiObject, OwnerReference } from '../../../../shared/api/types.js';
import { NODE_LEASE_NAMESPACE, nodeIdentity, NODES_GROUP } from '../../../../shared/api/node-identity.js';
import { wellKnownNames } from '../../../../shared/api/well-known-names.js';
import { podReferences } from '../../../../shared/api/node-references.js';
import { AdmissionOperation, type AdmissionRequest } from '../../../../shared/bus/messages.js';
import { admissionForbidden } from '../../errors.js';
import { storageReader, type ObjectReader } from '../../../../shared/bus/storage-read.js';
import type { AdmissionPlugin, PluginDefinition, PluginMatch } from '../../types.js';
import { cloneJson } from '../../../../shared/patch/json-value.js';

export const NODE_RESTRICTION = 'NodeRestriction';

/** Marks a pod the node agent mirrors from a static manifest; the only pods a node may create. */
export const MIRROR_POD_ANNOTATION = 'platform.io/config.mirror';
/** Labels here are for the cluster's administrators to steer workloads; a node may not touch them. */
export const NODE_RESTRICTION_LABEL_DOMAIN = 'node-restriction.platform.io';
const PLATFORM_LABEL_DOMAIN = 'platform.io';

/** The platform.io labels a node agent sets on its own Node (upstream's kubelet labels). */
export const NODE_SELF_LABELS: ReadonlySet<string> = new Set([
  'platform.io/hostname',
  'platform.io/arch',
  'platform.io/os',
  'beta.platform.io/arch',
  'beta.platform.io/os',
  'beta.platform.io/instance-type',
  'node.platform.io/instance-type',
  'failure-domain.beta.platform.io/region',
  'failure-domain.beta.platform.io/zone',
  'topology.platform.io/region',
  'topology.platform.io/zone',
]);
/** Label domains (and their subdomains) that are the node agent's own. */
export const NODE_SELF_LABEL_DOMAINS: readonly string[] = ['agent.platform.io', 'node.platform.io'];

const COORDINATION_GROUP = 'coordination.platform.io';
const STORAGE_GROUP = 'storage.platform.io';
const PODS = { group: '', resource: 'pods' };
const NODES = { group: '', resource: 'nodes' };

/** Upstream's handler operations; reads never reach admission and CONNECT is not restricted. */
export const NODE_RESTRICTION_MATCH: PluginMatch = {
  operations: [AdmissionOperation.Create, AdmissionOperation.Update, AdmissionOperation.Delete],
  // Only nodes are restricted: anyone else's request need not even reach the admission service.
  userGroups: [NODES_GROUP],
  resources: [
    PODS,
    NODES,
    { group: '', resource: 'persistentvolumeclaims' },
    { group: '', resource: 'serviceaccounts' },
    { group: COORDINATION_GROUP, resource: 'leases' },
    { group: STORAGE_GROUP, resource: 'csinodes' },
  ],
};

type Json = Record<string, unknown>;
const rec = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const nodeNameOf = (pod: ApiObject): unknown => rec(pod.spec)?.nodeName;

function deny(req: AdmissionRequest, why: string): never {
  throw admissionForbidden(req, why);
}

/**
 * Equality as the API machinery means it: an absent field, null, an empty list and an empty map
 * all say "nothing", so a client that drops an empty list has not changed anything.
 */
function prune(v: unknown): unknown {
  if (Array.isArray(v)) return v.length ? v.map(prune) : undefined;
  if (v !== null && typeof v === 'object') {
    const out: Json = {};
    for (const [k, x] of Object.entries(v)) {
      const p = prune(x);
      if (p !== undefined) out[k] = p;
    }
    return Object.keys(out).length ? out : undefined;
  }
  return v ?? undefined;
}

export function semanticEqual(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(prune(a), prune(b));
}

// ---- labels ---------------------------------------------------------------------------------

function labelDomain(key: string): string {
  const i = key.indexOf('/');
  return i < 0 ? '' : key.slice(0, i);
}

const inDomain = (domain: string, of: string): boolean => domain === of || domain.endsWith(`.${of}`);

/** Keys added, removed or changed between two label maps, sorted. */
export function modifiedLabels(next: Record<string, string> | undefined, old: Record<string, string> | undefined): string[] {
  const a = next ?? {};
  const b = old ?? {};
  const keys = new Set<string>();
  for (const k of Object.keys(a)) if (!Object.hasOwn(b, k) || a[k] !== b[k]) keys.add(k);
  for (const k of Object.keys(b)) if (!Object.hasOwn(a, k)) keys.add(k);
  return [...keys].sort();
}

/** Which of these label keys a node may not set, change or remove on its own Node. */
export function forbiddenNodeLabels(keys: readonly string[]): string[] {
  return keys.filter((key) => {
    const domain = labelDomain(key);
    if (inDomain(domain, NODE_RESTRICTION_LABEL_DOMAIN)) return true;
    if (!inDomain(domain, PLATFORM_LABEL_DOMAIN)) return false;
    return !NODE_SELF_LABELS.has(key) && !NODE_SELF_LABEL_DOMAINS.some((d) => inDomain(domain, d));
  });
}

// ---- the rules per resource ----------------------------------------------------------------

/** The pod as stored: the request's old object when the gateway sent one, else a live read. */
async function existingPod(read: ObjectReader, req: AdmissionRequest, name: string): Promise<ApiObject> {
  const pod = req.oldObject ?? (await read({ ...PODS, namespace: req.namespace ?? '', name }));
  if (!pod) throw notFound(PODS, name);
  return pod;
}

async function admitPodCreate(read: ObjectReader, node: string, req: AdmissionRequest): Promise<void> {
  const pod = req.object;
  if (!pod) deny(req, 'expected a Pod object');
  if (!Object.hasOwn(pod.metadata?.annotations ?? {}, MIRROR_POD_ANNOTATION)) {
    deny(req, `pod does not have "${MIRROR_POD_ANNOTATION}" annotation, node "${node}" can only create mirror pods`);
  }
  if (nodeNameOf(pod) !== node) deny(req, `node "${node}" can only create pods with spec.nodeName set to itself`);

  // The agent names its Node as the mirror pod's controller, so deleting the Node collects the
  // pod, and nothing else: any other owner would let the node attach pods to foreign objects.
  const owners = list(pod.metadata?.ownerReferences);
  if (owners.length > 1) deny(req, `node "${node}" can only create pods with a single owner reference set to itself`);
  const owner = rec(owners[0]) as Partial<OwnerReference> | undefined;
  if (!owner || owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== node) {
    deny(req, `node "${node}" can only create pods with an owner reference set to itself`);
  }
  if (owner.controller !== true) deny(req, `node "${node}" can only create pods with a controller owner reference set to itself`);
  if (owner.blockOwnerDeletion === true) deny(req, `node "${node}" must not set blockOwnerDeletion on an owner reference`);
  const self = await read({ ...NODES, name: node });
  if (!self) throw notFound(NODES, node);
  if (owner.uid !== self.metadata.uid) deny(req, `node "${node}" UID mismatch: expected ${self.metadata.uid ?? ''} got ${owner.uid ?? ''}`);

  // A mirror pod comes from a file on the node, not from the API: if it could name API objects,
  // binding it to the node would hand the node (through the Node authorizer) those objects.
  const spec = rec(pod.spec) ?? {};
  if (spec.serviceAccountName || spec.serviceAccount) deny(req, `node "${node}" can not create pods that reference a service account`);
  const refs = podReferences(pod);
  if (refs?.secrets.length) deny(req, `node "${node}" can not create pods that reference secrets`);
  if (refs?.configMaps.length) deny(req, `node "${node}" can not create pods that reference configmaps`);
  const bundles = list(spec.volumes).some((v) => list(rec(rec(v)?.projected)?.sources).some((s) => rec(s)?.clusterTrustBundle !== undefined));
  if (bundles) deny(req, `node "${node}" can not create pods that reference clustertrustbundles`);
  if (refs?.persistentVolumeClaims.length) deny(req, `node "${node}" can not create pods that reference persistentvolumeclaims`);
}

async function admitPod(read: ObjectReader, node: string, req: AdmissionRequest): Promise<void> {
  switch (req.subResource ?? '') {
    case '':
      if (req.operation === AdmissionOperation.Create) return admitPodCreate(read, node, req);
      if (req.operation === AdmissionOperation.Delete) {
        const pod = await existingPod(read, req, req.name);
        if (nodeNameOf(pod) !== node) deny(req, `node "${node}" can only delete pods with spec.nodeName set to itself`);
        return;
      }
      return deny(req, `unexpected operation "${req.operation}", node "${node}" can only create and delete mirror pods`);
    case 'status': {
      if (req.operation !== AdmissionOperation.Update) deny(req, `unexpected operation "${req.operation}"`);
      const old = await existingPod(read, req, req.name);
      if (nodeNameOf(old) !== node) deny(req, `node "${node}" can only update pod status for pods with spec.nodeName set to itself`);
      const next = req.object;
      if (!next) deny(req, 'expected a Pod object');
      if (!semanticEqual(next.metadata?.labels, old.metadata?.labels)) deny(req, `node "${node}" cannot update labels through pod status`);
      // Which claim a pod uses is the scheduler's and controllers' record, not the node's.
      const claims = (p: ApiObject) => list(rec(p.status)?.resourceClaimStatuses).map((s) => ({ name: rec(s)?.name, resourceClaimName: rec(s)?.resourceClaimName }));
      if (!semanticEqual(claims(next), claims(old))) deny(req, `node "${node}" cannot update resource claim statuses`);
      return;
    }
    case 'eviction': {
      if (req.operation !== AdmissionOperation.Create) deny(req, `unexpected operation "${req.operation}"`);
      // The URL names the pod; the Eviction's own name is only a fallback.
      const name = req.name || req.object?.metadata?.name;
      if (!name) deny(req, 'could not determine pod from request data');
      const pod = await read({ ...PODS, namespace: req.namespace ?? '', name });
      if (!pod) throw notFound(PODS, name);
      if (nodeNameOf(pod) !== node) deny(req, `node "${node}" can only evict pods with spec.nodeName set to itself`);
      return;
    }
    default:
      return deny(req, `unexpected pod subresource "${req.subResource}", only 'status' and 'eviction' are allowed`);
  }
}

function admitNode(node: string, req: AdmissionRequest): void {
  if (req.name !== node) deny(req, `node "${node}" is not allowed to modify node "${req.name}"`);
  // Upstream leaves this to the authorizer; the spec makes it a rule of its own, so it holds
  // even when another authorization mode would allow the delete.
  if (req.operation === AdmissionOperation.Delete) deny(req, `node "${node}" is not allowed to delete its node object`);
  const next = req.object;
  if (!next) deny(req, 'expected a Node object');
  const spec = rec(next.spec) ?? {};
  // Labels steer privileged workloads; a node that could pick its own could attract them.
  if (req.operation === AdmissionOperation.Create) {
    // What the node reads is scoped by its spec, so a config source would widen it.
    if (spec.configSource != null) deny(req, `node "${node}" is not allowed to create its node object with a non-nil configSource`);
    // Taints are not checked here: an agent registers with the taints it was configured with.
    const bad = forbiddenNodeLabels(modifiedLabels(next.metadata?.labels, undefined));
    if (bad.length) deny(req, `node "${node}" is not allowed to set the following labels: ${bad.join(', ')}`);
    return;
  }
  const old = req.oldObject;
  if (!old) deny(req, 'expected the stored Node object');
  const oldSpec = rec(old.spec) ?? {};
  // Only a new non-nil value counts: older agents drop the field on status updates.
  if (spec.configSource != null && !semanticEqual(spec.configSource, oldSpec.configSource)) {
    deny(req, `node "${node}" is not allowed to update configSource to a new non-nil configSource`);
  }
  // Removing a taint would let the node attract the workloads the taint keeps away.
  if (!semanticEqual(spec.taints, oldSpec.taints)) deny(req, `node "${node}" is not allowed to modify taints`);
  const bad = forbiddenNodeLabels(modifiedLabels(next.metadata?.labels, old.metadata?.labels));
  if (bad.length) deny(req, `node "${node}" is not allowed to modify labels: ${bad.join(', ')}`);
}

function admitClaim(node: string, req: AdmissionRequest): void {
  if (req.subResource !== 'status') deny(req, 'may only update PVC status');
  if (req.operation !== AdmissionOperation.Update) deny(req, `unexpected operation "${req.operation}"`);
  if (!req.object || !req.oldObject) deny(req, 'expected a PersistentVolumeClaim object');
  // A node reports capacity and conditions of a volume expansion; nothing else is its to change.
  const strip = (o: ApiObject): ApiObject => {
    const c = cloneJson(o);
    if (c.metadata) {
      delete c.metadata.resourceVersion;
      delete c.metadata.managedFields;
    }
    const status = rec(c.status);
    if (status) for (const k of ['capacity', 'conditions', 'allocatedResources', 'allocatedResourceStatuses']) delete status[k];
    return c;
  };
  if (!semanticEqual(strip(req.object), strip(req.oldObject))) {
    deny(req, `node "${node}" is not allowed to update fields other than status.capacity and status.conditions`);
  }
}

async function admitTokenRequest(read: ObjectReader, node: string, req: AdmissionRequest): Promise<void> {
  if (req.operation !== AdmissionOperation.Create || req.subResource !== 'token') return;
  // A token bound to a pod dies with the pod; requiring the binding (to a pod on this node)
  // keeps a node from minting long-lived tokens or tokens for pods it does not run.
  const ref = rec(rec(req.object?.spec)?.boundObjectRef);
  if (!ref || ref.apiVersion !== 'v1' || ref.kind !== 'Pod' || typeof ref.name !== 'string' || !ref.name) deny(req, 'node requested token not bound to a pod');
  if (!ref.uid) deny(req, 'node requested token with a pod binding without a uid');
  const pod = await read({ ...PODS, namespace: req.namespace ?? '', name: ref.name });
  if (!pod) throw notFound(PODS, ref.name);
  if (ref.uid !== pod.metadata.uid) {
    deny(req, `the UID in the bound object reference (${String(ref.uid)}) does not match the UID in record. The object might have been deleted and then recreated`);
  }
  if (nodeNameOf(pod) !== node) deny(req, 'node requested token bound to a pod scheduled on a different node');
}

/** Leases and CSINodes: only the one named after the node (a create names it in the body). */
function admitOwnNamed(node: string, req: AdmissionRequest, what: string): void {
  const name = req.operation === AdmissionOperation.Create ? req.object?.metadata?.name : req.name;
  if (name !== node) deny(req, `can only access ${what} with the same name as the requesting node`);
}

export function createNodeRestriction(read: ObjectReader): AdmissionPlugin {
  return {
    name: NODE_RESTRICTION,
    match: NODE_RESTRICTION_MATCH,
    mutatesObject: false,
    async mutate(req) {
      const node = nodeIdentity(req.userInfo);
      if (node === undefined) return;
      if (node === '') deny(req, `could not determine node from user "${req.userInfo.username}"`);
      switch (`${req.resource.group}/${req.resource.resource}`) {
        case '/pods':
          return admitPod(read, node, req);
        case '/nodes':
          return admitNode(node, req);
        case '/persistentvolumeclaims':
          return admitClaim(node, req);
        case '/serviceaccounts':
          return admitTokenRequest(read, node, req);
        case `${COORDINATION_GROUP}/leases`:
          // Upstream's kube-node-lease too when the gateway serves upstream names (stock node agents write there).
          if (!wellKnownNames(req.upstreamNames === true).nodeLeaseNamespaces.includes(req.namespace ?? '')) deny(req, `can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
          return admitOwnNamed(node, req, 'node lease');
        case `${STORAGE_GROUP}/csinodes`:
          return admitOwnNamed(node, req, 'CSINode');
        default:
          return;
      }
    },
  };
}

export const nodeRestrictionPlugin: PluginDefinition = {
  name: NODE_RESTRICTION,
  defaultEnabled: false,
  create: (deps) => createNodeRestriction(storageReader(deps.nc)),
};
