// One request to a gateway listening on plain HTTP on 127.0.0.1 (the suites that run a gateway
// process behind no TLS), bearer token, JSON body; the answer's status, text and JSON (if any).

import http from 'node:http';

export interface PlainReply {
  status: number;
  body: string;
  json: any;
}

/** `METHOD path` on port `port`; a request with no answer within `timeoutMs` fails (rejects). */
export function plainRequest(port: number, token: string, method: string, p: string, body?: unknown, contentType = 'application/json', timeoutMs = 20_000): Promise<PlainReply> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      `http://127.0.0.1:${port}${p}`,
      {
        method,
        agent: false,
        timeout: timeoutMs,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(data ? { 'content-type': contentType, 'content-length': Buffer.byteLength(data) } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let json: any;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, body: text, json });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${p} hung`)));
    req.on('error', reject);
    req.end(data);
  });
}
