// What a filter is. Its own module, so the filters and the chain that lists them (chain.ts) do not
// import each other.

import type { FastifyReply, FastifyRequest } from 'fastify';

/** A filter acts before the handler (`onRequest`, throwing a Status to answer early) and/or once the response is done. */
export interface Filter {
  readonly name: string;
  onRequest?(req: FastifyRequest, reply: FastifyReply): void | Promise<void>;
  onResponse?(req: FastifyRequest, reply: FastifyReply): void | Promise<void>;
  /** Before a (non-hijacked) response's headers and body go out; may hold them back. */
  onSend?(req: FastifyRequest, reply: FastifyReply): void | Promise<void>;
}
