import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OptionsError, parseOptions } from '../../../shared/config/options.js';
import { silentLogger } from '../../../shared/log.js';
import type { FeedEvent, ObjectFeed } from '../../../shared/store/object-feed.js';
import { authzConfigFromOptions, authzOptionSpecs } from '../options.js';
import { buildModeAuthorizers, knownModes, modeFactories, validateAuthzConfig, validateModes } from '../modes.js';
import type { AuthzConfig, ModeContext } from '../types.js';

const configOf = (argv: string[], env: NodeJS.ProcessEnv = {}) => authzConfigFromOptions(parseOptions(authzOptionSpecs, argv, env));

test('authz options - flags and environment map onto the authorizer configuration', () => {
  const webhookDefaults = { configFile: '/wh.yaml', version: 'v1beta1' as const, authorizedTtlMs: 300_000, unauthorizedTtlMs: 30_000 };
  const cases: Array<[string, string[], NodeJS.ProcessEnv, AuthzConfig]> = [
    ['defaults: AlwaysAllow on the objects bucket', [], {}, { modes: ['AlwaysAllow'], bucket: 'objects' }],
    ['ordered mode list', ['--authorization-mode=Node,RBAC'], {}, { modes: ['Node', 'RBAC'], bucket: 'objects' }],
    ['mode list from the environment', [], { PLATFORM_AUTHORIZATION_MODE: 'RBAC, AlwaysDeny' }, { modes: ['RBAC', 'AlwaysDeny'], bucket: 'objects' }],
    ['bucket', ['--bucket', 'cluster-2'], {}, { modes: ['AlwaysAllow'], bucket: 'cluster-2' }],
    ['ABAC with its policy file', ['--authorization-mode=ABAC,RBAC', '--authorization-policy-file=/etc/abac.jsonl'], {}, { modes: ['ABAC', 'RBAC'], bucket: 'objects', policyFile: '/etc/abac.jsonl' }],
    ['Webhook with defaults', ['--authorization-mode=Webhook', '--authorization-webhook-config-file=/wh.yaml'], {}, { modes: ['Webhook'], bucket: 'objects', webhook: webhookDefaults }],
    [
      'Webhook with every flag',
      [
        '--authorization-mode=Node,Webhook',
        '--authorization-webhook-config-file=/wh.yaml',
        '--authorization-webhook-version=v1',
        '--authorization-webhook-cache-authorized-ttl=1m30s',
        '--authorization-webhook-cache-unauthorized-ttl=0s',
      ],
      {},
      { modes: ['Node', 'Webhook'], bucket: 'objects', webhook: { configFile: '/wh.yaml', version: 'v1', authorizedTtlMs: 90_000, unauthorizedTtlMs: 0 } },
    ],
  ];
  for (const [name, argv, env, want] of cases) assert.deepEqual(configOf(argv, env), want, name);
});

test('authz options - incomplete or contradictory settings are refused at start-up', () => {
  const bad: Array<[string, string[], RegExp]> = [
    ['no mode', ['--authorization-mode='], /at least one mode is required/],
    ['unknown mode', ['--authorization-mode=RBAC,Sometimes'], /unknown mode "Sometimes" \(valid modes: AlwaysAllow, AlwaysDeny, ABAC, RBAC, Node, Webhook\)/],
    ['mode names are case-sensitive', ['--authorization-mode=rbac'], /unknown mode "rbac"/],
    ['repeated mode', ['--authorization-mode=RBAC,Node,RBAC'], /mode "RBAC" is specified more than once/],
    ['ABAC without a policy file', ['--authorization-mode=ABAC'], /ABAC needs --authorization-policy-file/],
    ['policy file without ABAC', ['--authorization-mode=RBAC', '--authorization-policy-file=/p.jsonl'], /cannot specify --authorization-policy-file without mode ABAC/],
    ['Webhook without its configuration', ['--authorization-mode=Webhook'], /Webhook needs --authorization-webhook-config-file/],
    ['webhook configuration without Webhook', ['--authorization-webhook-config-file=/wh.yaml'], /cannot specify --authorization-webhook-config-file without mode Webhook/],
    ['unknown webhook version', ['--authorization-mode=Webhook', '--authorization-webhook-config-file=/wh.yaml', '--authorization-webhook-version=v2'], /must be v1 or v1beta1/],
    ['malformed TTL', ['--authorization-mode=Webhook', '--authorization-webhook-config-file=/wh.yaml', '--authorization-webhook-cache-authorized-ttl=soon'], /invalid duration/],
  ];
  // OptionsError: the entry point prints the message and exits 2, as for any bad flag.
  for (const [name, argv, err] of bad)
    assert.throws(
      () => configOf(argv),
      (e: unknown) => e instanceof OptionsError && err.test(e.message),
      name,
    );
});

test('authz modes - every mode the spec names has a factory', () => {
  assert.deepEqual(Object.keys(modeFactories).sort(), [...knownModes].sort());
  for (const modes of [['AlwaysAllow'], ['Node', 'RBAC'], ['RBAC', 'Node', 'ABAC', 'Webhook', 'AlwaysDeny', 'AlwaysAllow']]) validateModes(modes);
  // Configuration objects built in code (tests, embedders) get the same per-mode checks.
  assert.throws(() => validateAuthzConfig({ modes: ['ABAC'] }), /ABAC needs --authorization-policy-file/);
  assert.throws(() => validateAuthzConfig({ modes: ['Webhook'] }), /Webhook needs --authorization-webhook-config-file/);
});

test('authz modes - a mode failing to start stops what the earlier modes started', async () => {
  const stopped: string[] = [];
  let started = 0;
  const ctx = {
    config: { modes: ['Node', 'ABAC'], policyFile: '/nonexistent/policy.jsonl' },
    log: silentLogger(),
    feed: (_filters: string[], _onEvent: (e: FeedEvent) => void): ObjectFeed => {
      const id = `feed-${++started}`;
      return { synced: new Promise(() => undefined), revision: () => 0, healthy: () => true, stop: async () => void stopped.push(id) };
    },
  } as unknown as ModeContext;
  await assert.rejects(buildModeAuthorizers(ctx), /cannot read \/nonexistent\/policy\.jsonl/);
  assert.equal(started, 1, 'the Node mode watched the bucket');
  assert.deepEqual(stopped, ['feed-1'], 'and its watch was stopped');
});

test('authz options - with no flags every default is converted to its type (durations in ms)', () => {
  const o = parseOptions(authzOptionSpecs, [], {});
  assert.deepEqual(o['authorization-mode'], ['AlwaysAllow']);
  assert.equal(o['authorization-webhook-cache-authorized-ttl'], 300_000);
  assert.equal(o['authorization-webhook-cache-unauthorized-ttl'], 30_000);
  assert.equal(o['authorization-webhook-version'], 'v1beta1');
  assert.equal(o.bucket, 'objects');
  assert.equal(o['nats-url'], 'nats://127.0.0.1:4222');
});
