// PersistentVolumeLabel (deprecated upstream): a new PersistentVolume gets the zone and region
// labels of the disk behind it, and node affinity to match, so pods using it are scheduled where
// the disk can be attached. Upstream asks a cloud provider for a cloud disk's labels; this server
// has no cloud provider, so it behaves as upstream built without one: a dynamically provisioned
// volume that carries its zone and region labels is given the matching node affinity, a volume
// of a cloud disk type (AWS EBS, GCE PD, Azure Disk, Cinder, vSphere) is refused because no
// provider can label it, and every other volume passes unchanged.

import { AdmissionOperation } from '../../../../shared/bus/messages.js';
import { admissionForbidden } from '../../errors.js';
import type { AdmissionPlugin, PluginDefinition, PluginMatch } from '../../types.js';
import { isMainResource, list, rec, specOf, str, type Json } from '../pods/pod-fields.js';

export const PERSISTENT_VOLUME_LABEL = 'PersistentVolumeLabel';

export const LABEL_TOPOLOGY_ZONE = 'topology.platform.io/zone';
export const LABEL_TOPOLOGY_REGION = 'topology.platform.io/region';
export const LABEL_FAILURE_DOMAIN_BETA_ZONE = 'failure-domain.beta.platform.io/zone';
export const LABEL_FAILURE_DOMAIN_BETA_REGION = 'failure-domain.beta.platform.io/region';
/** Set by the provisioner that created the volume (upstream's `pv.kubernetes.io/provisioned-by`). */
export const ANNOTATION_DYNAMICALLY_PROVISIONED = 'pv.platform.io/provisioned-by';
/** The volume ID a provisioner gives a cloud disk it has not created yet. */
const PROVISIONING_PLACEHOLDER = 'placeholder-for-provisioning';
/** A zone label may name several zones. */
const MULTI_ZONE_DELIMITER = '__';

const PVS_CREATE: PluginMatch = { operations: [AdmissionOperation.Create], resources: [{ group: '', resource: 'persistentvolumes' }] };

/** The cloud disk sources upstream asks a provider about: the disk's identifying field and the provider's words. */
const CLOUD_DISKS: ReadonlyArray<{ source: string; id: string; what: string; provider: string; placeholder: boolean }> = [
  { source: 'awsElasticBlockStore', id: 'volumeID', what: 'AWS EBS volume', provider: 'AWS cloud provider for EBS', placeholder: true },
  { source: 'gcePersistentDisk', id: 'pdName', what: 'GCE PD volume', provider: 'GCE cloud provider for PD', placeholder: true },
  { source: 'azureDisk', id: 'diskName', what: 'AzureDisk volume', provider: 'Azure cloud provider for AzureDisk', placeholder: true },
  { source: 'cinder', id: 'volumeID', what: 'Cinder volume', provider: 'OpenStack cloud provider for Cinder disk', placeholder: true },
  { source: 'vsphereVolume', id: 'volumePath', what: 'vSphere Volume', provider: 'vSphere cloud provider', placeholder: false },
];

/** The labels the volume should carry; throws the reason a cloud disk cannot be labelled. */
function volumeLabels(pv: Json & { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> } }): Record<string, string> | undefined {
  const labels = pv.metadata?.labels ?? {};
  let ga = true;
  let zone = labels[LABEL_TOPOLOGY_ZONE];
  let region = labels[LABEL_TOPOLOGY_REGION];
  if (zone === undefined || region === undefined) {
    ga = false;
    zone = labels[LABEL_FAILURE_DOMAIN_BETA_ZONE];
    region = labels[LABEL_FAILURE_DOMAIN_BETA_REGION];
  }
  const provisioned = Object.hasOwn(pv.metadata?.annotations ?? {}, ANNOTATION_DYNAMICALLY_PROVISIONED);
  // The provisioner's labels are trusted as they are.
  if (provisioned && zone !== undefined && region !== undefined) {
    return ga ? { [LABEL_TOPOLOGY_ZONE]: zone, [LABEL_TOPOLOGY_REGION]: region } : { [LABEL_FAILURE_DOMAIN_BETA_ZONE]: zone, [LABEL_FAILURE_DOMAIN_BETA_REGION]: region };
  }
  const spec = rec(pv.spec) ?? {};
  for (const disk of CLOUD_DISKS) {
    const source = rec(spec[disk.source]);
    if (!source) continue;
    const id = str(source[disk.id]);
    if (disk.placeholder && id === PROVISIONING_PLACEHOLDER) return undefined;
    throw new Error(`error querying ${disk.what} ${id}: unable to build ${disk.provider}`);
  }
  return undefined;
}

/** The zones a zone label names, sorted; throws on an empty entry. */
export function labelZones(value: string): string[] {
  const zones = value.split(MULTI_ZONE_DELIMITER);
  if (zones.some((z) => z === '')) throw new Error(`"${MULTI_ZONE_DELIMITER}" separated list (${JSON.stringify(value)}) must not contain an empty string`);
  return [...new Set(zones)].sort();
}

export function createPersistentVolumeLabel(): AdmissionPlugin {
  return {
    name: PERSISTENT_VOLUME_LABEL,
    match: PVS_CREATE,
    mutate(req) {
      const pv = req.object;
      if (!pv || !isMainResource(req, '', 'persistentvolumes')) return;
      let labels: Record<string, string> | undefined;
      try {
        labels = volumeLabels(pv as Json);
      } catch (err) {
        throw admissionForbidden(req, (err as Error).message);
      }
      if (!labels || Object.keys(labels).length === 0) return;
      pv.metadata.labels = { ...(pv.metadata.labels ?? {}), ...labels };
      const requirements = Object.entries(labels).map(([key, value]) => {
        let values = [value];
        if (key === LABEL_TOPOLOGY_ZONE || key === LABEL_FAILURE_DOMAIN_BETA_ZONE) {
          try {
            values = labelZones(value);
          } catch {
            throw admissionForbidden(req, `failed to convert label string for Zone: ${value} to a Set`);
          }
        }
        return { key, operator: 'In', values };
      });
      const spec = specOf(pv);
      const affinity = (rec(spec.nodeAffinity) ?? (spec.nodeAffinity = {})) as Json;
      const required = (rec(affinity.required) ?? (affinity.required = {})) as Json;
      if (list(required.nodeSelectorTerms).length === 0) required.nodeSelectorTerms = [{}];
      const terms = list(required.nodeSelectorTerms).map((t) => rec(t) ?? {});
      // Affinity the volume already has for one of these labels is its creator's to keep.
      const keys = new Set(requirements.map((r) => r.key));
      if (terms.some((t) => list(t.matchExpressions).some((e) => keys.has(str(rec(e)?.key))))) return;
      required.nodeSelectorTerms = terms.map((t) => ({ ...t, matchExpressions: [...list(t.matchExpressions), ...requirements.map((r) => ({ ...r, values: [...r.values] }))] }));
    },
  };
}

export const persistentVolumeLabelPlugin: PluginDefinition = {
  name: PERSISTENT_VOLUME_LABEL,
  defaultEnabled: false,
  create: (deps) => {
    deps.log.warn('PersistentVolumeLabel admission controller is deprecated. Please remove this controller from your configuration files and scripts.');
    return createPersistentVolumeLabel();
  },
};
