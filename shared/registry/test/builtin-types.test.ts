import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtinTypes } from '../builtin-types.js';
import { createBuiltinRegistry } from '../builtin-registry.js';
import { createFlow, fields, testStrategyContext } from './builtin-helpers.js';
import { samples } from './builtin-samples.js';

const key = (t: { group: string; plural: string }) => `${t.group}/${t.plural}`;

describe('builtinTypes', () => {
  it('has unique (group, plural) pairs and unique kinds per group', () => {
    const resources = new Set<string>();
    const kinds = new Set<string>();
    for (const t of builtinTypes) {
      assert.ok(!resources.has(key(t)), `duplicate resource ${key(t)}`);
      resources.add(key(t));
      const k = `${t.group}/${t.kind}`;
      assert.ok(!kinds.has(k), `duplicate kind ${k}`);
      kinds.add(k);
    }
  });

  it('has short names that point at one type each', () => {
    const seen = new Map<string, string>();
    for (const t of builtinTypes) {
      for (const s of t.shortNames ?? []) {
        const prev = seen.get(s);
        // core and events.platform.io Events are the same objects under two groups.
        assert.ok(!prev || (s === 'ev' && t.kind === 'Event'), `short name ${s} used by ${prev} and ${key(t)}`);
        seen.set(s, key(t));
      }
    }
    for (const s of [
      'po',
      'svc',
      'no',
      'ns',
      'cm',
      'ev',
      'ep',
      'limits',
      'quota',
      'pv',
      'pvc',
      'rc',
      'sa',
      'deploy',
      'sts',
      'ds',
      'rs',
      'cj',
      'hpa',
      'csr',
      'pdb',
      'psp',
      'netpol',
      'ing',
      'pc',
      'sc',
    ]) {
      assert.ok(seen.has(s), `missing short name ${s}`);
    }
  });

  it('puts the workload kinds in the `all` category', () => {
    const all = builtinTypes
      .filter((t) => t.categories?.includes('all'))
      .map(key)
      .sort();
    assert.deepEqual(all, [
      '/pods',
      '/replicationcontrollers',
      '/services',
      'apps/daemonsets',
      'apps/deployments',
      'apps/replicasets',
      'apps/statefulsets',
      'autoscaling/horizontalpodautoscalers',
      'batch/cronjobs',
      'batch/jobs',
    ]);
  });

  it('has a sample for every type, and every sample passes schema and type rules after defaults', () => {
    for (const t of builtinTypes) {
      const sample = samples[key(t)];
      assert.ok(sample, `no sample for ${key(t)}`);
      const r = createFlow(t, sample);
      assert.deepEqual(r.schema, [], `${key(t)} schema: ${r.schema.join('; ')}`);
      assert.deepEqual(fields(r.errors), [], `${key(t)} rules: ${JSON.stringify(r.errors)}`);
    }
  });

  it('keeps schemas free of apiVersion/kind/metadata (the registry adds them)', () => {
    for (const t of builtinTypes) {
      for (const v of t.versions) {
        const props = (v.schema.properties ?? {}) as Record<string, unknown>;
        for (const k of ['apiVersion', 'kind', 'metadata']) assert.ok(!(k in props), `${key(t)} ${v.name} declares ${k}`);
      }
    }
  });

  it('builds the real registry and accepts every sample end to end', () => {
    const registry = createBuiltinRegistry();
    for (const t of builtinTypes) {
      const served = registry.servedVersions(t)[0];
      assert.ok(served, `${key(t)} not served`);
      const obj = structuredClone(samples[key(t)]!);
      obj.apiVersion = t.group ? `${t.group}/${served.version.name}` : served.version.name;
      obj.kind = t.kind;
      registry.defaults(served, obj);
      // The generic create path assigns the uid before the type's prepareForCreate.
      obj.metadata.uid ??= '5f0c7a7e-0000-4000-8000-000000000001';
      t.strategy?.prepareForCreate?.(obj, testStrategyContext);
      const errs = registry.validate(served, obj);
      assert.deepEqual(errs, [], `${key(t)}: ${JSON.stringify(errs)}`);
      assert.deepEqual(registry.unknownFields(served, obj), [], `${key(t)} unknown fields`);
    }
  });
});

describe('pod defaults and columns', () => {
  const pods = builtinTypes.find((t) => t.plural === 'pods' && t.group === '')!;

  it('defaults pod spec fields and pull policy by tag', () => {
    const { obj } = createFlow(pods, {
      metadata: { name: 'p', namespace: 'default' },
      spec: {
        containers: [
          { name: 'a', image: 'nginx' },
          { name: 'b', image: 'nginx:1.2', ports: [{ containerPort: 80 }] },
          { name: 'c', image: 'reg:5000/x:latest' },
        ],
      },
    });
    const spec = obj.spec as Record<string, any>;
    assert.equal(spec.restartPolicy, 'Always');
    assert.equal(spec.dnsPolicy, 'ClusterFirst');
    assert.equal(spec.terminationGracePeriodSeconds, 30);
    assert.equal(spec.schedulerName, 'default-scheduler');
    assert.deepEqual(spec.securityContext, {});
    assert.deepEqual(
      spec.containers.map((c: any) => c.imagePullPolicy),
      ['Always', 'IfNotPresent', 'Always'],
    );
    assert.equal(spec.containers[1].ports[0].protocol, 'TCP');
    assert.equal(spec.containers[0].terminationMessagePath, '/dev/termination-log');
    assert.equal(spec.containers[0].terminationMessagePolicy, 'File');
    assert.deepEqual(obj.status, { phase: 'Pending', qosClass: 'BestEffort' });
  });

  it('renders Ready, Status and Restarts like kubectl', () => {
    const pod = {
      metadata: { name: 'p', creationTimestamp: new Date(Date.now() - 300_000).toISOString() },
      spec: { containers: [{ name: 'a' }, { name: 'b' }] },
      status: {
        phase: 'Running',
        containerStatuses: [
          { name: 'a', ready: true, restartCount: 2, state: { running: {} } },
          { name: 'b', ready: false, restartCount: 0, state: { waiting: { reason: 'CrashLoopBackOff' } } },
        ],
      },
    };
    const cells = Object.fromEntries((pods.columns ?? []).map((c) => [c.name, c.cell(pod)]));
    assert.equal(cells.Ready, '1/2');
    assert.equal(cells.Status, 'CrashLoopBackOff');
    assert.equal(cells.Restarts, '2');
    assert.equal(cells.Age, '5m');
  });

  it('refuses spec changes beyond image and the other mutable fields', () => {
    const { obj } = createFlow(pods, samples['/pods']!);
    const imageOnly = structuredClone(obj);
    (imageOnly.spec as any).containers[0].image = 'nginx:1.26';
    assert.deepEqual(pods.strategy!.validateUpdate!(imageOnly, obj), []);
    const other = structuredClone(obj);
    (other.spec as any).nodeName = 'n2';
    assert.deepEqual(fields(pods.strategy!.validateUpdate!(other, obj)), ['spec: Forbidden']);
  });
});

describe('workload defaults and rules', () => {
  const byKey = (k: string) => builtinTypes.find((t) => key(t) === k)!;

  it('defaults deployments like apps/v1', () => {
    const { obj } = createFlow(byKey('apps/deployments'), samples['apps/deployments']!);
    const spec = obj.spec as Record<string, any>;
    assert.equal(spec.replicas, 1);
    assert.deepEqual(spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
    assert.equal(spec.revisionHistoryLimit, 10);
    assert.equal(spec.progressDeadlineSeconds, 600);
    assert.equal(spec.template.spec.restartPolicy, 'Always');
  });

  it('requires the selector to match the template labels and keeps it immutable', () => {
    const t = byKey('apps/deployments');
    const bad = structuredClone(samples['apps/deployments']!);
    (bad.spec as any).selector = { matchLabels: { app: 'other' } };
    assert.deepEqual(fields(createFlow(t, bad).errors), ['spec.template.metadata.labels: Invalid value']);
    const empty = structuredClone(samples['apps/deployments']!);
    (empty.spec as any).selector = {};
    assert.deepEqual(fields(createFlow(t, empty).errors), ['spec.selector: Invalid value']);
    const { obj } = createFlow(t, samples['apps/deployments']!);
    const changed = structuredClone(obj);
    (changed.spec as any).selector.matchLabels.tier = 'x';
    (changed.spec as any).template.metadata.labels.tier = 'x';
    assert.deepEqual(fields(t.strategy!.validateUpdate!(changed, obj)), ['spec.selector: Invalid value']);
  });

  it("lets a statefulset's containers mount its volume claim templates, and nothing else unknown", () => {
    const t = byKey('apps/statefulsets');
    const sts = structuredClone(samples['apps/statefulsets']!) as any;
    sts.spec.template.spec.containers[0].volumeMounts = [{ name: 'data', mountPath: '/data' }];
    assert.deepEqual(fields(createFlow(t, sts).errors), []);
    sts.spec.template.spec.containers[0].volumeMounts.push({ name: 'cache', mountPath: '/cache' });
    assert.deepEqual(fields(createFlow(t, sts).errors), ['spec.template.spec.containers[0].volumeMounts[1].name: Not found']);
    const dep = structuredClone(samples['apps/deployments']!) as any;
    dep.spec.template.spec.containers[0].volumeMounts = [{ name: 'data', mountPath: '/data' }];
    assert.deepEqual(fields(createFlow(byKey('apps/deployments'), dep).errors), ['spec.template.spec.containers[0].volumeMounts[0].name: Not found']);
  });

  it('generates a job selector from the uid and requires OnFailure/Never', () => {
    const t = byKey('batch/jobs');
    const { obj, errors } = createFlow(t, samples['batch/jobs']!);
    assert.deepEqual(errors, []);
    const spec = obj.spec as Record<string, any>;
    assert.deepEqual(spec.selector, { matchLabels: { 'batch.platform.io/controller-uid': obj.metadata.uid } });
    assert.equal(spec.template.metadata.labels['job-name'], 'pi');
    assert.equal(spec.completions, 1);
    assert.equal(spec.parallelism, 1);
    assert.equal(spec.backoffLimit, 2);
    const always = structuredClone(samples['batch/jobs']!);
    delete (always.spec as any).template.spec.restartPolicy;
    assert.deepEqual(fields(createFlow(t, always).errors), ['spec.template.spec.restartPolicy: Unsupported value']);
  });

  it('validates cron schedules', () => {
    const t = byKey('batch/cronjobs');
    for (const [schedule, ok] of [
      ['*/5 * * * *', true],
      ['@hourly', true],
      ['0 0 1 JAN ?', true],
      ['61 * * * *', false],
      ['* * *', false],
      ['TZ=UTC 0 * * * *', false],
    ] as const) {
      const o = structuredClone(samples['batch/cronjobs']!);
      (o.spec as any).schedule = schedule;
      assert.equal(createFlow(t, o).errors.length === 0, ok, schedule);
    }
  });

  it('defaults services and checks port names', () => {
    const t = byKey('/services');
    const { obj } = createFlow(t, samples['/services']!);
    const spec = obj.spec as Record<string, any>;
    assert.equal(spec.type, 'ClusterIP');
    assert.equal(spec.sessionAffinity, 'None');
    assert.deepEqual(spec.ports, [{ port: 80, targetPort: 8080, protocol: 'TCP' }]);
    const noTarget = createFlow(t, { metadata: { name: 'x', namespace: 'd' }, spec: { ports: [{ port: 81 }] } }).obj;
    assert.equal((noTarget.spec as any).ports[0].targetPort, 81);
    const two = createFlow(t, { metadata: { name: 'x', namespace: 'd' }, spec: { ports: [{ port: 81 }, { port: 82 }] } });
    assert.deepEqual(fields(two.errors), ['spec.ports[0].name: Required value', 'spec.ports[1].name: Required value']);
    assert.deepEqual(fields(createFlow(t, { metadata: { name: '1abc', namespace: 'd' }, spec: { ports: [{ port: 1 }] } }).errors), ['metadata.name: Invalid value']);
  });

  it('gives namespaces the platform finalizer and Active phase', () => {
    const { obj } = createFlow(byKey('/namespaces'), samples['/namespaces']!);
    assert.deepEqual(obj.spec, { finalizers: ['platform'] });
    assert.deepEqual(obj.status, { phase: 'Active' });
  });

  it('refuses data changes of immutable configmaps and secrets', () => {
    for (const k of ['/configmaps', '/secrets']) {
      const t = byKey(k);
      const { obj } = createFlow(t, { ...samples[k]!, immutable: true });
      const next = structuredClone(obj);
      (next.data as Record<string, string>).extra = 'eA==';
      assert.deepEqual(fields(t.strategy!.validateUpdate!(next, obj)), ['data: Forbidden'], k);
      const flag = structuredClone(obj);
      flag.immutable = false;
      assert.deepEqual(fields(t.strategy!.validateUpdate!(flag, obj)), ['immutable: Forbidden'], k);
    }
  });

  it('limits configmap and secret data to 1 MiB and checks keys', () => {
    const cm = byKey('/configmaps');
    assert.deepEqual(fields(createFlow(cm, { metadata: { name: 'c', namespace: 'd' }, data: { big: 'x'.repeat(1024 * 1024 + 1) } }).errors), [': Too long']);
    assert.deepEqual(fields(createFlow(cm, { metadata: { name: 'c', namespace: 'd' }, data: { 'a/b': 'x' } }).errors), ['data: Invalid value']);
    const sec = byKey('/secrets');
    const big = Buffer.alloc(1024 * 1024 + 1).toString('base64');
    assert.deepEqual(fields(createFlow(sec, { metadata: { name: 's', namespace: 'd' }, data: { big } }).errors), ['data: Too long']);
  });
});
