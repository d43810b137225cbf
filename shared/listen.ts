// Binding a node HTTP(S) server and closing it at shutdown, for the small listeners beside the
// gateway (the controllers' health endpoint, the services' metrics).

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens at host:port (0: any free port); rejects when the address cannot be bound. Returns the bound address. */
export async function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  // Keep-alive connections of a prober or scraper must not hold the process open at shutdown.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server.address() as AddressInfo;
}

/** Stops listening and drops open connections. */
export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
