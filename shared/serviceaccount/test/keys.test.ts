import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createCA } from '../../local/pki.js';
import { keyId, loadServiceAccountKeys, signingAlgorithm } from '../keys.js';
const rsaKey = () => generateKeyPairSync('rsa', { modulusLength: 2048 });
const ecKey = (namedCurve: 'P-256' | 'P-384' | 'P-521' = 'P-256') => generateKeyPairSync('ec', { namedCurve });

const pem = (k: KeyObject, type: 'spki' | 'pkcs8' | 'pkcs1' | 'sec1') => k.export({ type, format: 'pem' }) as string;
const ids = (keys: KeyObject[]) => keys.map(keyId).sort();

describe('service-account keys', () => {
  let dir: string;
  const rsa = rsaKey();
  const ec256 = ecKey('P-256');
  const ec384 = ecKey('P-384');
  const ec521 = ecKey('P-521');
  const file = async (name: string, text: string) => {
    const p = path.join(dir, name);
    await writeFile(p, text);
    return p;
  };

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sa-keys-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('keys - one file may hold public keys, private keys (their public half) and certificates', async () => {
    const ca = await createCA('sa-test');
    const bundle = [
      pem(rsa.publicKey, 'spki'),
      '# a comment between blocks\n',
      pem(rsa.publicKey, 'pkcs1'),
      '-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n',
      pem(ec256.privateKey, 'sec1'),
      pem(ec384.privateKey, 'pkcs8'),
      ca.certPem,
    ].join('');
    const keys = await loadServiceAccountKeys({ keyFiles: [await file('bundle.pem', bundle)], issuers: [] });
    const caKey = createPublicKey(ca.keyPem);
    assert.deepEqual(ids(keys.verify), ids([rsa.publicKey, rsa.publicKey, ec256.publicKey, ec384.publicKey, caKey]));
    assert.ok(
      keys.verify.every((k) => k.type === 'public'),
      'only public halves are kept for verification',
    );
    assert.equal(keys.signing, undefined);
  });

  test('keys - the signing key (PKCS#8, PKCS#1 or SEC1) signs, and its public half verifies too', async () => {
    const cases: Array<[string, KeyObject, 'pkcs8' | 'pkcs1' | 'sec1', string]> = [
      ['rsa-pkcs8', rsa.privateKey, 'pkcs8', 'RS256'],
      ['rsa-pkcs1', rsa.privateKey, 'pkcs1', 'RS256'],
      ['ec256-sec1', ec256.privateKey, 'sec1', 'ES256'],
      ['ec384-pkcs8', ec384.privateKey, 'pkcs8', 'ES384'],
      ['ec521-sec1', ec521.privateKey, 'sec1', 'ES512'],
    ];
    for (const [name, key, type, alg] of cases) {
      const keys = await loadServiceAccountKeys({ keyFiles: [], signingKeyFile: await file(`${name}.key`, pem(key, type)), issuers: ['https://i'] });
      assert.equal(keys.signing?.type, 'private', name);
      assert.equal(signingAlgorithm(keys.signing!), alg, name);
      assert.deepEqual(ids(keys.verify), ids([createPublicKey(key)]), name);
    }
  });

  test('keys - a signing key also listed as a key file is verified against once', async () => {
    const keyFile = await file('both.key', pem(ec256.privateKey, 'pkcs8'));
    const keys = await loadServiceAccountKeys({ keyFiles: [keyFile, await file('other.pub', pem(rsa.publicKey, 'spki'))], signingKeyFile: keyFile, issuers: ['https://i'] });
    assert.deepEqual(ids(keys.verify), ids([ec256.publicKey, rsa.publicKey]));
  });

  test('keys - the key id is the base64url SHA-256 of the public key, the same from either half', () => {
    assert.equal(keyId(rsa.privateKey), keyId(rsa.publicKey));
    assert.match(keyId(ec256.publicKey), /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(keyId(ec256.publicKey), keyId(ec384.publicKey));
  });

  test('keys - unusable files fail start-up, naming the file and never printing key material', async () => {
    const weakRsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const ed = generateKeyPairSync('ed25519');
    const privatePem = pem(ec256.privateKey, 'pkcs8');
    const body = privatePem.split('\n')[1]!;
    const corrupt = privatePem.replace(body, body.slice(0, 20) + 'AAAA' + body.slice(24));
    const encrypted = ec256.privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'pw' }) as string;
    const cases: Array<[string, () => Promise<unknown>, RegExp]> = [
      ['missing key file', async () => loadServiceAccountKeys({ keyFiles: [path.join(dir, 'nope.pem')], issuers: [] }), /--service-account-key-file: cannot read .*nope\.pem/],
      [
        'missing signing key',
        async () => loadServiceAccountKeys({ keyFiles: [], signingKeyFile: path.join(dir, 'nope.key'), issuers: [] }),
        /--service-account-signing-key-file: cannot read .*nope\.key/,
      ],
      ['no PEM at all', async () => loadServiceAccountKeys({ keyFiles: [await file('empty.pem', 'hello\n')], issuers: [] }), /empty\.pem holds no PEM/],
      [
        'corrupt key block',
        async () => loadServiceAccountKeys({ keyFiles: [await file('corrupt.pem', pem(rsa.publicKey, 'spki') + corrupt)], issuers: [] }),
        /corrupt\.pem: PEM block 2 \(PRIVATE KEY\)/,
      ],
      ['RSA key under 2048 bits', async () => loadServiceAccountKeys({ keyFiles: [await file('weak.pem', pem(weakRsa.publicKey, 'spki'))], issuers: [] }), /weak\.pem: .*at least 2048 bits/],
      ['Ed25519 key', async () => loadServiceAccountKeys({ keyFiles: [await file('ed.pem', pem(ed.publicKey, 'spki'))], issuers: [] }), /ed\.pem: .*ed25519 keys are not supported/],
      [
        'encrypted private key',
        async () => loadServiceAccountKeys({ keyFiles: [], signingKeyFile: await file('enc.key', encrypted), issuers: [] }),
        /enc\.key: .*encrypted private keys are not supported/,
      ],
      [
        'public key as signing key',
        async () => loadServiceAccountKeys({ keyFiles: [], signingKeyFile: await file('pub-as-signing.key', pem(rsa.publicKey, 'spki')), issuers: [] }),
        /pub-as-signing\.key must hold exactly one PEM private key/,
      ],
      ['corrupt signing key', async () => loadServiceAccountKeys({ keyFiles: [], signingKeyFile: await file('corrupt.key', corrupt), issuers: [] }), /corrupt\.key: PEM block 1/],
      ['no key at all', async () => loadServiceAccountKeys({ keyFiles: [], issuers: ['https://i'] }), /need --service-account-key-file or --service-account-signing-key-file/],
    ];
    for (const [name, load, message] of cases) {
      await assert.rejects(load(), (err: Error) => {
        assert.match(err.message, message, name);
        assert.ok(!err.message.includes(body.slice(0, 16)) && !err.message.includes('BEGIN'), `${name}: no key material in ${err.message}`);
        return true;
      });
    }
  });
});
