// Upgrade requests (`Connection: Upgrade` with `Upgrade: SPDY/3.1` or `websocket`: what kubectl
// exec, attach and port-forward send). Node hands them to the server's `upgrade` event with the
// raw socket, outside fastify's routing; here each one is routed through fastify all the same, on
// a response bound to that socket, so it passes the same filters (authentication, audit,
// impersonation, authorization, metrics) and handlers as any request. A handler that can switch
// protocols takes the socket (`upgradeOf`) once the filters let the request through and writes
// the 101 itself; every other answer (a Status refusing it, a backend's refusal) is an ordinary
// response, after which the connection closes: an upgrade request's connection carries nothing else.

import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';

/** The client's side of an upgrade request: its socket, and any bytes it sent after the request's headers. */
export interface ClientTunnel {
  socket: Duplex;
  head: Buffer;
}

const tunnels = new WeakMap<IncomingMessage, ClientTunnel>();

/** The client's socket when `req` came as an upgrade request; undefined for any other request. */
export function upgradeOf(req: IncomingMessage): ClientTunnel | undefined {
  return tunnels.get(req);
}

export interface UpgradeRouting {
  /** Closes every upgrade connection still open (a stream a handler switched to, or one still being answered). */
  closeAll(): void;
}

/** Routes the server's upgrade requests through `app` (its filters and handlers). */
export function routeUpgrades(app: FastifyInstance, log: Logger): UpgradeRouting {
  const open = new Set<Duplex>();
  app.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    // The HTTP server stopped listening to this socket: an error on it must not go unhandled.
    socket.on('error', (err) => {
      log.debug({ err: err.message, url: req.url }, 'upgrade connection failed');
      socket.destroy();
    });
    tunnels.set(req, { socket, head });
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    // A response that did not switch protocols ends the connection once it is written.
    res.once('finish', () => socket.end());
    try {
      app.routing(req, res);
    } catch (err) {
      log.warn({ err, url: req.url }, 'upgrade request could not be routed');
      socket.destroy();
    }
  });
  return {
    closeAll: () => {
      for (const socket of open) socket.destroy();
      open.clear();
    },
  };
}
