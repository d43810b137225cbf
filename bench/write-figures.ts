// Creates, updates and deletes of ConfigMaps through the gateway, each interleaved with the same
// requests to the same-shape floor (a minimal gateway and a minimal storage responder, each in its
// own process on the same NATS: the floor of a system built this way) and to the minimal write
// server (one process writing the bucket itself; information). With `rawCreate`, raw KV creates
// join the create rounds, also as information. Then the CPU one write takes, process by process.

import { FLOOR_BUCKET, FLOOR_ROLES, MINIMAL_BUCKET, MINIMAL_ROLES, SHARED_ROLES, type BenchCluster } from './cluster.js';
import { cpuByRole } from './machine.js';
import type { HttpClient } from './http.js';
import { closedLoop, combine, interleaved, roundRatio, type LoadOptions, type LoadResult, type Operation } from './load.js';
import { ms, rate, type Row } from './report.js';
import { configMapWrites, seedConfigMaps } from './writes.js';

type Verb = 'create' | 'update' | 'delete';

export interface WriteOptions {
  /** Names the topology in the rows. */
  label: string;
  load: LoadOptions;
  rounds: number;
  namespace: string;
  /** Objects put in place for the delete rounds, per server (more than any of them deletes in them). */
  deleteStock: number;
  /** Least ratio to the same-shape floor per verb; without it the rows are information. */
  targets?: Record<Verb, number>;
  rawCreate?: Operation;
}

type Ops = ReturnType<typeof configMapWrites>;

export async function writeFigures(c: BenchCluster, clients: { gw: HttpClient; floor: HttpClient; bare: HttpClient }, o: WriteOptions): Promise<{ rows: Row[]; results: LoadResult[] }> {
  const [g, f, m] = [configMapWrites(clients.gw, o.namespace, 'cm'), configMapWrites(clients.floor, o.namespace, 'cm'), configMapWrites(clients.bare, o.namespace, 'cm')];
  for (const w of [g, f, m]) await w.prepareUpdates(o.load.concurrency);
  const createOps: Record<string, Operation> = { floor: f.create, minimal: m.create, gateway: g.create };
  if (o.rawCreate) createOps.raw = o.rawCreate;
  const runs: Record<Verb, Record<string, LoadResult[]>> = {
    create: await interleaved(createOps, o.rounds, o.load),
    update: await interleaved({ floor: f.update, minimal: m.update, gateway: g.update }, o.rounds, o.load),
    delete: {},
  };
  const cpu = [await cpuSplit(c, 'create', { g, f, m }, o.load), await cpuSplit(c, 'update', { g, f, m }, o.load)];
  await stockDeletes(c, clients.gw, { g, f, m }, o);
  runs.delete = await interleaved({ floor: f.remove, minimal: m.remove, gateway: g.remove }, o.rounds, o.load);

  const rows: Row[] = [];
  const results: LoadResult[] = [];
  for (const verb of ['create', 'update', 'delete'] as const) {
    const ops = runs[verb];
    const [gateway, floor, minimal] = [combine(ops.gateway!), combine(ops.floor!), combine(ops.minimal!)];
    results.push(gateway, floor, minimal);
    const ratio = roundRatio(ops.gateway!, ops.floor!);
    let limit = `same-shape floor ${rate(floor.rate)} p99 ${ms(floor.p99Ms)}; minimal write server ${rate(minimal.rate)} (ratio ${roundRatio(ops.gateway!, ops.minimal!).toFixed(2)})`;
    if (ops.raw) {
      const raw = combine(ops.raw);
      results.push(raw);
      limit += `; raw KV ${rate(raw.rate)} (ratio ${roundRatio(ops.gateway!, ops.raw).toFixed(2)})`;
    }
    const target = o.targets?.[verb];
    const row: Row = { figure: `${verb} via gateway, ${o.label} (c=${o.load.concurrency})`, measured: `${rate(gateway.rate)} p99 ${ms(gateway.p99Ms)}`, limit, ratio };
    rows.push(target === undefined ? row : { ...row, target: `≥ ${target}`, ok: ratio >= target });
  }
  for (const split of cpu) rows.push({ ...split, figure: `${split.figure}, ${o.label}` });
  return { rows, results };
}

/** Deletes need objects to delete: more than creates left behind, put straight into each bucket. */
async function stockDeletes(c: BenchCluster, gw: HttpClient, w: { g: Ops; f: Ops; m: Ops }, o: WriteOptions): Promise<void> {
  const nameOf = (i: number) => `del-${i}`;
  const names = Array.from({ length: o.deleteStock }, (_, i) => nameOf(i));
  for (const bucket of ['objects', FLOOR_BUCKET, MINIMAL_BUCKET]) await seedConfigMaps(c.nc, bucket, o.namespace, o.deleteStock, nameOf);
  // A consistent read waits until the gateway's cache holds them.
  await gw.json('GET', `/api/v1/namespaces/${o.namespace}/configmaps?limit=1`);
  for (const x of [w.g, w.f, w.m]) x.stock(names);
}

/**
 * Where the CPU of one write goes, process by process: a gateway-only loop, then a floor-only and
 * a minimal-server-only one (each warmed up first), with every process's CPU time read before and
 * after. The ratio of the totals (floor / gateway) is what the throughput ratio approaches when the
 * machine is the limit.
 */
async function cpuSplit(c: BenchCluster, verb: Verb, w: { g: Ops; f: Ops; m: Ops }, load: LoadOptions): Promise<Row> {
  const op = (x: Ops) => (verb === 'create' ? x.create : x.update);
  const perOp = async (operation: Operation, roles: string[]) => {
    await closedLoop(operation, { ...load, durationMs: 1 });
    const before = cpuByRole(c.roles);
    const r = await closedLoop(operation, { ...load, warmupMs: 0 });
    const after = cpuByRole(c.roles);
    const us = (role: string) => ((after[role]! - before[role]!) * 1000) / Math.max(1, r.ops);
    const total = roles.reduce((a, role) => a + us(role), 0);
    return { total, text: `${Math.round(total)} µs: ${roles.map((role) => `${role} ${Math.round(us(role))}`).join(' · ')}` };
  };
  const g = await perOp(op(w.g), [...c.systemRoles, ...SHARED_ROLES]);
  const f = await perOp(op(w.f), [...FLOOR_ROLES, ...SHARED_ROLES]);
  const m = await perOp(op(w.m), [...MINIMAL_ROLES, ...SHARED_ROLES]);
  return {
    figure: `CPU per ${verb} (µs, by process)`,
    measured: g.text,
    limit: `same-shape floor ${f.text}; minimal write server ${m.text}`,
    ratio: Math.round((f.total / g.total) * 100) / 100,
  };
}
