// The gateway's TLS server refuses renegotiation (as Go's servers, upstream's included, have none):
// a connection keeps the client certificate of its handshake, which authentication reads once per
// connection.

import { describe, it, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import { createServer } from '../server.js';
import { createCA, issueClientCert, issueServingCert, type PemPair } from '../../../shared/local/pki.js';

describe('gateway TLS server', () => {
  let app: FastifyInstance;
  let ca: string;
  let alice: PemPair;
  let port: number;

  before(async () => {
    const authority = await createCA('test-ca');
    ca = authority.certPem;
    const serving = await issueServingCert(authority);
    alice = await issueClientCert(authority, { commonName: 'alice' });
    app = createServer({ cert: serving.certPem, key: serving.keyPem, clientCA: ca }, pino({ level: 'silent' }));
    app.get('/whoami', (req, reply) => {
      const peer = (req.raw.socket as TLSSocket).getPeerCertificate();
      return reply.send({ cn: peer.subject?.CN ?? null });
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
  });
  after(() => app.close());

  it('a TLS 1.2 client that asks to renegotiate is refused, and its connection ends', async () => {
    const socket = connect({ host: '127.0.0.1', port, ca, cert: alice.certPem, key: alice.keyPem, maxVersion: 'TLSv1.2', servername: 'localhost' });
    await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => {});
    // Upstream's Go server has no renegotiation: the attempt must not complete, and the connection ends.
    const renegotiated = new Promise<boolean>((resolve) => {
      if (!socket.renegotiate({ rejectUnauthorized: false }, (err) => resolve(!err))) resolve(false);
    });
    // The client's hello goes out with its next write.
    socket.write('GET /whoami HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const outcome = await Promise.race([renegotiated, closed.then(() => false)]);
    assert.equal(outcome, false, 'the renegotiation completed');
    await closed;
    assert.equal(socket.destroyed, true);
  });

  it('a connection without renegotiation is served with its own certificate', async () => {
    const socket = connect({ host: '127.0.0.1', port, ca, cert: alice.certPem, key: alice.keyPem, servername: 'localhost' });
    await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
    socket.write('GET /whoami HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    let text = '';
    for await (const chunk of socket) text += String(chunk);
    assert.match(text, /^HTTP\/1\.1 200/);
    assert.match(text, /\{"cn":"alice"\}/);
  });
});
