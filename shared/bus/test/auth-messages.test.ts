// The authn and authz messages on protobuf (auth-messages.ts): what the receiver decodes is the
// contract's shape exactly as sent, absent fields absent and empty strings empty, and a body that
// is not the message is a 400.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../api/status.js';
import type { UserInfo } from '../../api/types.js';
import type { AuthnReply, AuthnRequest } from '../../contracts/authn.js';
import type { AuthzAttributes, AuthzReply } from '../../contracts/authz.js';
import { AuthnMessages, AuthzMessages } from '../auth-messages.js';
import type { BusType } from '../codec.js';

const jane: UserInfo = { username: 'jane', groups: [] };
const sa: UserInfo = {
  username: 'system:serviceaccount:team-a:deployer',
  uid: '1f0c3c52',
  groups: ['system:serviceaccounts', 'system:authenticated'],
  extra: { 'authentication.platform.io/pod-name': ['deployer-7d9f8'], 'authentication.platform.io/credential-id': ['JTI=1', 'JTI=2'] },
};
const emptyUid: UserInfo = { username: 'x', uid: '', groups: ['g'] };

function roundTrip<T>(type: BusType<T>, value: T): T {
  return type.decode(type.encode(value));
}

test('auth messages - every contract shape comes back as it was sent', () => {
  const cases: Array<[string, BusType<any>, unknown]> = [
    ['no credentials', AuthnMessages.request, {} satisfies AuthnRequest],
    ['bearer token', AuthnMessages.request, { token: 'abc' } satisfies AuthnRequest],
    ['an empty token is still a token', AuthnMessages.request, { token: '' } satisfies AuthnRequest],
    ['front proxy', AuthnMessages.request, { certificates: ['PEM1', 'PEM2'], headers: { 'x-remote-user': ['alice'], 'x-remote-group': ['a', 'b'] } } satisfies AuthnRequest],
    ['TokenReview audiences', AuthnMessages.request, { token: 't', audiences: ['vault', 'api'] } satisfies AuthnRequest],
    ['not authenticated', AuthnMessages.reply, { authenticated: false } satisfies AuthnReply],
    ['rejected credential', AuthnMessages.reply, { authenticated: false, error: 'invalid bearer token' } satisfies AuthnReply],
    ['user without groups', AuthnMessages.reply, { authenticated: true, user: jane } satisfies AuthnReply],
    ['service account with extra and audiences', AuthnMessages.reply, { authenticated: true, user: sa, audiences: ['https://platform'] } satisfies AuthnReply],
    ['uid ""', AuthnMessages.reply, { authenticated: true, user: emptyUid } satisfies AuthnReply],
    ['non-resource', AuthzMessages.attributes, { user: jane, verb: 'get', isResourceRequest: false, path: '/healthz' } satisfies AuthzAttributes],
    [
      'core group "" beside absent name',
      AuthzMessages.attributes,
      { user: sa, verb: 'create', isResourceRequest: true, path: '/api/v1/namespaces/a/configmaps', apiGroup: '', apiVersion: 'v1', resource: 'configmaps', namespace: 'a' } satisfies AuthzAttributes,
    ],
    [
      'every attribute',
      AuthzMessages.attributes,
      {
        user: emptyUid,
        verb: 'update',
        isResourceRequest: true,
        path: '',
        apiGroup: 'apps',
        apiVersion: 'v1',
        resource: 'deployments',
        subresource: 'scale',
        namespace: 'b',
        name: 'd',
      } satisfies AuthzAttributes,
    ],
    ['access review: empty strings', AuthzMessages.attributes, { user: jane, verb: '', isResourceRequest: true, path: '', apiGroup: '', resource: '' } satisfies AuthzAttributes],
    ['default deny', AuthzMessages.reply, { decision: 'NoOpinion' } satisfies AuthzReply],
    ['allowed', AuthzMessages.reply, { decision: 'Allow', decidedBy: 'RBAC', reason: 'RBAC: allowed by ClusterRoleBinding "x"', revision: 2 ** 40 + 7 } satisfies AuthzReply],
    ['denied while RBAC loads', AuthzMessages.reply, { decision: 'Deny', decidedBy: 'Node', reason: '', evaluationError: 'boom', revision: -1 } satisfies AuthzReply],
    ['revision 0', AuthzMessages.reply, { decision: 'Allow', revision: 0 } satisfies AuthzReply],
  ];
  for (const [name, type, value] of cases) {
    // Strict: no field added (not even one set to undefined), none dropped, no protobuf defaults.
    assert.deepStrictEqual(roundTrip(type, value), value, name);
  }
});

test('auth messages - an empty optional list or map is absent (no producer sends one)', () => {
  assert.deepStrictEqual(roundTrip(AuthnMessages.request, { certificates: [], headers: {}, audiences: [] }), {});
  assert.deepStrictEqual(roundTrip(AuthnMessages.reply, { authenticated: true, user: { ...jane, extra: {} }, audiences: [] }), { authenticated: true, user: jane });
});

test('auth messages - attributes without a user decode without one (the service answers 400)', () => {
  const a = AuthzMessages.attributes.decode(new Uint8Array());
  assert.deepStrictEqual({ ...a }, { verb: '', isResourceRequest: false, path: '' });
});

test('auth messages - a body that is not the message is 400 BadRequest', () => {
  for (const type of [AuthnMessages.request, AuthnMessages.reply, AuthzMessages.attributes, AuthzMessages.reply] as Array<BusType<unknown>>) {
    assert.throws(
      () => type.decode(Buffer.from('{"token":"abc"}')),
      (err: unknown) => err instanceof StatusError && err.code === 400,
      type.name,
    );
  }
});
