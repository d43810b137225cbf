// Watches that survive a gateway restart: the change log of the object bucket lives in JetStream,
// so a gateway started later rebuilds its watch window from it. The services run as users run
// them (services/<name>/main.ts as processes, their defaults); gateway A takes writes, gateway B is
// started only after them. On B, a watch (with and without a label selector) and an Exact list
// (whole and chunked) from a resourceVersion R0 older than B's start answer exactly what A would
// have; and a client-node informer moved from A (SIGKILLed) to B through a TCP proxy resumes its
// watch from its last resourceVersion without relisting, ending with the stored state.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { CoreV1Api, KubeConfig, makeInformer, type V1ConfigMap } from '@kubernetes/client-node';
import { freePort } from '../../shared/local/nats-server.js';
import { startTestNats, type TestNats } from '../support/nats.js';
import { tail, type Proc } from '../support/processes.js';
import { ServiceSet } from '../support/service-set.js';
import { plainRequest, type PlainReply } from '../support/plain-http.js';
import { eventually, sleep, uniq } from './helpers.js';
import { parseExposition, type Sample } from '../support/exposition.js';

const cmPath = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
const q = encodeURIComponent;
const SELECTOR = 'tier=x';

type Reply = PlainReply;

/** One acknowledged change: its revision, what happened, and the object's state after it (for DELETED, the last state). */
interface Change {
  rv: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  name: string;
  data: Record<string, string>;
  labels: Record<string, string>;
}

/** What a test compares of an object or a watch event. */
const view = (type: string, o: any) =>
  type === 'ERROR' || type === 'HTTP'
    ? `${type} ${o?.code} ${o?.reason}: ${o?.message ?? JSON.stringify(o)}`
    : `${type} ${o?.metadata?.name}@${o?.metadata?.resourceVersion} data=${JSON.stringify(o?.data ?? {})} labels=${JSON.stringify(o?.metadata?.labels ?? {})}`;
const changeView = (type: string, c: Change) => `${type} ${c.name}@${c.rv} data=${JSON.stringify(c.data)} labels=${JSON.stringify(c.labels)}`;

/** The state (name → change that made it) at `rv`, replayed from the state at the base plus the changes up to `rv`. */
function stateAt(base: Map<string, Change>, changes: Change[], rv: number): Map<string, Change> {
  const s = new Map(base);
  for (const c of changes) {
    if (c.rv > rv) break;
    if (c.type === 'DELETED') s.delete(c.name);
    else s.set(c.name, c);
  }
  return s;
}

/** The events a watch from the base revision sees, with an optional label filter (upstream's rules: leaving is DELETED, entering ADDED). */
function expectedEvents(base: Map<string, Change>, changes: Change[], filter?: (labels: Record<string, string>) => boolean): string[] {
  const s = new Map(base);
  const out: string[] = [];
  const matches = (c: Change | undefined) => c !== undefined && (!filter || filter(c.labels));
  for (const c of changes) {
    const was = matches(s.get(c.name));
    const is = c.type !== 'DELETED' && matches(c);
    if (c.type === 'DELETED') s.delete(c.name);
    else s.set(c.name, c);
    if (c.type === 'DELETED') {
      if (was) out.push(changeView('DELETED', c));
    } else if (was && is) out.push(changeView('MODIFIED', c));
    else if (is) out.push(changeView('ADDED', c));
    else if (was) out.push(changeView('DELETED', c));
  }
  return out;
}

const sortedState = (s: Map<string, Change>) => [...s.values()].map((c) => `${c.name}@${c.rv}`).sort();

// ---- a TCP proxy whose backend can be switched -------------------------------------------------

interface Proxy {
  port: number;
  /** New connections go to `port` (null: refused); existing ones are destroyed. */
  switchTo(port: number | null, label: string): void;
  /** HTTP request lines seen, by backend label (the gateways serve plain HTTP here). */
  requests: Array<{ backend: string; line: string }>;
  close(): Promise<void>;
}

async function startProxy(initial: number, label: string): Promise<Proxy> {
  let target: number | null = initial;
  let backend = label;
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  const requests: Proxy['requests'] = [];
  const server = net.createServer((client) => {
    if (target === null) {
      client.destroy();
      return;
    }
    const upstream = net.connect(target, '127.0.0.1');
    const pair = { client, upstream };
    pairs.add(pair);
    const seenBy = backend;
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (d: Buffer) => {
      for (const m of d.toString('latin1').matchAll(/(?:^|\r\n)((?:GET|POST|PUT|PATCH|DELETE) \S+) HTTP\/1\.[01]\r\n/g)) requests.push({ backend: seenBy, line: m[1]! });
    });
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    switchTo(port, label) {
      target = port;
      backend = label;
      for (const p of [...pairs]) {
        p.client.destroy();
        p.upstream.destroy();
      }
      pairs.clear();
    },
    requests,
    close: () =>
      new Promise<void>((r) => {
        for (const p of pairs) {
          p.client.destroy();
          p.upstream.destroy();
        }
        server.close(() => r());
      }),
  };
}

// ---- Prometheus exposition -----------------------------------------------------------------------

/** The sum over every series of `name` whose labels include `labels`. */
function total(samples: Sample[], name: string, labels: Record<string, string>): number {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((n, s) => n + s.value, 0);
}

// ---- a raw watch client --------------------------------------------------------------------------

interface RawWatch {
  status: number;
  /** Events as received; a non-200 answer's body is pushed as `{ type: 'HTTP', object }` when it ends. */
  events: Array<{ type: string; object: any }>;
  ended(): boolean;
  /** Resolves true once `pred` holds, false when the stream ends or `ms` pass first. */
  until(pred: () => boolean, ms: number): Promise<boolean>;
  close(): void;
}

describe('watch window rebuilt from JetStream: a gateway started later serves older resourceVersions', { timeout: 150_000 }, () => {
  let nats: TestNats;
  const token = randomBytes(16).toString('hex');
  let services: ServiceSet | undefined;
  let gatewayA: Proc;
  let gatewayB: Proc;
  let portA: number;
  let portB: number;
  let proxy: Proxy;

  const send = (port: number, method: string, p: string, body?: unknown, contentType = 'application/json'): Promise<Reply> => plainRequest(port, token, method, p, body, contentType);

  const ok = async (r: Promise<Reply>, code = 200): Promise<any> => {
    const res = await r;
    assert.equal(res.status, code, `expected ${code}, got ${res.status}: ${res.body.slice(0, 500)}`);
    return res.json;
  };

  function openWatch(port: number, p: string): Promise<RawWatch> {
    return new Promise((resolve, reject) => {
      const req = http.get(`http://127.0.0.1:${port}${p}`, { agent: false, headers: { authorization: `Bearer ${token}`, accept: 'application/json' } }, (res) => {
        const events: RawWatch['events'] = [];
        const wake = new Set<() => void>();
        let done = false;
        let buf = '';
        const finish = () => {
          if (done) return;
          done = true;
          if (res.statusCode !== 200 && buf.trim()) {
            let object: any = buf;
            try {
              object = JSON.parse(buf);
            } catch {
              // kept as text
            }
            events.push({ type: 'HTTP', object });
          }
          for (const w of [...wake]) w();
        };
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buf += chunk;
          if (res.statusCode !== 200) return;
          for (let i; (i = buf.indexOf('\n')) >= 0;) {
            const line = buf.slice(0, i).trim();
            buf = buf.slice(i + 1);
            if (line) events.push(JSON.parse(line));
          }
          for (const w of [...wake]) w();
        });
        res.on('end', finish).on('close', finish).on('error', finish);
        resolve({
          status: res.statusCode ?? 0,
          events,
          ended: () => done,
          until: (pred, ms) =>
            new Promise((r) => {
              const check = () => {
                if (pred()) return settle(true);
                if (done) return settle(false);
              };
              const timer = setTimeout(() => settle(pred()), ms);
              const settle = (v: boolean) => {
                clearTimeout(timer);
                wake.delete(check);
                r(v);
              };
              wake.add(check);
              check();
            }),
          close: () => {
            req.destroy();
            res.destroy();
          },
        });
      });
      req.on('error', reject);
    });
  }

  const startService = (name: string, args: string[], ready: RegExp): Promise<Proc> => services!.start(name, args, ready, 60_000);

  // ---- the recorded history of both namespaces -------------------------------------------------

  /** ns1: the watch/list checks. State at R0 and every acknowledged change after it. */
  const ns1 = uniq('gwr');
  let r0 = 0;
  const state0 = new Map<string, Change>();
  const changes1: Change[] = [];
  /** Changes made before gateway B started (the rest went through B). */
  let changesBeforeB = 0;
  /** A watch on A from R0, opened before the changes: what A itself delivered. */
  let watchOnA: RawWatch;
  let eventsOnA: string[] = [];

  /** ns2: the informer's namespace. Every acknowledged change. */
  const ns2 = uniq('gwi');
  const changes2: Change[] = [];
  let informer: ReturnType<typeof makeInformer<V1ConfigMap>>;
  let listCalls = 0;
  let connects = 0;
  const informerErrors: string[] = [];
  let informerStopped = false;
  /** The informer's resourceVersion when it was cut off from A. */
  let informerRv = '';

  const labelsOf = (o: any): Record<string, string> => ({ ...(o?.metadata?.labels ?? {}) });

  /** One write, recorded in `log` with the revision and state the server acknowledged. */
  async function write(
    port: number,
    log: Change[],
    op: 'create' | 'update' | 'delete',
    name: string,
    ns: string,
    data?: Record<string, string>,
    labels?: Record<string, string | null>,
  ): Promise<Change> {
    let c: Change;
    if (op === 'create') {
      const o = await ok(send(port, 'POST', cmPath(ns), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, data: data ?? {} }), 201);
      c = { rv: Number(o.metadata.resourceVersion), type: 'ADDED', name, data: o.data ?? {}, labels: labelsOf(o) };
    } else if (op === 'update') {
      const patch: any = {};
      if (data) patch.data = data;
      if (labels) patch.metadata = { labels };
      const o = await ok(send(port, 'PATCH', `${cmPath(ns)}/${name}`, patch, 'application/merge-patch+json'));
      c = { rv: Number(o.metadata.resourceVersion), type: 'MODIFIED', name, data: o.data ?? {}, labels: labelsOf(o) };
    } else {
      // A DELETE of a configmap answers a Status, not the object: the deletion's revision is read
      // from a watch on that one object, opened (without a resourceVersion: its current state,
      // then what follows) on the same gateway just before.
      const w = await openWatch(port, `${cmPath(ns)}?watch=1&fieldSelector=${q(`metadata.name=${name}`)}`);
      try {
        assert.equal(w.status, 200, JSON.stringify(w.events));
        assert.ok(await w.until(() => w.events.length >= 1, 5_000), `the watch on ${name} starts with its state`);
        const st = await ok(send(port, 'DELETE', `${cmPath(ns)}/${name}`));
        assert.equal(st.status, 'Success', JSON.stringify(st));
        assert.ok(await w.until(() => w.events.some((e) => e.type === 'DELETED'), 5_000), `the deletion of ${name} is watched: ${JSON.stringify(w.events)}`);
        const o = w.events.find((e) => e.type === 'DELETED')!.object;
        c = { rv: Number(o.metadata.resourceVersion), type: 'DELETED', name, data: o.data ?? {}, labels: labelsOf(o) };
      } finally {
        w.close();
      }
      // Its last state: the last logged change, or (ns1's objects untouched since) the state at R0.
      const last = [...log].reverse().find((x) => x.name === name) ?? (ns === ns1 ? state0.get(name) : undefined);
      if (last) assert.deepEqual([c.data, c.labels], [last.data, last.labels], `DELETED of ${name} carries its last state`);
    }
    const prev = log.at(-1);
    assert.ok(!prev || c.rv > prev.rv, `revisions increase: ${prev?.rv} then ${c.rv}`);
    log.push(c);
    return c;
  }

  before(async () => {
    nats = await startTestNats();
    [portA, portB] = [await freePort(), await freePort()];
    services = new ServiceSet(nats.url, token);
    await services.startBackends();
    gatewayA = await startService('gateway', [`--secure-port=${portA}`], /gateway serving/);
    for (let until = Date.now() + 30_000; ; await sleep(250)) {
      const r = await send(portA, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns1 } }).catch(() => null);
      if (r?.status === 201) break;
      if (Date.now() > until) throw new Error(`gateway A takes no writes: ${r?.status} ${r?.body}\n${tail(gatewayA.output())}`);
    }
    await ok(send(portA, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns2 } }), 201);

    // ---- the informer, through the proxy to A: synced, then following writes ----
    proxy = await startProxy(portA, 'A');
    const kc = new KubeConfig();
    kc.loadFromOptions({
      // Plain HTTP (the gateways run without --tls-cert-file, as in the fault suite): client-node
      // allows an http:// server only with skipTLSVerify, which has nothing else to skip here.
      clusters: [{ name: 'proxy', server: `http://127.0.0.1:${proxy.port}`, skipTLSVerify: true }],
      users: [{ name: 'admin', token }],
      contexts: [{ name: 'proxy', cluster: 'proxy', user: 'admin' }],
      currentContext: 'proxy',
    });
    const api = kc.makeApiClient(CoreV1Api);
    for (const n of ['p0', 'p1', 'p2']) await write(portA, changes2, 'create', n, ns2, { v: '0' });
    informer = makeInformer<V1ConfigMap>(kc, cmPath(ns2), () => {
      listCalls++;
      return api.listNamespacedConfigMap({ namespace: ns2 });
    });
    informer.on('connect', () => connects++);
    // As client-node's README has it: after an error (here: the connection is gone) start again;
    // the informer keeps its resourceVersion, so this resumes the watch rather than relisting.
    informer.on('error', (err: any) => {
      informerErrors.push(String(err?.message ?? err));
      if (!informerStopped) setTimeout(() => !informerStopped && void informer.start(), 200);
    });
    await informer.start();
    const cacheOf = () =>
      informer
        .list(ns2)
        .map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`)
        .sort();
    const storedNs2 = () => sortedState(stateAt(new Map(), changes2, Infinity));
    await write(portA, changes2, 'create', 'p3', ns2, { v: '0' });
    await write(portA, changes2, 'update', 'p1', ns2, { v: '1' });
    await eventually('the informer follows writes through A', () => assert.deepEqual(cacheOf(), storedNs2(), `informer errors: ${JSON.stringify(informerErrors.slice(-3))}; list calls ${listCalls}`), {
      timeoutMs: 10_000,
      intervalMs: 100,
    });
    // Cut the informer off (A still runs): the writes below are made while it is not watching, so
    // on B it must catch up on changes older than B's start.
    proxy.switchTo(null, 'none');
    // The informer's resourceVersion: its last event's (client-node asks for no bookmarks).
    informerRv = String(changes2.at(-1)!.rv);
    await write(portA, changes2, 'update', 'p2', ns2, { v: '1' }, { tier: 'x' });
    await write(portA, changes2, 'delete', 'p0', ns2);
    await write(portA, changes2, 'create', 'p4', ns2, { v: '0' });

    // ---- ns1: the state at R0, then changes through A (watched on A from R0) ----
    await write(portA, [], 'create', 'a', ns1, { v: '1' }, { tier: 'x' });
    await write(portA, [], 'create', 'b', ns1, { v: '1' }, { tier: 'x' });
    await write(portA, [], 'create', 'c', ns1, { v: '1' });
    await write(portA, [], 'create', 'd', ns1, { v: '1' });
    await write(portA, [], 'create', 'e', ns1, { v: '1' }, { tier: 'x' });
    const list0 = await ok(send(portA, 'GET', cmPath(ns1)));
    r0 = Number(list0.metadata.resourceVersion);
    for (const o of list0.items) state0.set(o.metadata.name, { rv: Number(o.metadata.resourceVersion), type: 'ADDED', name: o.metadata.name, data: o.data ?? {}, labels: labelsOf(o) });
    assert.equal(state0.size, 5);
    watchOnA = await openWatch(portA, `${cmPath(ns1)}?watch=1&resourceVersion=${r0}`);
    assert.equal(watchOnA.status, 200);
    await write(portA, changes1, 'update', 'a', ns1, { v: '2' }); // MODIFIED, stays in the selector
    await write(portA, changes1, 'update', 'b', ns1, undefined, { tier: null }); // leaves the selector
    await write(portA, changes1, 'update', 'c', ns1, undefined, { tier: 'x' }); // enters the selector
    await write(portA, changes1, 'delete', 'd', ns1); // never in the selector
    await write(portA, changes1, 'create', 'f', ns1, { v: '1' }, { tier: 'x' });
    await write(portA, changes1, 'delete', 'e', ns1); // deleted while in the selector
    await write(portA, changes1, 'update', 'f', ns1, { v: '2' });
    changesBeforeB = changes1.length;
    assert.ok(await watchOnA.until(() => watchOnA.events.length >= changesBeforeB, 10_000), 'gateway A delivers the changes from R0');
    eventsOnA = watchOnA.events.map((e) => view(e.type, e.object));
    watchOnA.close();

    // ---- gateway B, started after all of that; A killed; the proxy moved to B ----
    gatewayB = await startService('gateway', [`--secure-port=${portB}`], /gateway serving/);
    gatewayA.child.kill('SIGKILL');
    await gatewayA.exited;
    proxy.switchTo(portB, 'B');

    // ---- writes through B ----
    await write(portB, changes2, 'update', 'p4', ns2, { v: '1' });
    await write(portB, changes2, 'delete', 'p3', ns2);
    await write(portB, changes2, 'create', 'p5', ns2, { v: '0' });
    await write(portB, changes1, 'create', 'g', ns1, { v: '1' });
    await write(portB, changes1, 'update', 'g', ns1, undefined, { tier: 'x' }); // enters the selector
    await write(portB, changes1, 'delete', 'a', ns1);
    await write(portB, changes1, 'update', 'c', ns1, undefined, { tier: null }); // leaves the selector
  });

  after(async () => {
    informerStopped = true;
    await informer?.stop();
    watchOnA?.close();
    await proxy?.close();
    await services?.stop();
    await nats?.stop();
  });

  // First: the LIST counter of gateway B is read before any test request lists on B.
  it('informer - moved from a killed gateway to one started later, it resumes its watch: no relist, cache equal to the stored state', async () => {
    const want = sortedState(stateAt(new Map(), changes2, Infinity));
    const cacheOf = () =>
      informer
        .list(ns2)
        .map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`)
        .sort();
    await eventually('the informer cache equals the acknowledged state of its namespace', () => assert.deepEqual(cacheOf(), want), { timeoutMs: 15_000, intervalMs: 100 });
    assert.equal(informer.get('p2', ns2)?.metadata?.labels?.tier, 'x', 'a change made while the informer was cut off, before B started');
    assert.equal(informer.get('p0', ns2), undefined, 'a deletion made while the informer was cut off, before B started');

    const metrics = await send(portB, 'GET', '/metrics');
    assert.equal(metrics.status, 200, metrics.body.slice(0, 300));
    const samples = parseExposition(metrics.body);
    const lists = total(samples, 'apiserver_request_total', { verb: 'LIST', resource: 'configmaps' });
    const openWatches = total(samples, 'apiserver_longrunning_requests', { verb: 'WATCH', resource: 'configmaps' });
    const throughProxyToB = proxy.requests.filter((r) => r.backend === 'B').map((r) => r.line);
    const detail = `informer resumed from ${informerRv}; requests through the proxy to B: ${JSON.stringify(throughProxyToB)}; informer errors: ${JSON.stringify(informerErrors.slice(-5))}`;
    assert.equal(lists, 0, `gateway B served ${lists} configmap LIST(s): the informer relisted. ${detail}`);
    assert.equal(listCalls, 1, `the informer listed ${listCalls} times (once at start is all). ${detail}`);
    assert.deepEqual(
      throughProxyToB.filter((l) => !/[?&]watch=true(&|$)/.test(l)),
      [],
      `only watches went to B. ${detail}`,
    );
    assert.ok(
      throughProxyToB.some((l) => new RegExp(`[?&]resourceVersion=${informerRv}(&|$)`).test(l)),
      `the informer's watch on B resumed from its resourceVersion ${informerRv}. ${detail}`,
    );
    assert.ok(openWatches >= 1, `the informer's watch is open on B (apiserver_longrunning_requests WATCH configmaps = ${openWatches})`);
    assert.ok(connects >= 2, `the informer (re)connected: ${connects}`);

    // And the stored state, read from B, is what the informer holds.
    const stored = await ok(send(portB, 'GET', cmPath(ns2)));
    assert.deepEqual(cacheOf(), stored.items.map((o: any) => `${o.metadata.name}@${o.metadata.resourceVersion}`).sort());
  });

  it('watch - from R0 (older than gateway B) on B delivers exactly the changes after R0, in order, then live ones', async () => {
    assert.ok(changesBeforeB > 0 && r0 > 0);
    // What A delivered from R0 before B existed is what the acknowledgements say.
    assert.deepEqual(eventsOnA, expectedEvents(state0, changes1.slice(0, changesBeforeB)), 'gateway A from R0 (the reference)');
    const w = await openWatch(portB, `${cmPath(ns1)}?watch=1&resourceVersion=${r0}`);
    try {
      assert.equal(w.status, 200, JSON.stringify(w.events));
      const history = expectedEvents(state0, changes1);
      await w.until(() => w.events.length >= history.length, 10_000);
      assert.deepEqual(
        w.events.map((e) => view(e.type, e.object)),
        history,
        `watch from R0=${r0} on gateway B`,
      );
      // The watch goes on live: the next write is the next event, nothing in between.
      const live = await write(portB, changes1, 'create', 'h', ns1, { v: '1' }, { tier: 'x' });
      await w.until(() => w.events.length > history.length, 5_000);
      assert.deepEqual(
        w.events.slice(history.length).map((e) => view(e.type, e.object)),
        [changeView('ADDED', live)],
      );
    } finally {
      w.close();
    }
  });

  it('watch - from R0 on B with a label selector: leaving the selector is DELETED, entering it ADDED', async () => {
    const filter = (l: Record<string, string>) => l.tier === 'x';
    const history = expectedEvents(state0, changes1, filter);
    // The cases the scenario is built for, spelled out.
    const b = changes1.find((c) => c.name === 'b')!;
    const c = changes1.find((c) => c.name === 'c')!;
    const e = changes1.find((c) => c.name === 'e' && c.type === 'DELETED')!;
    assert.ok(history.includes(changeView('DELETED', b)) && history.includes(changeView('ADDED', c)) && history.includes(changeView('DELETED', e)));
    assert.ok(!history.some((h) => h.includes(' d@')), 'd was never in the selector');
    const w = await openWatch(portB, `${cmPath(ns1)}?watch=1&resourceVersion=${r0}&labelSelector=${q(SELECTOR)}`);
    try {
      assert.equal(w.status, 200, JSON.stringify(w.events));
      await w.until(() => w.events.length >= history.length, 10_000);
      await sleep(300); // nothing more may come
      assert.deepEqual(
        w.events.map((e) => view(e.type, e.object)),
        history,
        `watch from R0=${r0} with ${SELECTOR} on gateway B`,
      );
    } finally {
      w.close();
    }
  });

  it('list - Exact at R0 on B returns the state recorded at R0, whole and in chunks of 2', async () => {
    const want = sortedState(state0);
    const r = await send(portB, 'GET', `${cmPath(ns1)}?resourceVersion=${r0}&resourceVersionMatch=Exact`);
    assert.equal(r.status, 200, `Exact list at R0=${r0} on gateway B: ${r.status} ${r.body.slice(0, 400)}\ngateway B's output:\n${tail(gatewayB.output(), 15)}`);
    assert.equal(r.json.metadata.resourceVersion, String(r0));
    assert.deepEqual(r.json.items.map((o: any) => `${o.metadata.name}@${o.metadata.resourceVersion}`).sort(), want);
    assert.deepEqual(
      r.json.items.map((o: any) => view('', o)),
      [...state0.values()].sort((x, y) => x.name.localeCompare(y.name)).map((c) => changeView('', c)),
      'data and labels as at R0',
    );

    const pages: any[] = [];
    let page = await send(portB, 'GET', `${cmPath(ns1)}?limit=2&resourceVersion=${r0}&resourceVersionMatch=Exact`);
    for (;;) {
      assert.equal(page.status, 200, `chunked Exact list at R0=${r0} on gateway B, page ${pages.length + 1}: ${page.status} ${page.body.slice(0, 400)}`);
      assert.equal(page.json.metadata.resourceVersion, String(r0), `page ${pages.length + 1} is at R0`);
      assert.ok(page.json.items.length <= 2);
      pages.push(page.json);
      if (!page.json.metadata.continue) break;
      assert.ok(pages.length < 10, 'the pages end');
      page = await send(portB, 'GET', `${cmPath(ns1)}?limit=2&continue=${q(page.json.metadata.continue)}`);
    }
    assert.equal(pages.length, Math.ceil(state0.size / 2));
    assert.deepEqual(
      pages.flatMap((p) => p.items.map((o: any) => `${o.metadata.name}@${o.metadata.resourceVersion}`)),
      [...want].sort((x, y) => x.localeCompare(y)),
      'the pages in name order make up the state at R0',
    );
  });

  it('list - Exact on B at each acknowledged revision since R0 returns the state at that revision', async () => {
    const wrong: string[] = [];
    for (const c of changes1) {
      const r = await send(portB, 'GET', `${cmPath(ns1)}?resourceVersion=${c.rv}&resourceVersionMatch=Exact`);
      const got = r.status === 200 ? r.json.items.map((o: any) => `${o.metadata.name}@${o.metadata.resourceVersion}`).sort() : `${r.status} ${r.json?.message ?? r.body.slice(0, 200)}`;
      const want = sortedState(stateAt(state0, changes1, c.rv));
      if (JSON.stringify(got) !== JSON.stringify(want))
        wrong.push(`at ${c.rv} (${c.type} ${c.name}, ${changes1.indexOf(c) < changesBeforeB ? 'before' : 'after'} B started): got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
    }
    assert.deepEqual(wrong, []);
  });
});
