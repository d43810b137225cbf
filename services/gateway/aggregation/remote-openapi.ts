// The OpenAPI of each remote APIService's backend, for the gateway's own /openapi/v2 and
// /openapi/v3 (kube-aggregator's OpenAPI aggregation): the backend's `/openapi/v3/apis/<g>/<v>`
// document (found through its `/openapi/v3` root) is served as the gateway's, and its
// `/openapi/v2` paths under `/apis/<g>/<v>/` with their definitions are merged into the gateway's
// v2 document. Asked as the aggregator (system:kube-aggregator in system:masters) when an
// APIService appears, changes or becomes Available, and again when OpenAPI is read and the answer
// is older than a minute (upstream re-reads on a timer; here only when someone reads). A backend
// without OpenAPI, or one that fails, leaves its group out of OpenAPI and nothing else.

import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import { SYSTEM_MASTERS } from '../../../shared/api/groups.js';
import { AGGREGATOR_USER, type RemoteApiService } from '../../../shared/registry/builtin/apiregistration/remote-api-service.js';
import { authProxyHeaders, type ApiServiceBackends } from './backends.js';
import type { RemoteOpenApiPart } from '../routes/openapi-merge.js';

/** What one backend's OpenAPI gave: its v3 group-version document, its v2 paths and definitions. */
export type RemoteOpenApiDocs = RemoteOpenApiPart;

const MAX_AGE_MS = 60_000;
const TIMEOUT_MS = 5_000;
const MAX_BYTES = 16 * 1024 * 1024;
/**
 * How deeply a backend's document may nest. JSON.parse reads any depth, but comparing, merging and
 * encoding the document recurse: 400 KB of `[[[[…]]]]` overflowed the stack and took the gateway
 * down at every start. Real documents nest a few dozen levels.
 */
const MAX_DEPTH = 256;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether `doc` nests deeper than `max`, measured without recursion. */
export function nestsDeeperThan(doc: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[doc, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

async function readJson(res: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BYTES) throw new Error(`document larger than ${MAX_BYTES} bytes`);
    chunks.push(chunk);
  }
  if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
  const doc: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  if (nestsDeeperThan(doc, MAX_DEPTH)) throw new Error(`document nested deeper than ${MAX_DEPTH} levels`);
  return doc;
}

/** The v2 paths of `group/version` and every definition (the backend's are its own types and the meta ones it refers to). */
export function v2Part(doc: unknown, group: string, version: string): RemoteOpenApiDocs['v2'] {
  if (!isObject(doc) || !isObject(doc.paths)) return undefined;
  const prefix = `/apis/${group}/${version}/`;
  const paths = Object.fromEntries(Object.entries(doc.paths).filter(([p]) => p.startsWith(prefix)));
  return { paths, definitions: isObject(doc.definitions) ? doc.definitions : {} };
}

interface Known {
  basis: string;
  docs?: RemoteOpenApiDocs;
  fetchedAt: number;
  fetching: boolean;
}

export class RemoteOpenApi {
  private readonly known = new Map<string, Known>();

  constructor(
    private readonly backends: ApiServiceBackends,
    private readonly log: Logger,
    /** Called when what OpenAPI shows of remote APIServices changed. */
    private readonly onChange: () => void,
  ) {}

  /** Follows the current remote APIServices: new, changed or newly Available ones are asked at once. */
  track(apis: readonly RemoteApiService[]): void {
    const names = new Set(apis.map((a) => a.name));
    for (const name of this.known.keys()) {
      if (names.has(name)) continue;
      this.known.delete(name);
      this.onChange();
    }
    for (const api of apis) {
      const basis = JSON.stringify([api.group, api.version, api.service, api.caPem, api.insecureSkipTLSVerify, api.available]);
      const k = this.known.get(api.name);
      if (k?.basis === basis) continue;
      const next: Known = { basis, fetchedAt: 0, fetching: false, ...(k?.docs && api.available ? { docs: k.docs } : {}) };
      this.known.set(api.name, next);
      if (k?.docs && !next.docs) this.onChange();
      if (api.available) this.fetch(api, next);
    }
  }

  /** OpenAPI was read: answers older than a minute are asked again, in the background. */
  refreshOld(apis: readonly RemoteApiService[]): void {
    const now = Date.now();
    for (const api of apis) {
      const k = this.known.get(api.name);
      if (k && api.available && !k.fetching && now - k.fetchedAt > MAX_AGE_MS) this.fetch(api, k);
    }
  }

  /** What each Available backend's OpenAPI gave. */
  documents(apis: readonly RemoteApiService[]): RemoteOpenApiDocs[] {
    return apis.flatMap((api) => {
      const docs = api.available ? this.known.get(api.name)?.docs : undefined;
      return docs ? [docs] : [];
    });
  }

  private fetch(api: RemoteApiService, k: Known): void {
    k.fetching = true;
    k.fetchedAt = Date.now();
    const failed = (err: unknown) => {
      this.log.info({ apiService: api.name, err: (err as Error).message }, 'OpenAPI of a remote APIService could not be read');
      this.settle(api, k, undefined);
    };
    // A backend's answer that cannot be taken in (settle throwing) fails like one that never came:
    // nothing a backend sends may end the process.
    void this.ask(api)
      .then((docs) => this.settle(api, k, docs))
      .catch(failed);
  }

  private settle(api: RemoteApiService, k: Known, docs: RemoteOpenApiDocs | undefined): void {
    k.fetching = false;
    if (this.known.get(api.name) !== k || !docs) return;
    if (JSON.stringify(docs) === JSON.stringify(k.docs)) return;
    k.docs = docs;
    this.onChange();
  }

  private get(api: RemoteApiService, path: string): Promise<unknown> {
    const headers = { accept: 'application/json', ...authProxyHeaders({ username: AGGREGATOR_USER, groups: [SYSTEM_MASTERS] }) };
    return this.backends.open(api, { method: 'GET', path, headers, headersTimeoutMs: TIMEOUT_MS, signal: AbortSignal.timeout(TIMEOUT_MS) }).then(readJson);
  }

  /** Both documents; either may be missing (a backend serving only one), not both. */
  private async ask(api: RemoteApiService): Promise<RemoteOpenApiDocs> {
    const key = `apis/${api.group}/${api.version}`;
    const v3 = await this.get(api, '/openapi/v3').then(
      async (root) => {
        const url = isObject(root) && isObject(root.paths) && isObject(root.paths[key]) ? root.paths[key].serverRelativeURL : undefined;
        if (typeof url !== 'string' || !url.startsWith('/')) return undefined;
        const doc = await this.get(api, url);
        return isObject(doc) ? doc : undefined;
      },
      () => undefined,
    );
    const v2 = await this.get(api, '/openapi/v2').then(
      (doc) => v2Part(doc, api.group, api.version),
      (err: unknown) => {
        if (!v3) throw err;
        return undefined;
      },
    );
    if (!v3 && !v2) throw new Error('no OpenAPI document for the group/version');
    return { group: api.group, version: api.version, ...(v3 ? { v3 } : {}), ...(v2 ? { v2 } : {}) };
  }
}
