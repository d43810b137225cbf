import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../api/types.js';
import { featureGatesFromFlag } from '../../config/feature-gates.js';
import { dropDisabledFields, GATED_KINDS } from '../builtin/feature-gated-fields.js';
import { builtinTypes } from '../builtin-types.js';
import type { ResourceType } from '../types.js';
import type { FieldError } from '../../api/status.js';
import { fields, schemaErrors, testStrategyContext } from './builtin-helpers.js';
import { samples } from './builtin-samples.js';

/** A built-in type with the `--feature-gates` a gateway was started with. */
interface Gated {
  type: ResourceType;
  flag: string;
}

function type(flag: string, key: string): Gated {
  const t = builtinTypes.find((x) => `${x.group}/${x.plural}` === key);
  if (!t) throw new Error(`no type ${key}`);
  return { type: t, flag };
}

const gatesOf = (g: Gated) => featureGatesFromFlag(g.flag ? [g.flag] : []).gates;

/** A create as the generic store runs it: defaults, the type's prepare, the gated fields, validation. */
function createFlow(g: Gated, obj: ApiObject): { obj: ApiObject; errors: FieldError[] } {
  const o = structuredClone(obj);
  const t = g.type;
  o.apiVersion ??= t.group ? `${t.group}/${t.versions[0]!.name}` : t.versions[0]!.name;
  o.kind ??= t.kind;
  t.strategy?.defaults?.(o);
  o.metadata.uid ??= '5f0c7a7e-0000-4000-8000-000000000001';
  t.strategy?.prepareForCreate?.(o, testStrategyContext);
  dropDisabledFields(t, o, undefined, gatesOf(g));
  assert.deepEqual(schemaErrors(t, o), []);
  return { obj: o, errors: t.strategy?.validate?.(o) ?? [] };
}

const withProcMount = (pm: string) => ({ securityContext: { procMount: pm } });

function podWith(spec: Record<string, unknown>): ApiObject {
  const o = structuredClone(samples['/pods']!);
  Object.assign(o.spec as object, spec);
  return o;
}

const unmaskedPod = () =>
  podWith({
    containers: [{ name: 'app', image: 'nginx', ...withProcMount('Unmasked') }],
    initContainers: [{ name: 'init', image: 'busybox', ...withProcMount('Unmasked') }],
    ephemeralContainers: [{ name: 'debug', image: 'busybox', ...withProcMount('Unmasked') }],
  });

const procMounts = (spec: unknown) => ['containers', 'initContainers', 'ephemeralContainers'].flatMap((l) => ((spec as Record<string, any>)[l] ?? []).map((c: any) => c.securityContext?.procMount));

/** An update as the generic store runs it: the type's update preparation, then its update rules. */
function updateFlow(g: Gated, obj: ApiObject, old: ApiObject): ApiObject {
  const o = structuredClone(obj);
  g.type.strategy?.prepareForUpdate?.(o, old, testStrategyContext);
  dropDisabledFields(g.type, o, old, gatesOf(g));
  return o;
}

describe('feature-gated fields', () => {
  it('ProcMountType (alpha, off): every container kind gets procMount Default on create; on, Unmasked is kept', () => {
    const cases: Array<[string, string[]]> = [
      ['', ['Default', 'Default', 'Default']],
      ['ProcMountType=false', ['Default', 'Default', 'Default']],
      ['ProcMountType=true', ['Unmasked', 'Unmasked', 'Unmasked']],
      ['AllAlpha=true', ['Unmasked', 'Unmasked', 'Unmasked']],
    ];
    for (const [flag, want] of cases) {
      const { obj, errors } = createFlow(type(flag, '/pods'), unmaskedPod());
      assert.deepEqual(procMounts(obj.spec), want, flag);
      // Fields are dropped before validation; a pod is then refused for having ephemeral containers at all.
      assert.deepEqual(fields(errors), ['spec.ephemeralContainers: Forbidden'], flag);
    }
  });

  it('ProcMountType off: an update keeps a procMount the stored pod already used, and forces it otherwise', () => {
    const pods = type('', '/pods');
    const stored = createFlow(type('ProcMountType=true', '/pods'), unmaskedPod()).obj;
    assert.deepEqual(procMounts(updateFlow(pods, stored, stored).spec), ['Unmasked', 'Unmasked', 'Unmasked']);
    const plain = createFlow(pods, podWith({})).obj;
    const next = structuredClone(plain);
    (next.spec as any).containers[0].securityContext = { procMount: 'Unmasked' };
    assert.equal((updateFlow(pods, next, plain).spec as any).containers[0].securityContext.procMount, 'Default');
  });

  it('pod templates lose the gated fields as pods do (Deployment, CronJob, PodTemplate, ReplicationController)', () => {
    const paths: Array<[string, (o: any) => any]> = [
      ['apps/deployments', (o) => o.spec.template.spec],
      ['batch/cronjobs', (o) => o.spec.jobTemplate.spec.template.spec],
      ['/podtemplates', (o) => o.template.spec],
      ['/replicationcontrollers', (o) => o.spec.template.spec],
    ];
    for (const [key, specOf] of paths) {
      const o = structuredClone(samples[key]!);
      specOf(o).containers[0].securityContext = { procMount: 'Unmasked' };
      specOf(o).volumes = [{ name: 'inline', csi: { driver: 'csi.example.com' } }];
      assert.equal(specOf(createFlow(type('', key), o).obj).containers[0].securityContext.procMount, 'Default', key);
      const off = createFlow(type('CSIInlineVolume=false', key), o);
      assert.deepEqual(specOf(off.obj).volumes, [{ name: 'inline' }], key);
      assert.ok(
        off.errors.some((e) => e.field.endsWith('spec.volumes[0]') && e.detail === 'must specify a volume type'),
        `${key}: ${fields(off.errors).join(', ')}`,
      );
    }
  });

  it('CSIInlineVolume (beta, on): inline csi volumes are kept; off, the source goes and the pod is invalid, unless the stored pod had one', () => {
    const inline = podWith({ volumes: [{ name: 'inline', csi: { driver: 'csi.example.com' } }] });
    const on = createFlow(type('', '/pods'), inline);
    assert.deepEqual((on.obj.spec as any).volumes, [{ name: 'inline', csi: { driver: 'csi.example.com' } }]);
    assert.deepEqual(fields(on.errors), []);

    const off = createFlow(type('CSIInlineVolume=false', '/pods'), inline);
    assert.deepEqual((off.obj.spec as any).volumes, [{ name: 'inline' }]);
    assert.deepEqual(
      off.errors.map((e) => [e.field, e.detail]),
      [['spec.volumes[0]', 'must specify a volume type']],
    );

    // A pod stored while the gate was on stays updatable after it is turned off.
    const kept = updateFlow(type('CSIInlineVolume=false', '/pods'), on.obj, on.obj);
    assert.deepEqual((kept.spec as any).volumes, [{ name: 'inline', csi: { driver: 'csi.example.com' } }]);
  });

  it('PodSecurityPolicy: allowedProcMountTypes needs ProcMountType (or a stored policy using it); allowedCSIDrivers goes whenever CSIInlineVolume is off', () => {
    const psp = structuredClone(samples['policy/podsecuritypolicies']!);
    Object.assign(psp.spec as object, { allowedProcMountTypes: ['Default', 'Unmasked'], allowedCSIDrivers: [{ name: 'csi.example.com' }] });
    const cases: Array<[string, string[]]> = [
      ['', ['allowedCSIDrivers']],
      ['ProcMountType=true', ['allowedCSIDrivers', 'allowedProcMountTypes']],
      ['CSIInlineVolume=false', []],
      ['ProcMountType=true,CSIInlineVolume=false', ['allowedProcMountTypes']],
    ];
    for (const [flag, want] of cases) {
      const { obj } = createFlow(type(flag, 'policy/podsecuritypolicies'), psp);
      assert.deepEqual(
        Object.keys(obj.spec as object)
          .filter((k) => k === 'allowedCSIDrivers' || k === 'allowedProcMountTypes')
          .sort(),
        want,
        flag,
      );
    }
    const stored = createFlow(type('ProcMountType=true', 'policy/podsecuritypolicies'), psp).obj;
    const updated = updateFlow(type('CSIInlineVolume=false', 'policy/podsecuritypolicies'), stored, stored);
    assert.deepEqual((updated.spec as any).allowedProcMountTypes, ['Default', 'Unmasked']);
    assert.equal((updated.spec as any).allowedCSIDrivers, undefined);
  });

  it('only pods, pod templates and PodSecurityPolicies have gated fields, and every one of them is a built-in type', () => {
    const builtin = new Set(builtinTypes.map((t) => `${t.group}/${t.kind}`));
    for (const k of GATED_KINDS) assert.ok(builtin.has(k), k);
    const cm = structuredClone(samples['/configmaps']!);
    dropDisabledFields(type('', '/configmaps').type, cm, undefined, featureGatesFromFlag(['CSIInlineVolume=false']).gates);
    assert.deepEqual(cm, samples['/configmaps']);
  });
});
