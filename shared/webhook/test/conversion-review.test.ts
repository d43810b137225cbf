import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../api/types.js';
import { conversionReview, convertedObjects, ConversionResponseError, pickReviewVersion, type ConversionReviewVersion } from '../conversion-review.js';

const UID = '0e7f4b4e-1c1a-4a43-9d2a-5b0c1e0f2b6a';
const DESIRED = 'stable.example.com/v2';

const original = (name = 'a'): ApiObject => ({
  apiVersion: 'stable.example.com/v1',
  kind: 'CronTab',
  metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: '7', labels: { app: 'x' }, finalizers: ['keep'] },
  spec: { hostPort: 'db:5432' },
});

/** What a well-behaved webhook answers for `originals`: each renamed into v2, metadata echoed. */
function converted(o: ApiObject): Record<string, unknown> {
  const [host, port] = String((o.spec as { hostPort: string }).hostPort).split(':');
  return { apiVersion: DESIRED, kind: o.kind, metadata: structuredClone(o.metadata), spec: { host, port: Number(port) } };
}

function answer(objects: Array<Record<string, unknown>>, over: { apiVersion?: string; kind?: string; uid?: unknown; result?: unknown } = {}): Record<string, unknown> {
  return {
    apiVersion: over.apiVersion ?? 'apiextensions.platform.io/v1',
    kind: over.kind ?? 'ConversionReview',
    response: { uid: 'uid' in over ? over.uid : UID, result: over.result ?? { status: 'Success' }, convertedObjects: objects },
  };
}

test('conversion review - the request names the review version, uid, desired version and objects', () => {
  assert.deepEqual(conversionReview('v1', UID, DESIRED, [original()]), {
    apiVersion: 'apiextensions.platform.io/v1',
    kind: 'ConversionReview',
    request: { uid: UID, desiredAPIVersion: DESIRED, objects: [original()] },
  });
  assert.equal(pickReviewVersion(['v2', 'v1beta1', 'v1']), 'v1beta1');
  assert.equal(pickReviewVersion(['v1']), 'v1');
  assert.equal(pickReviewVersion(['v2']), null);
});

test('conversion review - a good answer: objects converted, metadata the original but for labels and annotations', () => {
  const a = original('a');
  const b = original('b');
  const gave = [converted(a), converted(b)];
  // The webhook relabels one and tries to change what the server manages: only the labels stay.
  (gave[0]!.metadata as Record<string, unknown>).labels = { app: 'y' };
  (gave[0]!.metadata as Record<string, unknown>).annotations = { note: 'converted' };
  (gave[0]!.metadata as Record<string, unknown>).resourceVersion = '999';
  (gave[0]!.metadata as Record<string, unknown>).finalizers = [];
  delete (gave[1]!.metadata as Record<string, unknown>).labels;
  const out = convertedObjects('v1', UID, answer(gave), [a, b], DESIRED);
  assert.deepEqual(out[0], { ...gave[0], metadata: { ...a.metadata, labels: { app: 'y' }, annotations: { note: 'converted' } } });
  assert.deepEqual(out[1]!.metadata, { name: 'b', namespace: 'ns', uid: 'uid-b', resourceVersion: '7', finalizers: ['keep'] });
  assert.deepEqual(out[1]!.spec, { host: 'db', port: 5432 });
  // Upstream's spelling of the review's group is accepted in answers.
  assert.equal(convertedObjects('v1', UID, answer([converted(a)], { apiVersion: 'apiextensions.k8s.io/v1' }), [a], DESIRED).length, 1);
});

test('conversion review - answers that are not believed, with what the client is told', () => {
  const a = original('a');
  const meta = (change: Record<string, unknown>) => {
    const c = converted(a);
    c.metadata = { ...(c.metadata as Record<string, unknown>), ...change };
    return c;
  };
  const cases: Array<[string, ConversionReviewVersion, unknown, RegExp]> = [
    ['not an object', 'v1', 'nope', /^failed: the response is not a ConversionReview object$/],
    [
      'another kind',
      'v1',
      answer([converted(a)], { kind: 'AdmissionReview' }),
      /^failed: expected webhook response of apiextensions\.platform\.io\/v1, Kind=ConversionReview, got apiextensions\.platform\.io\/v1, Kind=AdmissionReview$/,
    ],
    ['another version', 'v1', answer([converted(a)], { apiVersion: 'apiextensions.platform.io/v1beta1' }), /expected webhook response of apiextensions\.platform\.io\/v1/],
    ['no response', 'v1', { apiVersion: 'apiextensions.platform.io/v1', kind: 'ConversionReview' }, /^failed: no response provided$/],
    ['uid mismatch', 'v1', answer([converted(a)], { uid: 'other' }), /^failed: expected response\.uid="0e7f4b4e-[^"]+", got "other"$/],
    ['uid missing', 'v1', answer([converted(a)], { uid: undefined }), /^failed: expected response\.uid="[^"]+", got ""$/],
    ['Failure with a message', 'v1', answer([], { result: { status: 'Failure', message: 'cannot convert hostPort' } }), /^failed: cannot convert hostPort$/],
    ['Failure without one', 'v1', answer([], { result: { status: 'Failure' } }), /^failed: response\.result\.status was 'Failure', not 'Success'$/],
    ['no result', 'v1', { apiVersion: 'apiextensions.platform.io/v1', kind: 'ConversionReview', response: { uid: UID, convertedObjects: [converted(a)] } }, /was '', not 'Success'/],
    ['count mismatch', 'v1', answer([converted(a), converted(a)]), /^returned 2 objects, expected 1$/],
    ['none returned', 'v1', answer([]), /^returned 0 objects, expected 1$/],
    ['not an object inside', 'v1', answer(['x' as unknown as Record<string, unknown>]), /^returned invalid converted object at index 0: not an object but string$/],
    [
      'wrong apiVersion',
      'v1',
      answer([{ ...converted(a), apiVersion: 'stable.example.com/v1' }]),
      /^returned invalid converted object at index 0: invalid groupVersion \(expected stable\.example\.com\/v2, received stable\.example\.com\/v1\)$/,
    ],
    ['wrong kind', 'v1', answer([{ ...converted(a), kind: 'Other' }]), /^returned invalid converted object at index 0: must have the same kind: CronTab != Other$/],
    ['name changed', 'v1', answer([meta({ name: 'b' })]), /^returned invalid converted object at index 0: must have the same name: a != b$/],
    ['namespace changed', 'v1', answer([meta({ namespace: 'other' })]), /must have the same namespace: ns != other$/],
    ['uid changed', 'v1', answer([meta({ uid: 'u2' })]), /must have the same UID: uid-a != u2$/],
    ['metadata missing', 'v1', answer([{ ...converted(a), metadata: undefined }]), /must have the same name: a != $/],
    ['metadata not a map', 'v1', answer([{ apiVersion: DESIRED, kind: 'CronTab', metadata: 'x' }]), /must have the same name/],
    [
      'a label not a string',
      'v1',
      answer([meta({ labels: { app: 1 } })]),
      /^returned invalid metadata in object at index 0: metadata\.labels\[app\] must be a string, but is number in converted object$/,
    ],
    ['labels not a map', 'v1', answer([meta({ labels: ['x'] })]), /invalid metadata\.labels of type array in converted object$/],
    ['an invalid label', 'v1', answer([meta({ labels: { 'bad key!': 'v' } })]), /^returned invalid metadata in object at index 0: metadata\.labels: Invalid value: "bad key!"/],
    ['an invalid annotation', 'v1', answer([meta({ annotations: { '-x': 'v' } })]), /^returned invalid metadata in object at index 0: metadata\.annotations: Invalid value: "-x"/],
  ];
  for (const [name, version, body, message] of cases) {
    assert.throws(
      () => convertedObjects(version, UID, body, [a], DESIRED),
      (err: Error) => err instanceof ConversionResponseError && message.test(err.message),
      name,
    );
  }
});

test('conversion review - v1beta1 answers are not checked for their kind or uid, as upstream', () => {
  const a = original();
  const out = convertedObjects('v1beta1', UID, { response: { result: { status: 'Success' }, convertedObjects: [converted(a)] } }, [a], DESIRED);
  assert.equal(out[0]!.apiVersion, DESIRED);
  assert.throws(() => convertedObjects('v1beta1', UID, { response: { result: { status: 'Failure', message: 'no' } } }, [a], DESIRED), /failed: no/);
});
