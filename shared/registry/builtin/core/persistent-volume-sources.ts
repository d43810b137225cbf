// The storage a PersistentVolume stands for. Exactly one source is given per volume. The sources
// are not modelled: each is kept as sent, as it was before these entries existed, so declaring them
// here only lets them carry a description in the published OpenAPI (validation and pruning are
// unchanged). Each text names the settings the source takes.

import type { JsonSchema } from '../../../api/types.js';
import { anyValue, type FieldDocs } from '../common/schema.js';

const SECRET = 'secretRef (credentials)';

/** What each volume source is, and the settings it takes. */
export const PERSISTENT_VOLUME_SOURCE_DOCS: FieldDocs = {
  csi: 'A volume managed by a CSI driver: driver (its registered name) and volumeHandle (the id the driver gave the volume) are required; also fsType, readOnly, volumeAttributes, and secrets for each driver call (controllerPublishSecretRef, nodeStageSecretRef, nodePublishSecretRef, controllerExpandSecretRef, nodeExpandSecretRef).',
  hostPath: 'A file or directory of one node, meant for tests on a single-node cluster since the data stays on that node: path, and type (what must be found there).',
  local: 'A disk, partition or directory attached to one node: path, and fsType for a raw device. Needs nodeAffinity naming that node.',
  nfs: 'An export of an NFS server: server, path, and readOnly.',
  iscsi: 'An iSCSI disk: targetPortal, iqn and lun, with optional portals, iscsiInterface, fsType, readOnly, CHAP settings (chapAuthDiscovery, chapAuthSession, secretRef) and initiatorName.',
  fc: 'A Fibre Channel disk: targetWWNs with lun, or wwids; fsType and readOnly.',
  rbd: `A Ceph RADOS block device: monitors and image, with pool, user, keyring or ${SECRET}, fsType and readOnly.`,
  cephfs: `A Ceph filesystem: monitors, with path, user, secretFile or ${SECRET}, and readOnly.`,
  glusterfs: 'A GlusterFS volume: endpoints (an Endpoints object listing the servers), endpointsNamespace, path (the volume name) and readOnly.',
  flexVolume: `A volume mounted by an exec-based FlexVolume driver on the node: driver, with fsType, ${SECRET}, readOnly and options passed to the driver.`,
  awsElasticBlockStore: 'Legacy in-tree source for an AWS EBS disk: volumeID, fsType, partition and readOnly. New volumes use the CSI driver of the provider.',
  gcePersistentDisk: 'Legacy in-tree source for a Google Compute Engine persistent disk: pdName, fsType, partition and readOnly. New volumes use the CSI driver of the provider.',
  azureDisk: 'Legacy in-tree source for an Azure data disk: diskName and diskURI, with cachingMode, fsType, kind and readOnly. New volumes use the CSI driver of the provider.',
  azureFile: 'Legacy in-tree source for an Azure file share: secretName (account name and key), secretNamespace, shareName and readOnly.',
  cinder: `Legacy in-tree source for an OpenStack Cinder volume: volumeID, fsType, readOnly and ${SECRET}.`,
  vsphereVolume: 'Legacy in-tree source for a vSphere VMDK disk: volumePath, fsType, storagePolicyName and storagePolicyID.',
  portworxVolume: 'Legacy in-tree source for a Portworx volume: volumeID, fsType and readOnly.',
  photonPersistentDisk: 'Legacy in-tree source for a Photon Controller disk: pdID and fsType.',
  flocker: 'Legacy in-tree source for a Flocker dataset: datasetName or datasetUUID.',
  quobyte: 'Legacy in-tree source for a Quobyte volume: registry, volume, user, group, tenant and readOnly.',
  scaleIO: `Legacy in-tree source for a Dell EMC ScaleIO volume: gateway, system, ${SECRET} and volumeName, with the protection domain, storage pool and mode, fsType, sslEnabled and readOnly.`,
  storageos: `Legacy in-tree source for a StorageOS volume: volumeName, volumeNamespace, fsType, readOnly and ${SECRET}.`,
};

/**
 * Any JSON value, kept as sent: what the spec did with these fields while they were undeclared. The
 * `null` among the types keeps a null as sent too (a declared field that cannot be null loses it
 * to pruning); spelled as a type list, not `nullable`, which plain ajv refuses without a type.
 */
const keptAsSent: JsonSchema = { ...anyValue, type: ['object', 'array', 'string', 'number', 'integer', 'boolean', 'null'] };

/** The sources as properties of the volume spec, each kept as sent. */
export const persistentVolumeSources: Record<string, JsonSchema> = Object.fromEntries(Object.keys(PERSISTENT_VOLUME_SOURCE_DOCS).map((name) => [name, keptAsSent]));
