// Allow-all admission webhooks for the bench, in their own process so answering them does not
// take CPU from the load generator. Every path answers an AdmissionReview with allowed: true,
// except that `/hook-<i>` refuses objects named `probe-<i>-…`: the bench's way of telling that
// webhook <i>'s configuration is in effect. Prints "listening <port>".
//
//   node --import tsx bench/webhook-proc.ts --cert serving.crt --key serving.key

import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';

function main(): void {
  const { values } = parseArgs({ options: { cert: { type: 'string' }, key: { type: 'string' } } });
  const server = https.createServer({ cert: readFileSync(values.cert!, 'utf8'), key: readFileSync(values.key!, 'utf8') }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const hook = /^\/hook-(\d+)$/.exec(req.url ?? '')?.[1];
      const name: string = review.request?.object?.metadata?.name ?? '';
      const allowed = hook === undefined || !name.startsWith(`probe-${hook}-`);
      const body = JSON.stringify({
        apiVersion: review.apiVersion,
        kind: 'AdmissionReview',
        response: { uid: review.request.uid, allowed, ...(allowed ? {} : { status: { code: 403, message: `probe refused by hook ${hook}` } }) },
      });
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`));
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}

main();
