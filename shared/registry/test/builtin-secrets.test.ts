import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../api/types.js';
import { secrets } from '../builtin/core/secret.js';
import { b64, createFlow, fields } from './builtin-helpers.js';

function token(data: Record<string, string>, meta: Record<string, string> = {}): ApiObject {
  return {
    metadata: { name: 'bootstrap-token-abcdef', namespace: 'platform-system', ...meta },
    type: 'bootstrap.platform.io/token',
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
  };
}

const good = { 'token-id': 'abcdef', 'token-secret': '0123456789abcdef' };

describe('bootstrap token secrets', () => {
  const cases: Array<[string, ApiObject, string[]]> = [
    ['minimal', token(good), []],
    [
      'all optional keys',
      token({
        ...good,
        description: 'join token',
        expiration: '2030-01-02T15:04:05Z',
        'usage-bootstrap-authentication': 'true',
        'usage-bootstrap-signing': 'false',
        'auth-extra-groups': 'system:bootstrappers:worker,system:bootstrappers:ingress',
      }),
      [],
    ],
    ['wrong namespace', token(good, { namespace: 'default' }), ['metadata.namespace: Invalid value']],
    ['name without prefix', token(good, { name: 'abcdef' }), ['metadata.name: Invalid value']],
    ['token-id differs from name', token({ ...good, 'token-id': 'zzzzzz' }), ['data[token-id]: Invalid value']],
    ['token-id wrong format', token({ ...good, 'token-id': 'ABCDEF' }), ['data[token-id]: Invalid value']],
    ['token-id missing', token({ 'token-secret': good['token-secret'] }), ['data[token-id]: Required value']],
    ['token-secret missing', token({ 'token-id': 'abcdef' }), ['data[token-secret]: Required value']],
    ['token-secret too short', token({ ...good, 'token-secret': 'abc' }), ['data[token-secret]: Invalid value']],
    ['expiration not RFC 3339', token({ ...good, expiration: 'tomorrow' }), ['data[expiration]: Invalid value']],
    ['usage value', token({ ...good, 'usage-bootstrap-signing': 'yes' }), ['data[usage-bootstrap-signing]: Invalid value']],
    ['unknown usage', token({ ...good, 'usage-bootstrap-everything': 'true' }), ['data[usage-bootstrap-everything]: Unsupported value']],
    ['extra group prefix', token({ ...good, 'auth-extra-groups': 'system:bootstrappers:ok,system:masters' }), ['data[auth-extra-groups]: Invalid value']],
  ];
  for (const [name, obj, want] of cases) it(name, () => assert.deepEqual(fields(createFlow(secrets, obj).errors), want));

  it('accepts the keys given as stringData', () => {
    const o: ApiObject = { metadata: { name: 'bootstrap-token-abcdef', namespace: 'platform-system' }, type: 'bootstrap.platform.io/token', stringData: good };
    const r = createFlow(secrets, o);
    assert.deepEqual(r.errors, []);
    assert.equal(r.obj.stringData, undefined);
    assert.equal((r.obj.data as Record<string, string>)['token-id'], b64('abcdef'));
  });
});

describe('typed secrets', () => {
  const s = (type: string, data: Record<string, string>, annotations?: Record<string, string>): ApiObject => ({
    metadata: annotations ? { name: 's', namespace: 'd', annotations } : { name: 's', namespace: 'd' },
    type,
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
  });
  const cases: Array<[string, ApiObject, string[]]> = [
    ['opaque by default', { metadata: { name: 's', namespace: 'd' }, data: {} }, []],
    ['service account token with annotation', s('platform.io/service-account-token', {}, { 'platform.io/service-account.name': 'default' }), []],
    ['service account token without annotation', s('platform.io/service-account-token', {}), ['metadata.annotations[platform.io/service-account.name]: Required value']],
    ['dockerconfigjson', s('platform.io/dockerconfigjson', { '.dockerconfigjson': '{"auths":{}}' }), []],
    ['dockerconfigjson missing key', s('platform.io/dockerconfigjson', {}), ['data[.dockerconfigjson]: Required value']],
    ['dockerconfigjson not JSON', s('platform.io/dockerconfigjson', { '.dockerconfigjson': '{' }), ['data[.dockerconfigjson]: Invalid value']],
    ['tls', s('platform.io/tls', { 'tls.crt': 'c', 'tls.key': 'k' }), []],
    ['tls without key', s('platform.io/tls', { 'tls.crt': 'c' }), ['data[tls.key]: Required value']],
    ['bad data key', s('Opaque', { 'a b': 'x' }), ['data: Invalid value']],
  ];
  for (const [name, obj, want] of cases) it(name, () => assert.deepEqual(fields(createFlow(secrets, obj).errors), want));

  it('defaults type to Opaque and keeps it immutable', () => {
    const { obj } = createFlow(secrets, { metadata: { name: 's', namespace: 'd' } });
    assert.equal(obj.type, 'Opaque');
    assert.deepEqual(fields(secrets.strategy!.validateUpdate!({ ...obj, type: 'platform.io/tls', data: { 'tls.crt': 'eA==', 'tls.key': 'eA==' } }, obj)), ['type: Invalid value']);
  });

  it('selects by type', () => {
    assert.equal(secrets.fieldSelectors!.type!({ metadata: {}, type: 'platform.io/tls' }), 'platform.io/tls');
  });
});
