import assert from 'node:assert/strict';
import { X509Certificate, createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createCA, ensurePki, issueClientCert, issueServingCert, loadCA, type CertificateAuthority } from '../pki.js';

describe('pki', () => {
  let ca: CertificateAuthority;
  before(async () => {
    ca = await createCA('platform-test-ca');
  });

  test('pki - CA is self-signed, a CA, valid about ten years', () => {
    const c = new X509Certificate(ca.certPem);
    assert.equal(c.ca, true);
    assert.equal(c.subject, 'CN=platform-test-ca');
    assert.ok(c.checkIssued(c));
    assert.ok(c.verify(c.publicKey));
    const years = (Date.parse(c.validTo) - Date.parse(c.validFrom)) / (365 * 24 * 3600 * 1000);
    assert.ok(years > 9.9 && years < 10.1, `validity ${years} years`);
    assert.match(ca.keyPem, /^-----BEGIN PRIVATE KEY-----/);
  });

  test('pki - serving cert verifies against the CA and carries the SANs', async () => {
    const s = await issueServingCert(ca, { dnsNames: ['gateway'], ipAddresses: ['10.0.0.7'] });
    const c = new X509Certificate(s.certPem);
    const caCert = new X509Certificate(ca.certPem);
    assert.equal(c.ca, false);
    assert.ok(c.checkIssued(caCert));
    assert.ok(c.verify(caCert.publicKey));
    const san = c.subjectAltName ?? '';
    for (const want of ['DNS:localhost', 'DNS:gateway', 'IP Address:127.0.0.1', 'IP Address:10.0.0.7']) assert.ok(san.includes(want), `${want} in ${san}`);
    assert.match(san, /IP Address:(::1|0:0:0:0:0:0:0:1)/);
    assert.ok(c.checkHost('localhost'));
    assert.ok(c.checkIP('127.0.0.1'));
    assert.ok(c.keyUsage?.includes('1.3.6.1.5.5.7.3.1'), 'serverAuth EKU');
    const days = (Date.parse(c.validTo) - Date.parse(c.validFrom)) / (24 * 3600 * 1000);
    assert.ok(days > 364 && days < 366);
    // The key is the certificate's: sign with one, verify with the other.
    const key = createPrivateKey(s.keyPem);
    assert.equal(key.asymmetricKeyType, 'ec');
    const sig = sign('sha256', Buffer.from('x'), key);
    assert.ok(verify('sha256', Buffer.from('x'), c.publicKey, sig));
  });

  test('pki - serial numbers are random', async () => {
    const a = new X509Certificate((await issueServingCert(ca)).certPem);
    const b = new X509Certificate((await issueServingCert(ca)).certPem);
    assert.notEqual(a.serialNumber, b.serialNumber);
    assert.ok(a.serialNumber.length >= 30);
  });

  test('pki - client cert has CN = user and one O per group', async () => {
    const cc = await issueClientCert(ca, { commonName: 'jane', organizations: ['system:masters', 'developers'] });
    const c = new X509Certificate(cc.certPem);
    assert.ok(c.checkIssued(new X509Certificate(ca.certPem)));
    const lines = c.subject.split('\n');
    assert.deepEqual(
      lines.filter((l) => l.startsWith('CN=')),
      ['CN=jane'],
    );
    assert.deepEqual(lines.filter((l) => l.startsWith('O=')).sort(), ['O=developers', 'O=system:masters']);
    assert.ok(c.keyUsage?.includes('1.3.6.1.5.5.7.3.2'), 'clientAuth EKU');
  });

  test('pki - a loaded CA issues certificates that verify against the original', async () => {
    const again = await loadCA(ca.certPem, ca.keyPem);
    const s = await issueServingCert(again);
    assert.ok(new X509Certificate(s.certPem).verify(new X509Certificate(ca.certPem).publicKey));
  });

  test('pki - TLS handshake with the serving cert and a client cert works', async () => {
    const s = await issueServingCert(ca);
    const cc = await issueClientCert(ca, { commonName: 'platform-admin', organizations: ['system:masters'] });
    const server = https.createServer({ cert: s.certPem, key: s.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
      const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate();
      res.end(JSON.stringify({ cn: peer.subject.CN, o: peer.subject.O }));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const port = (server.address() as AddressInfo).port;
      for (const host of ['127.0.0.1', 'localhost']) {
        const body = await new Promise<string>((resolve, reject) => {
          https
            .get({ host, port, path: '/', ca: ca.certPem, cert: cc.certPem, key: cc.keyPem, agent: false }, (res) => {
              let t = '';
              res.on('data', (d) => (t += d));
              res.on('end', () => resolve(t));
            })
            .on('error', reject);
        });
        assert.deepEqual(JSON.parse(body), { cn: 'platform-admin', o: 'system:masters' });
      }
    } finally {
      server.close();
    }
  });
});

describe('ensurePki', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'platform-pki-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('ensurePki - creates once, reuses on the next start, keys are private', async () => {
    const first = await ensurePki(dir);
    assert.equal(first.written.length, 8, 'CA, serving, admin and controllers pairs');
    assert.equal((await stat(first.files.caKey)).mode & 0o777, 0o600);
    assert.equal((await stat(first.files.servingKey)).mode & 0o777, 0o600);
    const admin = new X509Certificate(await readFile(first.files.adminCert));
    assert.match(admin.subject, /CN=platform-admin/);
    assert.match(admin.subject, /O=system:masters/);
    const second = await ensurePki(dir);
    assert.deepEqual(second.written, []);
    assert.equal(second.ca.certPem, first.ca.certPem);
    assert.equal(second.serving.certPem, first.serving.certPem);
    assert.equal(second.admin.keyPem, first.admin.keyPem);
  });

  test('ensurePki - reissues the serving cert when a new name is asked for, keeping the CA', async () => {
    const before = await ensurePki(dir);
    const after = await ensurePki(dir, { servingNames: ['gateway', '192.168.1.9'] });
    assert.equal(after.ca.certPem, before.ca.certPem);
    assert.notEqual(after.serving.certPem, before.serving.certPem);
    assert.equal(after.admin.certPem, before.admin.certPem);
    const san = new X509Certificate(after.serving.certPem).subjectAltName ?? '';
    assert.ok(san.includes('DNS:gateway') && san.includes('IP Address:192.168.1.9') && san.includes('DNS:localhost'));
    assert.deepEqual((await ensurePki(dir, { servingNames: ['gateway'] })).written, []);
  });

  test('ensurePki - a replaced CA leads to new leaf certificates', async () => {
    const old = await ensurePki(dir);
    await unlink(old.files.caCert);
    await unlink(old.files.caKey);
    const fresh = await ensurePki(dir);
    assert.notEqual(fresh.ca.certPem, old.ca.certPem);
    assert.equal(fresh.written.length, 8);
    assert.ok(new X509Certificate(fresh.serving.certPem).checkIssued(new X509Certificate(fresh.ca.certPem)));
  });

  test('ensurePki - an unreadable certificate is replaced', async () => {
    const cur = await ensurePki(dir);
    await writeFile(cur.files.adminCert, 'garbage');
    const next = await ensurePki(dir);
    assert.deepEqual(next.written.sort(), [cur.files.adminCert, cur.files.adminKey].sort());
    createPublicKey(next.admin.certPem);
  });
});
