// A real HTTPS server on 127.0.0.1:0 (or another host) for webhook and OIDC tests: the handler
// gets the request with its body already read, and the peer certificate when one was presented.

import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { PemPair } from '../../local/pki.js';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** CN of the client certificate, when one was presented and verified. */
  clientCN?: string;
}

export type TestHandler = (req: ReceivedRequest, res: ServerResponse) => void | Promise<void>;

export interface TestHttpsServer {
  /** https://127.0.0.1:<port> */
  url: string;
  port: number;
  /** Every request received, oldest first. */
  received: ReceivedRequest[];
  close(): Promise<void>;
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

export async function startHttpsServer(serving: PemPair, handler: TestHandler, opts: { clientCAPem?: string; port?: number; host?: string } = {}): Promise<TestHttpsServer> {
  const received: ReceivedRequest[] = [];
  const server = https.createServer({ cert: serving.certPem, key: serving.keyPem, ...(opts.clientCAPem ? { ca: opts.clientCAPem, requestCert: true, rejectUnauthorized: true } : {}) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: ReceivedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      const peer = (req.socket as TLSSocket).getPeerCertificate?.();
      if (peer && typeof peer.subject?.CN === 'string') r.clientCN = peer.subject.CN;
      received.push(r);
      Promise.resolve(handler(r, res)).catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    received,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
