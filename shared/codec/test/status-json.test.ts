// Status bodies as kube-apiserver writes them, byte for byte: each row is a Status a handler
// throws and the bytes upstream's JSON serializer writes for it (field order of the Go structs,
// `omitempty` fields left out, `metadata` always, Go's HTML escaping, the encoder's newline).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import YAML from 'yaml';
import {
  alreadyExists,
  badRequest,
  forbidden,
  invalid,
  notFound,
  pathNotFound,
  resourceExpired,
  successStatus,
  tooLargeResourceVersion,
  tooManyRequests,
  unauthorized,
  type Status,
} from '../../api/status.js';
import { errorEncoder, value } from '../index.js';
import { jsonEncoder, jsonWatchEncoder } from '../json.js';
import { yamlEncoder } from '../yaml.js';
import { statusJson, upstreamStatus } from '../status-json.js';

const CM = { group: '', resource: 'configmaps' };
const expiredWithToken = ((): Status => {
  const s = resourceExpired('The provided continue parameter is too old').status;
  s.metadata = { continue: 'next', resourceVersion: '12' };
  return s;
})();

const rows: Array<[string, Status, string]> = [
  [
    'a create of an existing ConfigMap: no empty group',
    alreadyExists(CM, 'x').status,
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"x\\" already exists","reason":"AlreadyExists","details":{"name":"x","kind":"configmaps"},"code":409}\n',
  ],
  [
    'not found in a named group: group between name and kind',
    notFound({ group: 'apps', resource: 'deployments' }, 'web').status,
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \\"web\\" not found","reason":"NotFound","details":{"name":"web","group":"apps","kind":"deployments"},"code":404}\n',
  ],
  [
    'a path nothing serves: empty details are still written',
    pathNotFound().status,
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}\n',
  ],
  ['no credentials: no details at all', unauthorized().status, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}\n'],
  [
    'forbidden on a collection: no name',
    forbidden(CM, '', 'User "jane" cannot list resource "configmaps" in API group "" in the namespace "default"').status,
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps is forbidden: User \\"jane\\" cannot list resource \\"configmaps\\" in API group \\"\\" in the namespace \\"default\\"","reason":"Forbidden","details":{"kind":"configmaps"},"code":403}\n',
  ],
  [
    'invalid: causes as reason, message, field',
    invalid('ConfigMap', '', 'Bad_Name', [{ type: 'Invalid value', field: 'metadata.name', value: 'Bad_Name', detail: 'a lowercase RFC 1123 subdomain' }]).status,
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"ConfigMap \\"Bad_Name\\" is invalid: metadata.name: Invalid value: \\"Bad_Name\\": a lowercase RFC 1123 subdomain","reason":"Invalid","details":{"name":"Bad_Name","kind":"ConfigMap","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: \\"Bad_Name\\": a lowercase RFC 1123 subdomain","field":"metadata.name"}]},"code":422}\n',
  ],
  [
    'a cause with an empty field, then retryAfterSeconds last',
    tooLargeResourceVersion(20, 10).status,
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Too large resource version: 20, current: 10","reason":"Timeout","details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1},"code":504}\n',
  ],
  [
    'too many requests',
    tooManyRequests('too many requests, please try again later', 1).status,
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too many requests, please try again later","reason":"TooManyRequests","details":{"retryAfterSeconds":1},"code":429}\n',
  ],
  [
    'list metadata in ListMeta order: resourceVersion, then continue',
    expiredWithToken,
    '{"kind":"Status","apiVersion":"v1","metadata":{"resourceVersion":"12","continue":"next"},"status":"Failure","message":"The provided continue parameter is too old","reason":"Expired","code":410}\n',
  ],
  [
    'a success Status: no message, no reason',
    successStatus({ name: 'x', group: '', kind: 'configmaps', uid: 'u-1' }),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"x","kind":"configmaps","uid":"u-1"}}\n',
  ],
  [
    "Go's HTML escaping of <, > and &",
    badRequest('a <b> & c \u2028').status,
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"a \\u003cb\\u003e \\u0026 c \\u2028","reason":"BadRequest","code":400}\n',
  ],
  [
    "a Status built elsewhere (a webhook's) without apiVersion or metadata",
    { kind: 'Status', status: 'Failure', message: 'denied', reason: '', code: 403 } as unknown as Status,
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"denied","code":403}\n',
  ],
];

describe('codec - Status as upstream writes it', () => {
  for (const [name, status, bytes] of rows) {
    it(`${name}`, () => {
      assert.equal(jsonEncoder.encode(value(status), false), bytes);
      // An Accept nothing satisfies falls back to JSON: the same bytes.
      assert.equal(errorEncoder('text/html').encode(value(status), false), bytes);
    });
  }

  it('?pretty is MarshalIndent: two-space indent, same order, no trailing newline', () => {
    const text = jsonEncoder.encode(value(alreadyExists(CM, 'x').status), true);
    assert.equal(
      text,
      [
        '{',
        '  "kind": "Status",',
        '  "apiVersion": "v1",',
        '  "metadata": {},',
        '  "status": "Failure",',
        '  "message": "configmaps \\"x\\" already exists",',
        '  "reason": "AlreadyExists",',
        '  "details": {',
        '    "name": "x",',
        '    "kind": "configmaps"',
        '  },',
        '  "code": 409',
        '}',
      ].join('\n'),
    );
  });

  it('a watch ERROR event carries the Status in the same layout, one line', () => {
    const status = resourceExpired('too old resource version: 1 (5)').status;
    const line = `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (5)","reason":"Expired","code":410}}\n`;
    assert.equal(jsonWatchEncoder.event({ type: 'ERROR', status }), line);
    assert.equal(jsonWatchEncoder.frame('ERROR', status), line);
  });

  it('YAML leaves the same empty fields out', () => {
    const doc = YAML.parse(String(yamlEncoder.encode(value(alreadyExists(CM, 'x').status), false)));
    assert.deepEqual(doc, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "x" already exists',
      reason: 'AlreadyExists',
      details: { name: 'x', kind: 'configmaps' },
      code: 409,
    });
  });

  it('the plain value and the text agree, and the Status given is left as it was', () => {
    const status = alreadyExists(CM, 'x').status;
    const copy = structuredClone(status);
    assert.deepEqual(JSON.parse(statusJson(status)), upstreamStatus(status));
    assert.deepEqual(status, copy);
  });
});
