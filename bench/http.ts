// A minimal HTTPS client for the load generator: one keep-alive Agent per target whose socket
// pool equals the concurrency, so a closed loop of N workers holds exactly N connections and
// measures request handling, not TLS handshakes.

import https from 'node:https';

export interface HttpResponse {
  status: number;
  body: Buffer;
}

export class HttpClient {
  private readonly agent: https.Agent;
  private readonly host: string;
  private readonly port: number;
  private readonly auth: string | undefined;

  constructor(baseUrl: string, caPem: string, opts: { token?: string; maxSockets: number }) {
    const u = new URL(baseUrl);
    this.host = u.hostname;
    this.port = Number(u.port);
    this.auth = opts.token ? `Bearer ${opts.token}` : undefined;
    this.agent = new https.Agent({ ca: caPem, keepAlive: true, maxSockets: opts.maxSockets, maxFreeSockets: opts.maxSockets });
  }

  request(method: string, path: string, body?: Buffer, media: { accept?: string; contentType?: string } = {}): Promise<HttpResponse> {
    const headers: Record<string, string | number> = { accept: media.accept ?? 'application/json' };
    if (this.auth) headers.authorization = this.auth;
    if (body) {
      headers['content-type'] = media.contentType ?? 'application/json';
      headers['content-length'] = body.length;
    }
    return new Promise((resolve, reject) => {
      const req = https.request({ host: this.host, port: this.port, path, method, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  /** Parsed JSON body; throws with the body text on an unexpected status. */
  async json<T = any>(method: string, path: string, body?: unknown, expect: number[] = [200, 201]): Promise<T> {
    const res = await this.request(method, path, body === undefined ? undefined : Buffer.from(JSON.stringify(body)));
    if (!expect.includes(res.status)) throw new Error(`${method} ${path} → ${res.status}: ${res.body.toString().slice(0, 500)}`);
    return JSON.parse(res.body.toString()) as T;
  }

  destroy(): void {
    this.agent.destroy();
  }
}
