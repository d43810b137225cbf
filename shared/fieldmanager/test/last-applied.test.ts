// From client-side to server-side apply: which conflicts kubectl's server-side apply may take over
// because the last-applied configuration applied them, and the annotation it keeps up to date.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject, JsonSchema } from '../../api/types.js';
import { StatusError } from '../../api/status.js';
import { resolvePatchSchema } from '../../patch/patch-schema.js';
import { FieldSet, pathString } from '../fieldset.js';
import { lastAppliedFields, lastAppliedValue, syncLastApplied } from '../last-applied.js';
import { apply, ownable, recordUpdate, type Writer } from '../managed.js';

const str = { type: 'string' };
const schema: JsonSchema = resolvePatchSchema({ type: 'object', properties: { data: { type: 'object', additionalProperties: str } } })!;
const ignore = ownable('', false);
const at = (manager: string): Writer => ({ manager, subresource: '', apiVersion: 'v1', now: '2026-11-24T10:00:00Z' });
const describe_ = { kind: 'configmaps', group: '' };
const KEY = 'kubectl.kubernetes.io/last-applied-configuration';
const cm = (data: Record<string, string>, annotations?: Record<string, string>): ApiObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns', ...(annotations ? { annotations } : {}) }, data }) as ApiObject;
const owned = (o: ApiObject, manager: string) =>
  FieldSet.fromFieldsV1((o.metadata.managedFields as any[]).find((e) => e.manager === manager)?.fieldsV1)
    .paths()
    .map(pathString)
    .sort();

/** What `kubectl apply` (client-side) leaves: the annotation and a kubectl-client-side-apply Update entry. */
function clientSideApplied(data: Record<string, string>): ApiObject {
  const o = cm(data, { [KEY]: lastAppliedValue(cm(data)) });
  recordUpdate(null, o, schema, at('kubectl-client-side-apply'), ignore);
  return o;
}

describe('field management - from client-side to server-side apply', () => {
  it('the fields of the annotation that still hold its values are the ones kubectl may take over', () => {
    const live = clientSideApplied({ a: '1', b: '2' });
    (live.data as any).b = 'changed by someone';
    const allowed = (manager: string, versions = ['v1']) => lastAppliedFields(live, manager, versions, schema, ignore)?.paths().map(pathString).sort();
    // b changed since it was applied: it is not the annotation's any more.
    assert.deepEqual(allowed('kubectl'), ['.data.a']);
    assert.equal(allowed('someone-else'), undefined, 'only kubectl’s own manager is upgraded');
    assert.equal(allowed('kubectl', ['apps/v1']), undefined, 'an annotation of another version is not read');
    assert.equal(lastAppliedFields(cm({ a: '1' }), 'kubectl', ['v1'], schema, ignore), undefined, 'no annotation, nothing allowed');
  });

  it('kubectl’s server-side apply of a changed value takes it from kubectl-client-side-apply without force; another manager conflicts', () => {
    const live = clientSideApplied({ a: '1', b: '2' });
    const config = cm({ a: '9', b: '2' });
    const allowed = lastAppliedFields(live, 'kubectl', ['v1'], schema, ignore);
    const merged = apply(live, structuredClone(config), schema, at('kubectl'), false, ignore, describe_, allowed);
    syncLastApplied(merged, live, config, 'kubectl');
    assert.deepEqual(merged.data, { a: '9', b: '2' });
    assert.deepEqual(owned(merged, 'kubectl'), ['.data.a', '.data.b']);
    // The value it took leaves the client-side manager; the shared one and the annotation stay with it.
    assert.deepEqual(owned(merged, 'kubectl-client-side-apply'), ['.data', '.data.b', '.metadata.annotations', `.metadata.annotations.${KEY}`]);
    assert.equal(merged.metadata.annotations![KEY], '{"apiVersion":"v1","data":{"a":"9","b":"2"},"kind":"ConfigMap","metadata":{"name":"c","namespace":"ns"}}\n');
    assert.throws(
      () => apply(live, structuredClone(config), schema, at('team-a'), false, ignore, describe_, lastAppliedFields(live, 'team-a', ['v1'], schema, ignore)),
      (e: unknown) => e instanceof StatusError && e.code === 409 && /conflict with "kubectl-client-side-apply" using v1: \.data\.a/.test(e.message),
    );
  });

  it('after kubectl moves the client-side manager’s fields (the `.` of data among them) into its entry, its re-apply keeps the data', () => {
    const live = clientSideApplied({ a: '1' });
    const merged = apply(live, cm({ a: '9' }), schema, at('kubectl'), false, ignore, describe_, lastAppliedFields(live, 'kubectl', ['v1'], schema, ignore));
    const csa = (merged.metadata.managedFields as any[]).find((e) => e.manager === 'kubectl-client-side-apply');
    const mine = (merged.metadata.managedFields as any[]).find((e) => e.manager === 'kubectl');
    mine.fieldsV1 = FieldSet.fromFieldsV1(mine.fieldsV1).union(FieldSet.fromFieldsV1(csa.fieldsV1)).toFieldsV1();
    merged.metadata.managedFields = [mine];
    const again = apply(merged, cm({ a: '9' }), schema, at('kubectl'), false, ignore, describe_);
    assert.deepEqual(again.data, { a: '9' });
  });

  it('a conflict outside the annotation’s fields still fails, naming only that one', () => {
    const live = clientSideApplied({ a: '1' });
    const other = structuredClone(live);
    (other.data as any).z = 'z';
    recordUpdate(live, other, schema, at('kubectl-edit'), ignore);
    const config = cm({ a: '9', z: 'mine' });
    const err = (() => {
      try {
        apply(other, config, schema, at('kubectl'), false, ignore, describe_, lastAppliedFields(other, 'kubectl', ['v1'], schema, ignore));
      } catch (e) {
        return e as StatusError;
      }
      return undefined;
    })();
    assert.equal(err?.code, 409);
    assert.equal(err?.message, 'Apply failed with 1 conflict: conflict with "kubectl-edit" using v1: .data.z');
  });

  it('the annotation follows kubectl’s applies only: Go’s encoding, the annotation itself left out, dropped past 256 KiB', () => {
    const live = clientSideApplied({ a: '1' });
    const merged = structuredClone(live);
    syncLastApplied(merged, live, cm({ a: '<&>' }, { [KEY]: 'stale', note: 'n' }), 'kubectl');
    assert.equal(
      merged.metadata.annotations![KEY],
      '{"apiVersion":"v1","data":{"a":"\\u003c\\u0026\\u003e"},"kind":"ConfigMap","metadata":{"annotations":{"note":"n"},"name":"c","namespace":"ns"}}\n',
    );
    const untouched = structuredClone(live);
    syncLastApplied(untouched, live, cm({ a: '2' }), 'team-a');
    assert.deepEqual(untouched, live);
    const none = cm({ a: '1' });
    syncLastApplied(none, cm({ a: '1' }), cm({ a: '2' }), 'kubectl');
    assert.equal(none.metadata.annotations, undefined, 'no annotation before, none after');
    const big = structuredClone(live);
    syncLastApplied(big, live, cm({ a: 'x'.repeat(300 * 1024) }), 'kubectl');
    assert.equal(big.metadata.annotations![KEY], undefined);
  });
});
