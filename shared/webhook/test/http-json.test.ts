// requestJson over undici against a real HTTPS server on loopback: what an answer resolves to or
// why it is refused, the whole-exchange deadline (a silent server, a stalled body, a listener that
// never does TLS), the response cap, errors without credentials, the TLS settings a pool dials
// with, keep-alive, and that closing a pool leaves no connection behind.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net, { type LookupFunction, type Socket } from 'node:net';
import type { ServerResponse } from 'node:http';
import { createCA, issueClientCert, issueServingCert, type CertificateAuthority, type PemPair } from '../../local/pki.js';
import { requestJson, type JsonRequestOptions, type JsonResponse } from '../http-json.js';
import { closeDispatcher, createTlsDispatcher } from '../tls-dispatcher.js';
import { sendJson, startHttpsServer, type ReceivedRequest, type TestHttpsServer } from './https-server.js';

const SECRET = 'sekret-0123456789';
type Reply = (req: ReceivedRequest, res: ServerResponse) => void;
const raw =
  (status: number, body: string, headers: Record<string, string> = {}): Reply =>
  (_req, res) => {
    res.writeHead(status, headers);
    res.end(body);
  };

describe('requestJson', () => {
  let ca: CertificateAuthority;
  let serving: PemPair;
  let server: TestHttpsServer;
  let reply: Reply = (_req, res) => sendJson(res, 200, {});
  const base = (): Pick<JsonRequestOptions, 'dispatcher' | 'timeoutMs'> => ({ dispatcher, timeoutMs: 5_000 });
  let dispatcher: ReturnType<typeof createTlsDispatcher>;

  before(async () => {
    ca = await createCA('http-json-ca');
    serving = await issueServingCert(ca, { dnsNames: ['hook.apps.svc'], ipAddresses: ['127.0.0.1'] });
    server = await startHttpsServer(serving, (req, res) => reply(req, res), { clientCAPem: undefined });
    dispatcher = createTlsDispatcher({ ca: ca.certPem });
  });
  after(async () => {
    await closeDispatcher(dispatcher);
    await server.close();
  });

  test('http json - what an answer resolves to, and which answers are refused', async () => {
    const big = 'x'.repeat(2_000);
    const cases: Array<[string, Reply, Partial<JsonRequestOptions>, JsonResponse | RegExp]> = [
      ['2xx JSON', (_q, res) => sendJson(res, 201, { a: 1 }), {}, { status: 201, body: { a: 1 } }],
      ['non-2xx JSON resolves', (_q, res) => sendJson(res, 403, { reason: 'no' }), {}, { status: 403, body: { reason: 'no' } }],
      ['non-2xx text resolves without a body', raw(500, 'internal error'), {}, { status: 500, body: undefined }],
      ['non-2xx empty resolves without a body', raw(404, ''), {}, { status: 404, body: undefined }],
      ['2xx empty is refused', raw(200, '  '), {}, /: HTTP 200 with an empty body$/],
      ['2xx not JSON is refused, its text not echoed', raw(200, `<html>${SECRET}`), {}, /: HTTP 200 with a body that is not JSON$/],
      ['ignoreSuccessBody: a 2xx with no body', raw(200, ''), { ignoreSuccessBody: true }, { status: 200, body: undefined }],
      ['ignoreSuccessBody: a 2xx that is not JSON', raw(204, ''), { ignoreSuccessBody: true }, { status: 204, body: undefined }],
      ['ignoreSuccessBody: a non-2xx is still read', (_q, res) => sendJson(res, 400, { e: 1 }), { ignoreSuccessBody: true }, { status: 400, body: { e: 1 } }],
      ['declared length over the cap', raw(200, big, { 'Content-Length': '2000' }), { maxResponseBytes: 1_000 }, /: response body of 2000 bytes exceeds the limit of 1000$/],
      [
        'streamed bytes over the cap',
        (_q, res) => {
          res.writeHead(200, { 'Content-Type': 'application/json' });
          for (let i = 0; i < 4; i++) res.write(big);
          res.end();
        },
        { maxResponseBytes: 5_000 },
        /: response body exceeds the limit of 5000 bytes$/,
      ],
      ['a body exactly at the cap', raw(200, `"${'y'.repeat(998)}"`), { maxResponseBytes: 1_000 }, { status: 200, body: 'y'.repeat(998) }],
      [
        'the connection closed mid-body',
        (_q, res) => {
          res.writeHead(200, { 'Content-Length': '100' });
          res.write('{"a":');
          setTimeout(() => res.socket?.destroy(), 20);
        },
        {},
        /: reading the response failed: /,
      ],
    ];
    for (const [name, handler, opts, want] of cases) {
      reply = handler;
      const got = requestJson(new URL(`${server.url}/review`), { method: 'POST', body: '{}', ...base(), ...opts });
      if (want instanceof RegExp) {
        await assert.rejects(got, (err: Error) => {
          assert.match(err.message, new RegExp(`^https://127\\.0\\.0\\.1:${server.port}/review: `), name);
          assert.match(err.message, want, name);
          assert.ok(!err.message.includes(SECRET), name);
          return true;
        });
      } else assert.deepEqual(await got, want, name);
    }
  });

  test('http json - the request as sent; user info, query and headers never in an error', async () => {
    reply = (_q, res) => sendJson(res, 200, { ok: true });
    const body = JSON.stringify({ kind: 'AdmissionReview', note: 'é' });
    const url = new URL(`https://api:${SECRET}@127.0.0.1:${server.port}/hook/x?timeout=5s`);
    assert.deepEqual(await requestJson(url, { method: 'POST', body, headers: { Authorization: `Bearer ${SECRET}` }, ...base() }), { status: 200, body: { ok: true } });
    const seen = server.received.at(-1)!;
    assert.equal(seen.method, 'POST');
    assert.equal(seen.url, '/hook/x?timeout=5s');
    assert.equal(seen.body, body);
    assert.equal(seen.headers['content-length'], String(Buffer.byteLength(body)));
    assert.equal(seen.headers['content-type'], 'application/json');
    assert.equal(seen.headers.accept, 'application/json');
    assert.equal(seen.headers.authorization, `Bearer ${SECRET}`, 'the caller header, not the URL user info');

    await requestJson(new URL(`${server.url}/keys`), { method: 'GET', ...base() });
    assert.equal(server.received.at(-1)!.method, 'GET');
    assert.equal(server.received.at(-1)!.headers['content-type'], undefined);

    const closed = new URL(`https://api:${SECRET}@127.0.0.1:1/hook?token=${SECRET}`);
    await assert.rejects(requestJson(closed, { method: 'POST', body, headers: { Authorization: `Bearer ${SECRET}` }, ...base() }), (err: Error) => {
      assert.match(err.message, /^https:\/\/127\.0\.0\.1:1\/hook: .*ECONNREFUSED/);
      assert.ok(!err.message.includes(SECRET));
      return true;
    });
  });

  test('http json - one deadline covers connect, TLS, headers and body', async () => {
    // A listener that accepts and never speaks TLS: the handshake never completes.
    const sockets = new Set<net.Socket>();
    const mute = net.createServer((s) => sockets.add(s.on('close', () => sockets.delete(s))));
    await new Promise<void>((r) => mute.listen(0, '127.0.0.1', r));
    const mutePort = (mute.address() as net.AddressInfo).port;
    const stalledBody: Reply = (_q, res) => {
      res.writeHead(200, { 'Content-Length': '100' });
      res.write('{');
    };
    try {
      const cases: Array<[string, URL, Reply]> = [
        ['TLS handshake', new URL(`https://127.0.0.1:${mutePort}/`), () => undefined],
        ['response headers', new URL(`${server.url}/silent`), () => undefined],
        ['response body', new URL(`${server.url}/stalled`), stalledBody],
      ];
      for (const [name, url, handler] of cases) {
        reply = handler;
        const started = Date.now();
        await rejectsWith(requestJson(url, { method: 'POST', body: '{}', dispatcher, timeoutMs: 200 }), new RegExp(`^https://127\\.0\\.0\\.1:\\d+/\\w*: no response within 200 ms$`), name);
        const took = Date.now() - started;
        assert.ok(took >= 190 && took < 2_000, `${name}: ${took} ms`);
      }
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => mute.close(r));
    }
  });

  test('tls dispatcher - trust, server name, client certificate and verification off', async () => {
    const other = await createCA('other-ca');
    const client = await issueClientCert(ca, { commonName: 'platform-apiserver' });
    const mtls = await startHttpsServer(serving, (_q, res) => sendJson(res, 200, {}), { clientCAPem: ca.certPem });
    reply = (_q, res) => sendJson(res, 200, {});
    const cases: Array<[string, Parameters<typeof createTlsDispatcher>[0], string, RegExp | 'ok']> = [
      ['the CA that signed the server', { ca: ca.certPem }, server.url, 'ok'],
      ['another CA', { ca: other.certPem }, server.url, /certificate/],
      ['the host roots only', {}, server.url, /certificate/],
      ['verification off', { ca: other.certPem, rejectUnauthorized: false }, server.url, 'ok'],
      ['the server name the certificate carries', { ca: ca.certPem, servername: 'hook.apps.svc' }, server.url, 'ok'],
      ['a server name it does not carry', { ca: ca.certPem, servername: 'other.apps.svc' }, server.url, /other\.apps\.svc/],
      ['a client certificate the server trusts', { ca: ca.certPem, cert: client.certPem, key: client.keyPem }, mtls.url, 'ok'],
      ['no client certificate where one is required', { ca: ca.certPem }, mtls.url, /.+/],
    ];
    try {
      for (const [name, tls, target, want] of cases) {
        const d = createTlsDispatcher(tls);
        try {
          const got = requestJson(new URL(`${target}/x`), { method: 'GET', dispatcher: d, timeoutMs: 5_000 });
          if (want === 'ok') assert.equal((await got).status, 200, name);
          else await assert.rejects(got, want, name);
        } finally {
          await closeDispatcher(d);
        }
      }
      assert.equal(mtls.received.at(-1)?.clientCN, 'platform-apiserver');
    } finally {
      await mtls.close();
    }
  });

  test('tls dispatcher - a lookup decides where a host is dialled, and may refuse it', async () => {
    const asked: string[] = [];
    const toLoopback: LookupFunction = (host, options, cb) => {
      asked.push(host);
      if (options.all) cb(null, [{ address: '127.0.0.1', family: 4 }]);
      else cb(null, '127.0.0.1', 4);
    };
    const refuse: LookupFunction = (host, _options, cb) => cb(Object.assign(new Error(`${host}: address 169.254.169.254 is not allowed`), { code: 'EFORBIDDEN' }), '', 4);
    const pinned = createTlsDispatcher({ ca: ca.certPem, lookup: toLoopback });
    const refusing = createTlsDispatcher({ ca: ca.certPem, lookup: refuse });
    try {
      reply = (_q, res) => sendJson(res, 200, { via: 'lookup' });
      assert.deepEqual(await requestJson(new URL(`https://hook.apps.svc:${server.port}/x`), { method: 'GET', dispatcher: pinned, timeoutMs: 5_000 }), { status: 200, body: { via: 'lookup' } });
      assert.deepEqual(asked, ['hook.apps.svc']);
      const before = server.received.length;
      await rejectsWith(
        requestJson(new URL(`https://metadata.example:${server.port}/x`), { method: 'GET', dispatcher: refusing, timeoutMs: 5_000 }),
        /^https:\/\/metadata\.example:\d+\/x: metadata\.example: address 169\.254\.169\.254 is not allowed$/,
      );
      assert.equal(server.received.length, before, 'nothing was sent');
    } finally {
      await Promise.all([closeDispatcher(pinned), closeDispatcher(refusing)]);
    }
  });

  test('tls dispatcher - connections are kept alive, and closing the pool closes them', async () => {
    const sockets = new Set<Socket>();
    reply = (_q, res) => {
      sockets.add(res.socket!);
      sendJson(res, 200, {});
    };
    const d = createTlsDispatcher({ ca: ca.certPem });
    for (let i = 0; i < 10; i++) await requestJson(new URL(`${server.url}/x`), { method: 'POST', body: '{}', dispatcher: d, timeoutMs: 5_000 });
    // undici frees a connection just after its answer is read, so a call made at once may open a second one.
    assert.ok(sockets.size >= 1 && sockets.size <= 2, `ten calls in turn over ${sockets.size} connections`);
    assert.ok(
      [...sockets].every((s) => !s.destroyed),
      'kept open between calls',
    );
    const closed = [...sockets].map(
      (s) =>
        new Promise<void>((resolve, reject) => {
          s.once('close', () => resolve());
          setTimeout(() => reject(new Error('a connection outlived its pool')), 2_000).unref();
        }),
    );
    await closeDispatcher(d);
    await Promise.all(closed);
    await assert.rejects(requestJson(new URL(`${server.url}/x`), { method: 'GET', dispatcher: d, timeoutMs: 5_000 }), /destroyed/);
  });
});

/** Rejects with an error whose message (not its `name: message` string) matches. */
async function rejectsWith(p: Promise<unknown>, re: RegExp, what?: string): Promise<void> {
  await assert.rejects(p, (err: Error) => {
    assert.match(err.message, re, what);
    return true;
  });
}
