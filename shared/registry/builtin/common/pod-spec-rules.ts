// The pod defaulting and validation rules the schemas (pod-spec.ts) cannot state, shared by pods,
// pod templates and every workload controller that embeds a template, and the QoS class a pod
// is created with.

import type { FieldError } from '../../../api/status.js';
import { asArray, asObject, ensureObject, type Json, setDefault } from './field-errors.js';
import { duplicate, invalidValue, notFoundValue, required } from '../../../api/field-errors.js';
import { dnsLabelError, validDnsLabel } from '../../../api/validation.js';

// ---- defaults ----

/** Upstream pull policy rule: `:latest` or no tag pulls always, anything else if not present. */
export function defaultPullPolicy(image: string): string {
  if (image.includes('@')) return 'IfNotPresent';
  const lastSegment = image.slice(image.lastIndexOf('/') + 1);
  const colon = lastSegment.lastIndexOf(':');
  if (colon < 0) return 'Always';
  return lastSegment.slice(colon + 1) === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultProbe(p: unknown): void {
  const probeObj = asObject(p);
  if (!probeObj) return;
  setDefault(probeObj, 'timeoutSeconds', 1);
  setDefault(probeObj, 'periodSeconds', 10);
  setDefault(probeObj, 'successThreshold', 1);
  setDefault(probeObj, 'failureThreshold', 3);
  const http = asObject(probeObj.httpGet);
  if (http) {
    setDefault(http, 'path', '/');
    setDefault(http, 'scheme', 'HTTP');
  }
}

function defaultContainer(c: Json, hostNetwork: boolean): void {
  if (typeof c.image === 'string' && c.image && c.imagePullPolicy === undefined) c.imagePullPolicy = defaultPullPolicy(c.image);
  setDefault(c, 'terminationMessagePath', '/dev/termination-log');
  setDefault(c, 'terminationMessagePolicy', 'File');
  for (const p of asArray(c.ports)) {
    const port = asObject(p);
    if (!port) continue;
    setDefault(port, 'protocol', 'TCP');
    if (hostNetwork && port.hostPort === undefined && port.containerPort !== undefined) port.hostPort = port.containerPort;
  }
  for (const e of asArray(c.env)) {
    const fieldRef = asObject(asObject(asObject(e)?.valueFrom)?.fieldRef);
    if (fieldRef) setDefault(fieldRef, 'apiVersion', 'v1');
  }
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
  const lc = asObject(c.lifecycle);
  for (const h of [lc?.postStart, lc?.preStop]) {
    const http = asObject(asObject(h)?.httpGet);
    if (http) {
      setDefault(http, 'path', '/');
      setDefault(http, 'scheme', 'HTTP');
    }
  }
}

function defaultVolume(v: Json): void {
  for (const k of ['secret', 'configMap', 'downwardAPI', 'projected']) {
    const src = asObject(v[k]);
    if (src) setDefault(src, 'defaultMode', 420);
  }
  const hp = asObject(v.hostPath);
  if (hp) setDefault(hp, 'type', '');
  for (const s of asArray(asObject(v.projected)?.sources)) {
    const sat = asObject(asObject(s)?.serviceAccountToken);
    if (sat) setDefault(sat, 'expirationSeconds', 3600);
  }
  for (const item of asArray(asObject(v.downwardAPI)?.items)) {
    const fieldRef = asObject(asObject(item)?.fieldRef);
    if (fieldRef) setDefault(fieldRef, 'apiVersion', 'v1');
  }
  if (Object.keys(v).length === 1 && typeof v.name === 'string') v.emptyDir = {};
}

/** SetDefaults for a PodSpec wherever it appears (pods and templates). */
export function defaultPodSpec(spec: Json | undefined): void {
  if (!spec) return;
  setDefault(spec, 'restartPolicy', 'Always');
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'terminationGracePeriodSeconds', 30);
  setDefault(spec, 'schedulerName', 'default-scheduler');
  setDefault(spec, 'securityContext', {});
  // serviceAccount is the deprecated alias; both are served so old clients keep working.
  if (!spec.serviceAccountName && typeof spec.serviceAccount === 'string' && spec.serviceAccount) spec.serviceAccountName = spec.serviceAccount;
  if (typeof spec.serviceAccountName === 'string' && spec.serviceAccountName && !spec.serviceAccount) spec.serviceAccount = spec.serviceAccountName;
  const hostNetwork = spec.hostNetwork === true;
  for (const list of ['initContainers', 'containers', 'ephemeralContainers']) {
    for (const c of asArray(spec[list])) {
      const co = asObject(c);
      if (co) defaultContainer(co, hostNetwork);
    }
  }
  for (const v of asArray(spec.volumes)) {
    const vo = asObject(v);
    if (vo) defaultVolume(vo);
  }
}

export function defaultPodTemplate(template: unknown): void {
  const t = asObject(template);
  if (t) defaultPodSpec(asObject(t.spec));
}

/** Pods only (not templates): requests default to limits; service links on. */
export function defaultPodOnly(spec: Json | undefined): void {
  if (!spec) return;
  setDefault(spec, 'enableServiceLinks', true);
  for (const list of ['initContainers', 'containers']) {
    for (const c of asArray(spec[list])) {
      const res = asObject(asObject(c)?.resources);
      const limits = asObject(res?.limits);
      if (!res || !limits) continue;
      const requests = ensureObject(res, 'requests');
      for (const [k, v] of Object.entries(limits)) if (requests[k] === undefined) requests[k] = v;
    }
  }
}

// ---- validation ----

/**
 * Rules of a PodSpec the schema cannot state: unique names, known volumes, required images.
 * `claimNames`: volumes the pods get from elsewhere (a StatefulSet's volumeClaimTemplates), which
 * containers may mount by name.
 */
export function validatePodSpec(spec: unknown, field: string, claimNames: readonly string[] = []): FieldError[] {
  const s = asObject(spec);
  if (!s) return [required(field)];
  const errs: FieldError[] = [];
  const containers = asArray(s.containers);
  if (containers.length === 0) errs.push(required(`${field}.containers`));
  const volumeNames = new Set<string>(claimNames);
  asArray(s.volumes).forEach((v, i) => {
    // Defaults give a bare volume an emptyDir, so one without a source lost it to a feature gate
    // (an inline csi volume with CSIInlineVolume off): refused as upstream refuses it.
    const vo = asObject(v);
    if (vo && Object.keys(vo).every((k) => k === 'name')) errs.push(required(`${field}.volumes[${i}]`, 'must specify a volume type'));
    const name = vo?.name;
    if (typeof name !== 'string') return;
    if (!validDnsLabel(name)) errs.push(dnsLabelError(`${field}.volumes[${i}].name`, name));
    if (volumeNames.has(name)) errs.push(duplicate(`${field}.volumes[${i}].name`, name));
    volumeNames.add(name);
  });
  const containerNames = new Set<string>();
  for (const list of ['initContainers', 'containers']) {
    asArray(s[list]).forEach((c, i) => {
      const co = asObject(c) ?? {};
      const f = `${field}.${list}[${i}]`;
      if (typeof co.name === 'string') {
        if (!validDnsLabel(co.name)) errs.push(dnsLabelError(`${f}.name`, co.name));
        if (containerNames.has(co.name)) errs.push(duplicate(`${f}.name`, co.name));
        containerNames.add(co.name);
      }
      if (typeof co.image !== 'string' || co.image.trim() === '') errs.push(required(`${f}.image`));
      asArray(co.volumeMounts).forEach((m, j) => {
        const mo = asObject(m);
        if (mo && typeof mo.name === 'string' && !volumeNames.has(mo.name)) errs.push(notFoundValue(`${f}.volumeMounts[${j}].name`, mo.name));
      });
      const portNames = new Set<string>();
      asArray(co.ports).forEach((p, j) => {
        const po = asObject(p) ?? {};
        const n = po.containerPort;
        if (typeof n === 'number' && (n < 1 || n > 65535)) errs.push(invalidValue(`${f}.ports[${j}].containerPort`, n, 'must be between 1 and 65535, inclusive'));
        if (typeof po.name === 'string') {
          if (portNames.has(po.name)) errs.push(duplicate(`${f}.ports[${j}].name`, po.name));
          portNames.add(po.name);
        }
      });
    });
  }
  return errs;
}

export function validatePodTemplate(template: unknown, field: string, claimNames: readonly string[] = []): FieldError[] {
  const t = asObject(template);
  if (!t) return [required(field)];
  return validatePodSpec(t.spec, `${field}.spec`, claimNames);
}

/** QoS class as the API server records it on pod creation. */
export function podQosClass(spec: Json | undefined): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const containers = [...asArray(spec?.initContainers), ...asArray(spec?.containers)].map((c) => asObject(c) ?? {});
  let any = false;
  let guaranteed = containers.length > 0;
  for (const c of containers) {
    const res = asObject(c.resources) ?? {};
    const limits = asObject(res.limits) ?? {};
    const requests = asObject(res.requests) ?? {};
    if (Object.keys(limits).length || Object.keys(requests).length) any = true;
    for (const r of ['cpu', 'memory']) {
      if (limits[r] === undefined) guaranteed = false;
      else if (requests[r] !== undefined && String(requests[r]) !== String(limits[r])) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}
