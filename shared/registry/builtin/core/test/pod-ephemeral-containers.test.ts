// Ephemeral containers as upstream validates them: through pods/<name>/ephemeralcontainers a writer
// only adds containers (names unique across every kind of container, a target that is a container,
// no ports, resources, probes, lifecycle or subpaths); a pod is never created with them and its
// main resource never changes them; the write keeps everything else of the stored pod.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../../api/types.js';
import type { FieldError } from '../../../../api/status.js';
import { pods } from '../pod.js';
import { subresourceStrategy } from '../../../subresources.js';
import { testStrategyContext } from '../../../test/builtin-helpers.js';

const brief = (errs: FieldError[]) => errs.map((e) => `${e.field}: ${e.type}${e.detail ? `: ${e.detail}` : ''}`);
const NOT_FOR = 'cannot be set for an Ephemeral Container';

function pod(ephemeral: unknown[] = [], extra: Record<string, unknown> = {}): ApiObject {
  const spec = {
    containers: [{ name: 'app', image: 'registry.example/app:1' }],
    initContainers: [{ name: 'init', image: 'registry.example/init:1' }],
    volumes: [{ name: 'data', emptyDir: {} }],
    ...extra,
    ...(ephemeral.length ? { ephemeralContainers: ephemeral } : {}),
  };
  const o = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', uid: 'u1', resourceVersion: '7' }, spec } as ApiObject;
  pods.strategy!.defaults!(o);
  return o;
}

const debug = (extra: Record<string, unknown> = {}) => ({ name: 'debugger', image: 'busybox', ...extra });
const strategy = subresourceStrategy(pods, 'ephemeralcontainers')!;
/** An ephemeralcontainers write as the generic store runs it: the subresource's prepare, then its rules. */
const write = (next: ApiObject, old: ApiObject) => {
  const prepared = strategy.prepareForUpdate(next, old, testStrategyContext);
  return { prepared, errors: brief(strategy.validateUpdate!(prepared, old)) };
};

describe('pods/ephemeralcontainers validation', () => {
  const probe = { exec: { command: ['true'] } };
  const cases: Array<[name: string, containers: unknown[], want: string[]]> = [
    ['one debugging container', [debug({ stdin: true, tty: true, targetContainerName: 'app' })], []],
    [
      'env, mounts, securityContext and command are allowed',
      [debug({ command: ['sh'], env: [{ name: 'A', value: 'b' }], volumeMounts: [{ name: 'data', mountPath: '/d' }], securityContext: { privileged: false } })],
      [],
    ],
    ['an empty resources struct is unset', [debug({ resources: {} })], []],
    ['no name', [{ image: 'busybox' }], ['spec.ephemeralContainers[0].name: Required value']],
    [
      'a name that is no DNS label',
      [debug({ name: 'Debug_1' })],
      [
        "spec.ephemeralContainers[0].name: Invalid value: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      ],
    ],
    ['the name of a container', [debug({ name: 'app' })], ['spec.ephemeralContainers[0].name: Duplicate value']],
    ['the name of an init container', [debug({ name: 'init' })], ['spec.ephemeralContainers[0].name: Duplicate value']],
    ['the name of an earlier ephemeral container', [debug(), debug({ image: 'alpine' })], ['spec.ephemeralContainers[1].name: Duplicate value']],
    ['no image', [{ name: 'debugger' }], ['spec.ephemeralContainers[0].image: Required value']],
    ['an image padded with spaces', [debug({ image: ' busybox' })], ['spec.ephemeralContainers[0].image: Invalid value: must not have leading or trailing whitespace']],
    ['a target that is no container', [debug({ targetContainerName: 'nope' })], ['spec.ephemeralContainers[0].targetContainerName: Not found']],
    ['a target that is an ephemeral container', [debug(), debug({ name: 'second', targetContainerName: 'debugger' })], ['spec.ephemeralContainers[1].targetContainerName: Not found']],
    ['a target that is an init container', [debug({ targetContainerName: 'init' })], []],
    ['ports', [debug({ ports: [{ containerPort: 80 }] })], [`spec.ephemeralContainers[0].ports: Forbidden: ${NOT_FOR}`]],
    ['resources', [debug({ resources: { limits: { cpu: '1' } } })], [`spec.ephemeralContainers[0].resources: Forbidden: ${NOT_FOR}`]],
    [
      'probes and lifecycle, in upstream field order',
      [debug({ lifecycle: { preStop: probe }, startupProbe: probe, readinessProbe: probe, livenessProbe: probe })],
      ['livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle'].map((f) => `spec.ephemeralContainers[0].${f}: Forbidden: ${NOT_FOR}`),
    ],
    ['a mount of an unknown volume', [debug({ volumeMounts: [{ name: 'other', mountPath: '/o' }] })], ['spec.ephemeralContainers[0].volumeMounts[0].name: Not found']],
    [
      'subpath mounts',
      [
        debug({
          volumeMounts: [
            { name: 'data', mountPath: '/a', subPath: 'x' },
            { name: 'data', mountPath: '/b', subPathExpr: '$(X)' },
          ],
        }),
      ],
      [`spec.ephemeralContainers[0].volumeMounts[0].subPath: Forbidden: ${NOT_FOR}`, `spec.ephemeralContainers[0].volumeMounts[1].subPathExpr: Forbidden: ${NOT_FOR}`],
    ],
  ];
  for (const [name, containers, want] of cases) it(`adding: ${name}`, () => assert.deepEqual(write(pod(containers), pod()).errors, want));

  it('an existing ephemeral container may not change or go; order does not matter', () => {
    const old = pod([debug(), debug({ name: 'second' })]);
    assert.deepEqual(write(pod([debug({ name: 'second' }), debug(), debug({ name: 'third' })]), old).errors, []);
    const changed = write(pod([debug({ image: 'alpine' }), debug({ name: 'second' })]), old).errors;
    assert.deepEqual(changed, ['spec.ephemeralContainers: Forbidden: existing ephemeral containers "debugger" may not be changed\n- image: "busybox"\n+ image: "alpine"']);
    assert.deepEqual(write(pod([debug()]), old).errors, ['spec.ephemeralContainers: Forbidden: existing ephemeral containers "second" may not be removed\n']);
  });

  it('the write keeps all of the stored pod but its ephemeral containers, which are defaulted', () => {
    const old = pod();
    old.status = { phase: 'Running' };
    const next = pod([debug()], { containers: [{ name: 'app', image: 'registry.example/app:2' }], activeDeadlineSeconds: 5 });
    next.metadata.labels = { changed: 'yes' };
    const { prepared, errors } = write(next, old);
    assert.deepEqual(errors, []);
    assert.deepEqual(prepared.metadata, old.metadata);
    assert.deepEqual(prepared.status, old.status);
    const spec = prepared.spec as Record<string, any>;
    assert.equal(spec.containers[0].image, 'registry.example/app:1');
    assert.equal(spec.activeDeadlineSeconds, undefined);
    assert.deepEqual(spec.ephemeralContainers, [{ ...debug(), imagePullPolicy: 'Always', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' }]);
  });

  it('a pod is not created with ephemeral containers', () => {
    assert.deepEqual(brief(pods.strategy!.validate!(pod([debug()]))), ['spec.ephemeralContainers: Forbidden: cannot be set on create']);
  });

  it('an update of the pod itself may not add or change ephemeral containers', () => {
    const errs = brief(pods.strategy!.validateUpdate!(pod([debug()]), pod()));
    assert.equal(errs.length, 1);
    assert.match(errs[0]!, /^spec: Forbidden: pod updates may not change fields other than /);
  });
});
