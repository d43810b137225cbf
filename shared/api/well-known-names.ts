// Upstream's well-known names beside the spec's (issue 32 §2). With `--upstream-group-aliases` the
// server also takes upstream's spelling of the names stock manifests and clients rely on: the
// namespace name label, the built-in secret types and signers, the system namespaces. A twin means
// exactly what its `platform` name means; what is stored keeps the spelling the client wrote.
// Without the flag only the spec's names mean anything (`PLATFORM_NAMES`). Pure.

import { brandSpelling, NAMESPACE_NAME_LABEL } from './groups.js';
import { NODE_LEASE_NAMESPACE } from './node-identity.js';
import { CONTROLLER_ACCOUNT_NAMESPACE } from './controller-accounts.js';

/** The spec's public namespace (`cluster-info`, readable by anyone). */
export const PUBLIC_NAMESPACE = 'platform-public';
/** Upstream's spelling of the label every namespace carries with its own name. */
export const UPSTREAM_NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

/** Upstream's system namespaces, each the twin of a spec one (created beside it, not merged with it). */
export const UPSTREAM_SYSTEM_NAMESPACE = 'kube-system';
export const UPSTREAM_PUBLIC_NAMESPACE = 'kube-public';
export const UPSTREAM_NODE_LEASE_NAMESPACE = 'kube-node-lease';
export const UPSTREAM_SYSTEM_NAMESPACES = [UPSTREAM_SYSTEM_NAMESPACE, UPSTREAM_PUBLIC_NAMESPACE, UPSTREAM_NODE_LEASE_NAMESPACE] as const;

/** Upstream's secret types and the spec's twin of each. */
const UPSTREAM_SECRET_TYPES: Readonly<Record<string, string>> = {
  'kubernetes.io/service-account-token': 'platform.io/service-account-token',
  'kubernetes.io/dockercfg': 'platform.io/dockercfg',
  'kubernetes.io/dockerconfigjson': 'platform.io/dockerconfigjson',
  'kubernetes.io/basic-auth': 'platform.io/basic-auth',
  'kubernetes.io/ssh-auth': 'platform.io/ssh-auth',
  'kubernetes.io/tls': 'platform.io/tls',
};

/** Upstream's built-in signers and the spec's twin of each. */
const UPSTREAM_SIGNERS: Readonly<Record<string, string>> = {
  'kubernetes.io/kube-apiserver-client': 'platform.io/apiserver-client',
  'kubernetes.io/kube-apiserver-client-kubelet': 'platform.io/apiserver-client-agent',
  'kubernetes.io/kubelet-serving': 'platform.io/agent-serving',
  'kubernetes.io/legacy-unknown': 'platform.io/legacy-unknown',
};

/** A service-account token secret names its account in annotations spelled as its type is. */
export interface ServiceAccountAnnotations {
  name: string;
  uid: string;
}

const PLATFORM_SA_ANNOTATIONS: ServiceAccountAnnotations = { name: 'platform.io/service-account.name', uid: 'platform.io/service-account.uid' };
const UPSTREAM_SA_ANNOTATIONS: ServiceAccountAnnotations = { name: 'kubernetes.io/service-account.name', uid: 'kubernetes.io/service-account.uid' };

/** Which spellings of the well-known names the server takes. */
export interface WellKnownNames {
  /** Upstream's spellings too (`--upstream-group-aliases`). */
  readonly upstream: boolean;
  /** The spec's secret type `type` stands for: its twin for an upstream type when upstream names are on, else itself. */
  secretType(type: string): string;
  /** The spec's signer `name` stands for, as `secretType`. */
  signer(name: string): string;
  /** Every name meaning the same signer as `name`, `name` first (a permission on any of them is a permission on it). */
  signerSpellings(name: string): string[];
  /** The spec's namespace-name label, and upstream's when upstream names are on. */
  readonly namespaceNameLabels: readonly string[];
  /** The system namespaces upstream names add (none when they are off). */
  readonly systemNamespaces: readonly string[];
  /** The namespaces holding the public `cluster-info`: the spec's, and upstream's when upstream names are on. */
  readonly publicNamespaces: readonly string[];
  /** The namespaces node heartbeat leases may live in: the spec's, and upstream's when upstream names are on. */
  readonly nodeLeaseNamespaces: readonly string[];
  /**
   * The namespaces holding what aggregated API servers read (`extension-apiserver-authentication`
   * and the Role reading it): the spec's system namespace, and `kube-system` when upstream names are on.
   */
  readonly authenticationInfoNamespaces: readonly string[];
}

/** The annotations a service-account token secret of `type` names its account with (upstream's for upstream's type). */
export function serviceAccountAnnotations(type: string | undefined): ServiceAccountAnnotations {
  return type !== undefined && type.startsWith('kubernetes.io/') ? UPSTREAM_SA_ANNOTATIONS : PLATFORM_SA_ANNOTATIONS;
}

function twinOf(table: Readonly<Record<string, string>>, name: string): string | undefined {
  return Object.prototype.hasOwnProperty.call(table, name) ? table[name] : undefined;
}

function upstreamTwin(table: Readonly<Record<string, string>>, name: string): string | undefined {
  return Object.keys(table).find((k) => table[k] === name);
}

export function wellKnownNames(upstream: boolean): WellKnownNames {
  return {
    upstream,
    secretType: (type) => (upstream ? (twinOf(UPSTREAM_SECRET_TYPES, type) ?? type) : type),
    signer: (name) => (upstream ? (twinOf(UPSTREAM_SIGNERS, name) ?? name) : name),
    signerSpellings(name) {
      if (!upstream) return [name];
      const twin = twinOf(UPSTREAM_SIGNERS, name) ?? upstreamTwin(UPSTREAM_SIGNERS, name);
      return twin ? [name, twin] : [name];
    },
    namespaceNameLabels: upstream ? [NAMESPACE_NAME_LABEL, UPSTREAM_NAMESPACE_NAME_LABEL] : [NAMESPACE_NAME_LABEL],
    systemNamespaces: upstream ? UPSTREAM_SYSTEM_NAMESPACES : [],
    publicNamespaces: upstream ? [PUBLIC_NAMESPACE, UPSTREAM_PUBLIC_NAMESPACE] : [PUBLIC_NAMESPACE],
    nodeLeaseNamespaces: upstream ? [NODE_LEASE_NAMESPACE, UPSTREAM_NODE_LEASE_NAMESPACE] : [NODE_LEASE_NAMESPACE],
    authenticationInfoNamespaces: upstream ? [CONTROLLER_ACCOUNT_NAMESPACE, UPSTREAM_SYSTEM_NAMESPACE] : [CONTROLLER_ACCOUNT_NAMESPACE],
  };
}

/** Only the spec's names: the server without `--upstream-group-aliases`. */
export const PLATFORM_NAMES: WellKnownNames = wellKnownNames(false);
/** The spec's names and upstream's. */
export const UPSTREAM_NAMES: WellKnownNames = wellKnownNames(true);

/** The names a server serving these group names takes: upstream's too when it serves a built-in group under upstream's spelling. */
export function namesOfServedGroups(groups: readonly string[]): WellKnownNames {
  const served = new Set(groups);
  return [...served].some((g) => served.has(brandSpelling(g) ?? '')) ? UPSTREAM_NAMES : PLATFORM_NAMES;
}
