// Fields a feature gate takes away (upstream's dropDisabledFields in pkg/api/pod and
// pkg/api/podsecuritypolicy): while its gate is off, a create or update loses the gated field, unless
// the stored object already used it, so turning a gate off never breaks updates of existing objects.
// The generic store runs this right after the type's prepare hooks, with the gates its service
// was started with (a strategy has no place for gates).

import type { Feature, FeatureGates } from '../../config/feature-gates.js';
import type { ApiObject } from '../../api/types.js';
import type { ResourceType } from '../types.js';
import { asArray, asObject, at, type Json } from './common/field-errors.js';

export type FeatureGateReader = Pick<FeatureGates<Feature>, 'enabled'>;

const CONTAINER_LISTS = ['containers', 'initContainers', 'ephemeralContainers'];

function containers(spec: Json): Json[] {
  return CONTAINER_LISTS.flatMap((list) => asArray(spec[list]).map(asObject)).filter((c): c is Json => c !== undefined);
}

function procMountInUse(spec: Json | undefined): boolean {
  if (!spec) return false;
  return containers(spec).some((c) => {
    const pm = asObject(c.securityContext)?.procMount;
    return pm !== undefined && pm !== null && pm !== 'Default';
  });
}

function csiInUse(spec: Json | undefined): boolean {
  return Boolean(spec) && asArray(spec!.volumes).some((v) => asObject(v)?.csi != null);
}

/** A PodSpec wherever it appears (pods and templates), against the one stored before (undefined on create). */
export function dropDisabledPodSpecFields(spec: Json | undefined, oldSpec: Json | undefined, gates: FeatureGateReader): void {
  if (!spec) return;
  if (!gates.enabled('ProcMountType') && !procMountInUse(oldSpec)) {
    // Upstream forces a given procMount to Default rather than removing it: 1.12 stored the field
    // with its default, and removing it would show as a change against such objects.
    for (const c of containers(spec)) {
      const sc = asObject(c.securityContext);
      if (sc && sc.procMount != null) sc.procMount = 'Default';
    }
  }
  if (!gates.enabled('CSIInlineVolume') && !csiInUse(oldSpec)) {
    // Only the source goes, as upstream: the volume is left without one and fails validation.
    for (const v of asArray(spec.volumes)) delete asObject(v)?.csi;
  }
}

export function dropDisabledPodSecurityPolicyFields(spec: Json | undefined, oldSpec: Json | undefined, gates: FeatureGateReader): void {
  if (!spec) return;
  if (!gates.enabled('ProcMountType') && oldSpec?.allowedProcMountTypes == null) delete spec.allowedProcMountTypes;
  // Upstream drops this one whatever the stored policy held.
  if (!gates.enabled('CSIInlineVolume')) delete spec.allowedCSIDrivers;
}

type Dropper = (obj: ApiObject, old: ApiObject | undefined, gates: FeatureGateReader) => void;

function podSpecAt(path: string): Dropper {
  return (obj, old, gates) => dropDisabledPodSpecFields(asObject(at(obj, path)), old ? asObject(at(old, path)) : undefined, gates);
}

/** `<group>/<Kind>` → what its writes lose while a gate is off (upstream's DropDisabledTemplateFields for templates). */
const GATED: Readonly<Record<string, Dropper>> = {
  '/Pod': podSpecAt('spec'),
  '/PodTemplate': podSpecAt('template.spec'),
  '/ReplicationController': podSpecAt('spec.template.spec'),
  'apps/Deployment': podSpecAt('spec.template.spec'),
  'apps/DaemonSet': podSpecAt('spec.template.spec'),
  'apps/StatefulSet': podSpecAt('spec.template.spec'),
  'apps/ReplicaSet': podSpecAt('spec.template.spec'),
  'batch/Job': podSpecAt('spec.template.spec'),
  'batch/CronJob': podSpecAt('spec.jobTemplate.spec.template.spec'),
  'policy/PodSecurityPolicy': (obj, old, gates) => dropDisabledPodSecurityPolicyFields(asObject(obj.spec), old ? asObject(old.spec) : undefined, gates),
};

/** Kinds whose writes a gate may change, as `<group>/<Kind>`. */
export const GATED_KINDS: readonly string[] = Object.keys(GATED);

/** Drops from `obj` (a create when `old` is undefined) what `gates` turn off for its type; nothing for other types. */
export function dropDisabledFields(type: ResourceType, obj: ApiObject, old: ApiObject | undefined, gates: FeatureGateReader): void {
  GATED[`${type.group}/${type.kind}`]?.(obj, old, gates);
}
