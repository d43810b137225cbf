import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseOptions, OptionsError } from '../../../shared/config/options.js';
import { authnConfigFromOptions, authnOptionSpecs } from '../options.js';
import type { AuthnConfig } from '../config.js';

const configOf = (argv: string[], env: NodeJS.ProcessEnv = {}) => authnConfigFromOptions(parseOptions(authnOptionSpecs, argv, env));

test('authn options - flags and environment map onto the authenticator configuration', () => {
  const cases: Array<[string, string[], NodeJS.ProcessEnv, AuthnConfig]> = [
    ['defaults: anonymous only', [], {}, { anonymousAuth: true, bucket: 'objects' }],
    ['static tokens, no anonymous', ['--token-auth-file=/t.csv', '--anonymous-auth=false'], {}, { anonymousAuth: false, bucket: 'objects', tokenAuthFile: '/t.csv' }],
    ['client certificates from env', [], { PLATFORM_CLIENT_CA_FILE: '/ca.crt' }, { anonymousAuth: true, bucket: 'objects', clientCAFile: '/ca.crt' }],
    [
      'authenticating proxy',
      [
        '--requestheader-client-ca-file=/p.crt',
        '--requestheader-username-headers=X-Remote-User,X-User',
        '--requestheader-group-headers=X-Remote-Group',
        '--requestheader-extra-headers-prefix=X-Remote-Extra-',
        '--requestheader-allowed-names=front-proxy',
      ],
      {},
      {
        anonymousAuth: true,
        bucket: 'objects',
        requestHeader: {
          clientCAFile: '/p.crt',
          usernameHeaders: ['X-Remote-User', 'X-User'],
          groupHeaders: ['X-Remote-Group'],
          extraHeadersPrefixes: ['X-Remote-Extra-'],
          allowedNames: ['front-proxy'],
        },
      },
    ],
    [
      'service accounts: repeatable keys and issuers, audiences, max expiration',
      [
        '--service-account-key-file=/a.pem',
        '--service-account-key-file=/b.pem',
        '--service-account-signing-key-file=/s.key',
        '--service-account-issuer=https://one',
        '--service-account-issuer=https://two',
        '--api-audiences=api,vault',
        '--service-account-max-token-expiration=24h',
        '--service-account-lookup=false',
      ],
      {},
      {
        anonymousAuth: true,
        bucket: 'objects',
        serviceAccount: {
          keyFiles: ['/a.pem', '/b.pem'],
          signingKeyFile: '/s.key',
          issuers: ['https://one', 'https://two'],
          lookup: false,
          apiAudiences: ['api', 'vault'],
          maxExpirationSeconds: 86_400,
        },
      },
    ],
    ['bootstrap tokens', ['--enable-bootstrap-token-auth'], {}, { anonymousAuth: true, bucket: 'objects', enableBootstrapTokenAuth: true }],
    [
      'OIDC with every flag',
      [
        '--oidc-issuer-url=https://idp.example',
        '--oidc-client-id=platform',
        '--oidc-username-claim=email',
        '--oidc-username-prefix=-',
        '--oidc-groups-claim=groups',
        '--oidc-groups-prefix=oidc:',
        '--oidc-required-claim=hd=example.com',
        '--oidc-required-claim=tier=gold',
        '--oidc-ca-file=/idp.crt',
        '--oidc-signing-algs=RS256,ES256',
      ],
      {},
      {
        anonymousAuth: true,
        bucket: 'objects',
        oidc: {
          issuerUrl: 'https://idp.example',
          clientId: 'platform',
          usernameClaim: 'email',
          usernamePrefix: '-',
          groupsClaim: 'groups',
          groupsPrefix: 'oidc:',
          requiredClaims: { hd: 'example.com', tier: 'gold' },
          caFile: '/idp.crt',
          signingAlgs: ['RS256', 'ES256'],
        },
      },
    ],
    [
      'token webhook with defaults',
      ['--authentication-token-webhook-config-file=/wh.yaml'],
      {},
      { anonymousAuth: true, bucket: 'objects', webhook: { configFile: '/wh.yaml', cacheTtlMs: 120_000, version: 'v1beta1' } },
    ],
  ];
  for (const [name, argv, env, want] of cases) assert.deepEqual(configOf(argv, env), want, name);
});

test('authn options - incomplete or contradictory settings are refused at start-up', () => {
  const bad: Array<[string, string[]]> = [
    ['proxy headers without its CA', ['--requestheader-username-headers=X-Remote-User']],
    ['proxy CA without username headers', ['--requestheader-client-ca-file=/p.crt']],
    ['signing key without issuer', ['--service-account-signing-key-file=/s.key']],
    ['OIDC issuer without client id', ['--oidc-issuer-url=https://idp.example']],
    ['OIDC over plain HTTP', ['--oidc-issuer-url=http://idp.example', '--oidc-client-id=x']],
    ['malformed required claim', ['--oidc-issuer-url=https://idp.example', '--oidc-client-id=x', '--oidc-required-claim=novalue']],
    ['unknown webhook version', ['--authentication-token-webhook-config-file=/wh.yaml', '--authentication-token-webhook-version=v2']],
  ];
  for (const [name, argv] of bad) assert.throws(() => configOf(argv), OptionsError, name);
});

test('authn options - with no flags every default is converted to its type (durations in ms)', () => {
  const o = parseOptions(authnOptionSpecs, [], {});
  assert.equal(o['authentication-token-webhook-cache-ttl'], 120_000);
  assert.equal(o['service-account-max-token-expiration'], undefined);
  assert.equal(o['anonymous-auth'], true);
  assert.equal(o['enable-bootstrap-token-auth'], false);
  assert.equal(o['service-account-lookup'], true);
  assert.deepEqual(o['oidc-signing-algs'], ['RS256']);
  assert.equal(o['oidc-username-claim'], 'sub');
  assert.equal(o['authentication-token-webhook-version'], 'v1beta1');
  assert.equal(o['nats-url'], 'nats://127.0.0.1:4222');
});
