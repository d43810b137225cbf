import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { certificateValidity, loadSigningCA, readRequest, signerProblem, signRequest, type RequestNames } from '../certificates/signers.js';
import { csrExpired, csrState, DEFAULT_CLEANER_DURATIONS } from '../certificates/controllers.js';
import type { ApiObject } from '../../../shared/api/types.js';

const names = (o: Partial<RequestNames>): RequestNames => ({ commonName: 'x', organizations: [], dnsNames: [], ipAddresses: [], emails: [], uris: [], ...o });
const node = (o: Partial<RequestNames> = {}) => names({ commonName: 'system:node:n1', organizations: ['system:nodes'], ...o });

test('signers - what each built-in signer refuses, in upstream words', () => {
  const cases: Array<[string, string, RequestNames, string[], string | undefined]> = [
    ['client: any subject, client auth', 'platform.io/apiserver-client', names({ commonName: 'bob', organizations: ['dev'] }), ['client auth', 'digital signature'], undefined],
    ['client: server auth', 'platform.io/apiserver-client', names({}), ['client auth', 'server auth'], 'invalid usage for client certificate: server auth'],
    ['client: no client auth', 'platform.io/apiserver-client', names({}), ['digital signature'], 'missing required usage for client certificate: client auth'],
    ['agent client: a node', 'platform.io/apiserver-client-agent', node(), ['client auth', 'key encipherment', 'digital signature'], undefined],
    ['agent client: wrong organization', 'platform.io/apiserver-client-agent', node({ organizations: ['system:nodes', 'x'] }), ['client auth'], 'subject organization is not system:nodes'],
    ['agent client: not a node name', 'platform.io/apiserver-client-agent', node({ commonName: 'bob' }), ['client auth'], 'subject common name does not begin with system:node:'],
    ['agent client: a DNS name', 'platform.io/apiserver-client-agent', node({ dnsNames: ['n1'] }), ['client auth'], 'DNS subjectAltNames are not allowed'],
    ['agent client: an IP', 'platform.io/apiserver-client-agent', node({ ipAddresses: ['10.0.0.1'] }), ['client auth'], 'IP subjectAltNames are not allowed'],
    ['agent serving: a node with a name', 'platform.io/agent-serving', node({ dnsNames: ['n1.example'] }), ['server auth', 'digital signature'], undefined],
    ['agent serving: no DNS or IP', 'platform.io/agent-serving', node(), ['server auth'], 'DNS or IP subjectAltName is required'],
    ['agent serving: an email', 'platform.io/agent-serving', node({ ipAddresses: ['10.0.0.1'], emails: ['a@b'] }), ['server auth'], 'Email subjectAltNames are not allowed'],
    ['agent serving: client auth', 'platform.io/agent-serving', node({ ipAddresses: ['10.0.0.1'] }), ['server auth', 'client auth'], 'invalid usage for serving certificate: client auth'],
    ['legacy-unknown never signs', 'platform.io/legacy-unknown', names({}), ['client auth'], 'the legacy-unknown signer never signs'],
    ['another signer is not ours to judge', 'example.com/mine', names({}), ['anything'], undefined],
  ];
  for (const [name, signer, r, usages, want] of cases) assert.equal(signerProblem(signer, r, usages), want, name);
});

test('signers - lifetime: the shortest of the signing duration, the request and the CA; back-dated 5 minutes', () => {
  const now = Date.parse('2026-11-25T10:00:00Z');
  const caEnd = new Date('2027-01-01T00:00:00Z');
  const year = 365 * 24 * 3_600_000;
  assert.deepEqual(certificateValidity(now, year, undefined, caEnd), { notBefore: new Date(now - 300_000), notAfter: caEnd });
  assert.equal(certificateValidity(now, year, 3600, caEnd).notAfter.getTime(), now + 3_600_000);
  assert.equal(certificateValidity(now, 600_000, 3600, caEnd).notAfter.getTime(), now + 600_000);
});

for (const keyType of ['ec', 'rsa'] as const) {
  test(`signers - a request is signed under a ${keyType.toUpperCase()} CA: its subject, names and usages, verifiable with the CA`, async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'signer-'));
    try {
      const f = (n: string) => path.join(dir, n);
      const newKey = keyType === 'ec' ? ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'] : ['-newkey', 'rsa:2048'];
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          ...newKey,
          '-nodes',
          '-keyout',
          f('ca.key'),
          '-out',
          f('ca.crt'),
          '-subj',
          '/CN=test-ca',
          '-days',
          '30',
          '-addext',
          'basicConstraints=critical,CA:TRUE',
          '-addext',
          'keyUsage=critical,keyCertSign',
        ],
        { stdio: 'ignore' },
      );
      execFileSync(
        'openssl',
        [
          'req',
          '-new',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:P-256',
          '-nodes',
          '-keyout',
          f('n.key'),
          '-out',
          f('n.csr'),
          '-subj',
          '/CN=system:node:n1/O=system:nodes',
          '-addext',
          'subjectAltName=DNS:n1.example,IP:10.0.0.7',
        ],
        { stdio: 'ignore' },
      );
      const ca = await loadSigningCA(readFileSync(f('ca.crt'), 'utf8'), readFileSync(f('ca.key'), 'utf8'));
      const { csr, names: n } = await readRequest(readFileSync(f('n.csr'), 'utf8'));
      assert.deepEqual(n, { commonName: 'system:node:n1', organizations: ['system:nodes'], dnsNames: ['n1.example'], ipAddresses: ['10.0.0.7'], emails: [], uris: [] });
      const now = Date.now();
      const pem = await signRequest(ca, csr, ['server auth', 'digital signature'], certificateValidity(now, 3_600_000, undefined, ca.certificate.notAfter));
      writeFileSync(f('n.crt'), pem);
      const cert = new X509Certificate(pem);
      assert.ok(cert.verify(new X509Certificate(readFileSync(f('ca.crt'))).publicKey), 'signed by the CA');
      assert.match(cert.subject, /CN=system:node:n1/);
      assert.match(cert.subjectAltName ?? '', /DNS:n1\.example/);
      assert.match(cert.subjectAltName ?? '', /IP Address:10\.0\.0\.7/);
      assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.1']);
      assert.equal(cert.ca, false);
      const verified = execFileSync('openssl', ['verify', '-CAfile', f('ca.crt'), f('n.crt')], { encoding: 'utf8' });
      assert.match(verified, /OK/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('signers - a tampered request is refused', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'signer-'));
  try {
    execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', path.join(dir, 'k'), '-out', path.join(dir, 'r'), '-subj', '/CN=bob'], {
      stdio: 'ignore',
    });
    const pem = readFileSync(path.join(dir, 'r'), 'utf8');
    const body = pem
      .split('\n')
      .filter((l) => l && !l.startsWith('-----'))
      .join('');
    const der = Buffer.from(body, 'base64');
    der[der.length - 5] ^= 0xff;
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    await assert.rejects(readRequest(tampered));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('csr cleaner - which requests go, by state and age', () => {
  const now = Date.parse('2026-11-25T10:00:00Z');
  const at = (ms: number) => new Date(now - ms).toISOString();
  const csr = (created: number, conditions: Array<[string, number]>, certificate?: string): ApiObject =>
    ({
      metadata: { name: 'c', creationTimestamp: at(created) },
      status: { conditions: conditions.map(([type, ago]) => ({ type, status: 'True', lastUpdateTime: at(ago) })), ...(certificate ? { certificate } : {}) },
    }) as ApiObject;
  const h = 3_600_000;
  const cases: Array<[string, ApiObject, string, boolean]> = [
    ['pending for a day and a bit', csr(25 * h, []), 'pending', true],
    ['pending for an hour', csr(h, []), 'pending', false],
    ['approved 2 h ago, never issued', csr(3 * h, [['Approved', 2 * h]]), 'approved', true],
    ['approved a minute ago', csr(3 * h, [['Approved', 60_000]]), 'approved', false],
    ['denied 2 h ago', csr(3 * h, [['Denied', 2 * h]]), 'denied', true],
    [
      'failed a minute ago',
      csr(3 * h, [
        ['Approved', 120_000],
        ['Failed', 60_000],
      ]),
      'failed',
      false,
    ],
  ];
  for (const [name, c, state, gone] of cases) {
    assert.equal(csrState(c as never), state, name);
    assert.equal(csrExpired(c as never, now, DEFAULT_CLEANER_DURATIONS), gone, name);
  }
});
