import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
import { silentLogger } from '../../../shared/log.js';
import { createPersistentVolumeLabel, labelZones, persistentVolumeLabelPlugin } from '../plugins/volumes/persistent-volume-label.js';
import type { PluginDeps } from '../types.js';
import { CTX, rejects, request } from './scheduling-fixtures.js';

const PROVISIONED = { 'pv.platform.io/provisioned-by': 'ebs.csi.example' };
const pv = (meta: Record<string, unknown> = {}, spec: Record<string, unknown> = {}): ApiObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name: 'vol', ...meta },
  spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], ...spec },
});

describe('PersistentVolumeLabel (no cloud provider)', () => {
  const plugin = createPersistentVolumeLabel();
  const admit = async (v: ApiObject) => {
    await plugin.mutate!(request('persistentvolumes', { object: v }), CTX);
    return v;
  };

  it('passes volumes that are not cloud disks unchanged', async () => {
    for (const spec of [{ hostPath: { path: '/data' } }, { csi: { driver: 'x', volumeHandle: 'h' } }, { nfs: { server: 's', path: '/' } }]) {
      const v = pv({ labels: { 'topology.platform.io/zone': 'a' } }, spec);
      const before = structuredClone(v);
      assert.deepEqual(await admit(v), before);
    }
  });

  it('gives a dynamically provisioned volume node affinity for the zones and region it is labelled with', async () => {
    const v = await admit(
      pv({ annotations: PROVISIONED, labels: { 'topology.platform.io/zone': 'b__a', 'topology.platform.io/region': 'r1', app: 'db' } }, { awsElasticBlockStore: { volumeID: 'vol-1' } }),
    );
    assert.deepEqual(v.metadata.labels, { 'topology.platform.io/zone': 'b__a', 'topology.platform.io/region': 'r1', app: 'db' });
    assert.deepEqual((v.spec as Record<string, unknown>).nodeAffinity, {
      required: {
        nodeSelectorTerms: [
          {
            matchExpressions: [
              { key: 'topology.platform.io/zone', operator: 'In', values: ['a', 'b'] },
              { key: 'topology.platform.io/region', operator: 'In', values: ['r1'] },
            ],
          },
        ],
      },
    });
  });

  it('falls back to the beta failure-domain labels and appends to every existing term', async () => {
    const terms = [{ matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] }, { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }];
    const v = await admit(
      pv(
        { annotations: PROVISIONED, labels: { 'failure-domain.beta.platform.io/zone': 'z', 'failure-domain.beta.platform.io/region': 'r' } },
        { nodeAffinity: { required: { nodeSelectorTerms: terms } } },
      ),
    );
    const want = [
      { key: 'failure-domain.beta.platform.io/zone', operator: 'In', values: ['z'] },
      { key: 'failure-domain.beta.platform.io/region', operator: 'In', values: ['r'] },
    ];
    assert.deepEqual((v.spec as { nodeAffinity: unknown }).nodeAffinity, {
      required: { nodeSelectorTerms: [{ matchExpressions: [terms[0]!.matchExpressions![0], ...want] }, { ...terms[1], matchExpressions: want }] },
    });
  });

  it('keeps node affinity that already names one of the labels', async () => {
    const affinity = { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.platform.io/zone', operator: 'In', values: ['x'] }] }] } };
    const v = await admit(pv({ annotations: PROVISIONED, labels: { 'topology.platform.io/zone': 'a', 'topology.platform.io/region': 'r' } }, { nodeAffinity: structuredClone(affinity) }));
    assert.deepEqual((v.spec as { nodeAffinity: unknown }).nodeAffinity, affinity);
  });

  const refused: Array<[string, Record<string, unknown>, string]> = [
    ['an AWS EBS volume', { awsElasticBlockStore: { volumeID: 'vol-1' } }, 'error querying AWS EBS volume vol-1: unable to build AWS cloud provider for EBS'],
    ['a GCE PD', { gcePersistentDisk: { pdName: 'pd-1' } }, 'error querying GCE PD volume pd-1: unable to build GCE cloud provider for PD'],
    ['an Azure disk', { azureDisk: { diskName: 'd1', diskURI: 'u' } }, 'error querying AzureDisk volume d1: unable to build Azure cloud provider for AzureDisk'],
    ['a Cinder volume', { cinder: { volumeID: 'c1' } }, 'error querying Cinder volume c1: unable to build OpenStack cloud provider for Cinder disk'],
    ['a vSphere volume', { vsphereVolume: { volumePath: '[ds] v.vmdk' } }, 'error querying vSphere Volume [ds] v.vmdk: unable to build vSphere cloud provider'],
  ];
  for (const [name, spec, why] of refused) {
    it(`refuses ${name}: no cloud provider can label it`, async () => {
      await rejects(() => admit(pv({}, spec)), 403, `persistentvolumes "vol" is forbidden: ${why}`);
    });
  }

  it('passes a cloud disk that is still being provisioned', async () => {
    await admit(pv({}, { gcePersistentDisk: { pdName: 'placeholder-for-provisioning' } }));
  });

  it('refuses a zone label with an empty zone', async () => {
    assert.deepEqual(labelZones('a__b__a'), ['a', 'b']);
    await rejects(
      () => admit(pv({ annotations: PROVISIONED, labels: { 'topology.platform.io/zone': 'a__', 'topology.platform.io/region': 'r' } })),
      403,
      'persistentvolumes "vol" is forbidden: failed to convert label string for Zone: a__ to a Set',
    );
  });

  it('warns at start that it is deprecated', async () => {
    const warnings: string[] = [];
    const log = Object.assign(Object.create(silentLogger()), { warn: (m: string) => warnings.push(m) });
    await persistentVolumeLabelPlugin.create({ log } as unknown as PluginDeps);
    assert.deepEqual(warnings, ['PersistentVolumeLabel admission controller is deprecated. Please remove this controller from your configuration files and scripts.']);
  });
});
