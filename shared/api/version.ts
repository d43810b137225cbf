// The Kubernetes release whose API this server serves, as /version reports it, and the release an
// operator may have it report instead (`--emulated-version`, upstream 1.31's flag name). Clients
// pick APIs by the reported version, Helm checks a chart's `kubeVersion` against it, kubectl warns
// on skew: it must name what is served unless an operator says otherwise.

/** The spec's reference release: the groups, versions and behaviour served are 1.24's. */
export const SERVED_RELEASE = '1.24';

/** Semver build metadata naming this implementation and its own version (no part of version precedence). */
const BUILD_METADATA = 'platform.0.1.0';

/**
 * The gitVersion reported for a release `<major>.<minor>`: its `.0` (no upstream patch release's
 * fixes are claimed), marked as this implementation (`v1.24.0+platform.0.1.0`, the way k3s
 * reports `v1.24.3+k3s1`).
 */
export function gitVersionOf(release: string): string {
  return `v${release}.0+${BUILD_METADATA}`;
}

// Upstream's value is `[<component>=]<major>.<minor>`, `kube` being the component when none is named.
const EMULATED_VERSION = /^(?:([^=]*)=)?(\d+)\.(\d+)$/;

/**
 * `--emulated-version`: the release `<major>.<minor>` /version reports (`1.28`, or upstream's
 * `kube=1.28`). Only major 1 exists. Throws a RangeError that says what is wrong otherwise.
 */
export function parseEmulatedVersion(value: string): string {
  const m = EMULATED_VERSION.exec(value.trim());
  if (!m) throw new RangeError(`--emulated-version: ${JSON.stringify(value)} is not a release of the form <major>.<minor> (for example ${SERVED_RELEASE})`);
  const [, component, major, minor] = m;
  if (component !== undefined && component !== 'kube') throw new RangeError(`--emulated-version: unknown component ${JSON.stringify(component)}: only kube (the default) is served here`);
  if (major !== '1') throw new RangeError(`--emulated-version: major version ${major} does not exist: the releases are 1.<minor>`);
  if (minor!.length > 1 && minor!.startsWith('0')) throw new RangeError(`--emulated-version: ${JSON.stringify(value)}: the minor version has a leading zero`);
  if (minor!.length > 3) throw new RangeError(`--emulated-version: ${JSON.stringify(value)}: the minor version is out of range`);
  return `${major}.${minor}`;
}
