// Volumes of a pod and their sources (the common in-tree ones are modelled; vendor sources are
// kept as sent), and the PersistentVolumeClaim spec shared by claims, StatefulSet claim templates
// and ephemeral volumes.

import { objectFieldSelector, resourceFieldSelector } from './container.js';
import { embeddedObjectMeta, labelSelector, localObjectReference, typedLocalObjectReference } from './meta.js';
import { atomicList, bool, described, int32, int64, obj, partial, quantity, quantityMap, str, strEnum, strMap } from './schema.js';
import type { JsonSchema } from '../../../api/types.js';

const keyToPath = described(
  obj({ key: str, path: str, mode: int32 }, ['key', 'path']),
  {
    key: 'Key to write.',
    path: 'File to write it to, relative to the volume root: not absolute, and without a `..` element.',
    mode: 'Permission bits of the file, 0 to 0777 (JSON has no octal: 0644 is 420). Defaults to the defaultMode of the volume.',
  },
  'One key of a ConfigMap or Secret written to a file of a volume.',
);

const downwardAPIFile = described(
  obj({ path: str, fieldRef: objectFieldSelector, resourceFieldRef: resourceFieldSelector, mode: int32 }, ['path']),
  {
    path: 'File to write, relative to the volume root: not absolute, and without a `..` element.',
    fieldRef: 'Pod field to write: its name, namespace, uid, labels or annotations. The file follows later changes of labels and annotations.',
    resourceFieldRef: 'Limit or request of a container to write (cpu, memory, ephemeral storage).',
    mode: 'Permission bits of the file, 0 to 0777. Defaults to the defaultMode of the volume.',
  },
  'A file holding one field or resource value of the pod.',
);

const defaultMode = 'Permission bits of the files, 0 to 0777 (0644 is 420 in JSON). Defaults to 420.';
const items = (what: string): string => `Keys to write and the files to write them to. By default every key of the ${what} becomes a file named after the key.`;
const optional = (what: string): string => `When true the pod starts even if the ${what} or a listed key is missing. Defaults to false.`;

const dataSourceRef = described(
  obj({ apiGroup: str, kind: str, name: str, namespace: str }, ['kind', 'name']),
  {
    apiGroup: 'API group of the object; empty for the core group.',
    kind: 'Kind of the object.',
    name: 'Name of the object.',
    namespace: 'Namespace of the object when it is not the namespace of the claim; the owner of that namespace must allow it.',
  },
  'The object a new volume is filled from.',
);

/** PersistentVolumeClaimSpec, shared by PVCs, StatefulSet claim templates and ephemeral volumes. */
export const persistentVolumeClaimSpec: JsonSchema = described(
  obj({
    accessModes: atomicList(strEnum('ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod')),
    selector: labelSelector,
    resources: described(obj({ limits: quantityMap, requests: quantityMap }), {
      limits: 'Most storage the volume may have.',
      requests: 'Least storage the volume must have, as requests.storage (such as 10Gi).',
    }),
    volumeName: str,
    storageClassName: str,
    volumeMode: strEnum('Block', 'Filesystem'),
    dataSource: typedLocalObjectReference,
    dataSourceRef,
    volumeAttributesClassName: str,
  }),
  {
    accessModes: 'How the volume must be mountable: ReadWriteOnce (read-write by one node), ReadOnlyMany, ReadWriteMany, or ReadWriteOncePod (read-write by one pod).',
    selector: 'Labels an existing volume must carry to be bound to the claim.',
    resources: 'Storage the volume must provide.',
    volumeName: 'Bind the claim to this PersistentVolume, by name.',
    storageClassName: 'StorageClass whose provisioner creates the volume. Omitted uses the default class; an empty string asks for a volume with no class.',
    volumeMode: 'Filesystem (the default) mounts a filesystem; Block gives the volume as a raw device.',
    dataSource: 'Object in the namespace of the claim to fill the new volume from: a VolumeSnapshot or another claim.',
    dataSourceRef: 'Object to fill the new volume from, of any kind a populator handles, possibly in another namespace. Takes over dataSource when both are given.',
    volumeAttributesClassName: 'VolumeAttributesClass of the volume, for settings that may change after creation.',
  },
  'What a claim asks of its volume: size, access modes, class and where its data comes from.',
);

const projection = described(
  obj({
    secret: described(obj({ name: str, items: atomicList(keyToPath), optional: bool }), { name: 'Name of the Secret.', items: items('Secret'), optional: optional('Secret') }),
    configMap: described(obj({ name: str, items: atomicList(keyToPath), optional: bool }), { name: 'Name of the ConfigMap.', items: items('ConfigMap'), optional: optional('ConfigMap') }),
    downwardAPI: described(obj({ items: atomicList(downwardAPIFile) }), { items: 'Files to write.' }),
    serviceAccountToken: described(obj({ audience: str, expirationSeconds: int64, path: str }, ['path']), {
      audience: 'Audience the token is for. Defaults to the audience of the API server.',
      expirationSeconds: 'Lifetime asked for, in seconds; at least 600. Defaults to 3600. The node agent replaces the token before it expires.',
      path: 'File the token is written to, relative to the volume root.',
    }),
    clusterTrustBundle: described(partial({ path: str }, ['path']), { path: 'File the bundle of certificates is written to, relative to the volume root.' }),
  }),
  {
    secret: 'Keys of a Secret in the namespace of the pod.',
    configMap: 'Keys of a ConfigMap in the namespace of the pod.',
    downwardAPI: 'Fields and resource values of the pod.',
    serviceAccountToken: 'A token of the service account of the pod, bound to the pod.',
    clusterTrustBundle: 'Certificates of ClusterTrustBundle objects.',
  },
  'One source of a projected volume. Exactly one field is given.',
);

const ownedSource = (what: string, nameField: string): JsonSchema =>
  described(obj({ [nameField]: str, items: atomicList(keyToPath), defaultMode: int32, optional: bool }), {
    [nameField]: `Name of the ${what}, in the namespace of the pod.`,
    items: items(what),
    defaultMode,
    optional: optional(what),
  });

const volumeSources = {
  emptyDir: described(obj({ medium: str, sizeLimit: quantity }), {
    medium: 'What backs the directory: empty for the disk of the node, Memory for a RAM filesystem whose contents count as memory of the containers.',
    sizeLimit: 'Most space the directory may use; a pod that uses more is evicted. Unset means no limit of its own.',
  }),
  hostPath: described(obj({ path: str, type: strEnum('', 'DirectoryOrCreate', 'Directory', 'FileOrCreate', 'File', 'Socket', 'CharDevice', 'BlockDevice') }, ['path']), {
    path: 'Path on the node. A symbolic link is followed to what it points at.',
    type: 'What must be found at path before mounting: empty (the default) checks nothing; Directory, File, Socket, CharDevice and BlockDevice must exist; DirectoryOrCreate and FileOrCreate are created when missing.',
  }),
  secret: ownedSource('Secret', 'secretName'),
  configMap: ownedSource('ConfigMap', 'name'),
  persistentVolumeClaim: described(obj({ claimName: str, readOnly: bool }, ['claimName']), {
    claimName: 'Name of a PersistentVolumeClaim in the namespace of the pod.',
    readOnly: 'Mount the volume read-only in every container. Defaults to false.',
  }),
  downwardAPI: described(obj({ items: atomicList(downwardAPIFile), defaultMode: int32 }), { items: 'Files to write.', defaultMode }),
  projected: described(obj({ defaultMode: int32, sources: atomicList(projection) }), { defaultMode, sources: 'Sources whose files are put together in the one directory.' }),
  nfs: described(obj({ server: str, path: str, readOnly: bool }, ['server', 'path']), {
    server: 'Host name or address of the NFS server.',
    path: 'Path exported by the server.',
    readOnly: 'Mount the export read-only. Defaults to false.',
  }),
  csi: described(obj({ driver: str, readOnly: bool, fsType: str, volumeAttributes: strMap, nodePublishSecretRef: localObjectReference }, ['driver']), {
    driver: 'Name of the CSI driver that provides the volume, as registered on the node.',
    readOnly: 'Mount the volume read-only. Defaults to false.',
    fsType: 'Filesystem type to mount, such as ext4; the driver picks one when empty.',
    volumeAttributes: 'Settings passed to the driver as they are; the driver decides what they mean.',
    nodePublishSecretRef: 'Secret in the namespace of the pod with credentials the driver needs to mount the volume.',
  }),
  ephemeral: described(
    obj({
      volumeClaimTemplate: described(obj({ metadata: embeddedObjectMeta, spec: persistentVolumeClaimSpec }, ['spec']), {
        metadata: 'Labels and annotations given to the claim.',
        spec: 'Spec of the claim.',
      }),
    }),
    {
      volumeClaimTemplate: 'Claim made for the pod, named `<pod>-<volume>` and owned by the pod, so it is deleted with it.',
    },
  ),
};

/**
 * Volume: the common in-tree sources are modelled; the many vendor sources (rbd, cephfs, ...)
 * are kept as sent, so the item is partial.
 */
export const volume: JsonSchema = described(
  partial({ name: str, ...volumeSources }, ['name']),
  {
    name: 'Name of the volume: a DNS label, unique in the pod. Containers mount the volume by this name.',
    emptyDir: 'An empty directory made when the pod starts on a node and removed with the pod. The default when a volume names no source.',
    hostPath: 'A file or directory of the node. It gives the pod access to the host, so it is meant for system agents.',
    secret: 'Files made from the keys of a Secret. The files follow later changes of the Secret (unless mounted with subPath).',
    configMap: 'Files made from the keys of a ConfigMap. The files follow later changes of the ConfigMap (unless mounted with subPath).',
    persistentVolumeClaim: 'The volume bound to a PersistentVolumeClaim.',
    downwardAPI: 'Files holding fields and resource values of the pod.',
    projected: 'Files from several Secrets, ConfigMaps, pod fields and service account tokens in one directory.',
    nfs: 'An export of an NFS server.',
    csi: 'A volume a CSI driver provides for the life of the pod.',
    ephemeral: 'A volume from a claim made for the pod alone and deleted with it.',
  },
  'A named volume of a pod, which its containers can mount. Exactly one source is given.',
);
