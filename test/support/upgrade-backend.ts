// A small aggregated API server for upgrade requests: serves `wardle.example.com/v1alpha1` (the
// sample-apiserver's group) over HTTPS, with `flunders` and their `exec`, `attach` and
// `portforward` subresources. As an aggregated server does, it trusts X-Remote-User only from a
// client certificate signed by the front-proxy CA it is given (answering 401 to anyone else). An
// upgrade to `exec` or `attach` is switched (101, echoing the protocol asked for and the first
// X-Stream-Protocol-Version offered), then every byte received is sent back until the client
// sends `bye`, which makes the backend close the connection; `portforward` is refused with a 400
// Status, as a server that does not support it answers. Every request is recorded.

import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import type { PemPair } from '../../shared/local/pki.js';

export const WARDLE_GROUP = 'wardle.example.com';
export const WARDLE_VERSION = 'v1alpha1';
const BASE = `/apis/${WARDLE_GROUP}/${WARDLE_VERSION}`;

export interface BackendRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  upgrade: boolean;
  /** CN of a client certificate that chains to the front-proxy CA; undefined without one. */
  proxyCN?: string;
  /** X-Remote-User, when a verified front proxy named one. */
  user?: string;
}

export interface TestUpgradeBackend {
  port: number;
  received: BackendRequest[];
  /** Switched connections still open. */
  open(): number;
  close(): Promise<void>;
}

const RESOURCE_LIST = {
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: `${WARDLE_GROUP}/${WARDLE_VERSION}`,
  resources: [
    { name: 'flunders', singularName: 'flunder', namespaced: true, kind: 'Flunder', verbs: ['get', 'list'] },
    { name: 'flunders/exec', singularName: '', namespaced: true, kind: 'Flunder', verbs: ['create', 'get'] },
  ],
};

const status = (code: number, reason: string, message: string) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });

function statusText(code: number, body: unknown): string {
  const text = JSON.stringify(body);
  return `HTTP/1.1 ${code} ${code === 401 ? 'Unauthorized' : 'Bad Request'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`;
}

function send(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

export async function startUpgradeBackend(serving: PemPair, frontProxyCAPem: string, opts: { allowedNames?: string[] } = {}): Promise<TestUpgradeBackend> {
  const received: BackendRequest[] = [];
  const switched = new Set<Duplex>();
  const record = (req: IncomingMessage, upgrade: boolean): BackendRequest => {
    const socket = req.socket as TLSSocket;
    const peer = socket.authorized ? socket.getPeerCertificate() : undefined;
    const r: BackendRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, upgrade };
    if (peer && typeof peer.subject?.CN === 'string') r.proxyCN = peer.subject.CN;
    const allowed = !opts.allowedNames?.length || (r.proxyCN !== undefined && opts.allowedNames.includes(r.proxyCN));
    if (r.proxyCN && allowed && typeof req.headers['x-remote-user'] === 'string') r.user = req.headers['x-remote-user'];
    received.push(r);
    return r;
  };

  const server = https.createServer({ cert: serving.certPem, key: serving.keyPem, ca: frontProxyCAPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const r = record(req, false);
    req.resume();
    if (!r.user) return send(res, 401, status(401, 'Unauthorized', 'Unauthorized'));
    if (new URL(r.url, 'https://wardle.test').pathname.replace(/\/$/, '') === BASE) return send(res, 200, RESOURCE_LIST);
    return send(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
  });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const r = record(req, true);
    if (!r.user) return void socket.end(statusText(401, status(401, 'Unauthorized', 'Unauthorized')));
    const path = new URL(r.url, 'https://wardle.test').pathname;
    if (!/\/flunders\/[^/]+\/(exec|attach)$/.test(path)) return void socket.end(statusText(400, status(400, 'BadRequest', `upgrade to ${String(req.headers.upgrade)} is not supported on ${path}`)));
    const offered = String(req.headers['x-stream-protocol-version'] ?? '')
      .split(',')[0]
      ?.trim();
    const lines = ['HTTP/1.1 101 Switching Protocols', 'Connection: Upgrade', `Upgrade: ${String(req.headers.upgrade)}`];
    if (offered) lines.push(`X-Stream-Protocol-Version: ${offered}`);
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    switched.add(socket);
    socket.once('close', () => switched.delete(socket));
    const echo = (d: Buffer) => {
      if (d.toString().includes('bye')) socket.end();
      else socket.write(d);
    };
    if (head.length) echo(head);
    socket.on('data', echo);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '0.0.0.0', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    received,
    open: () => switched.size,
    close: async () => {
      for (const s of switched) s.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
