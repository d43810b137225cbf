// A custom resource against a ConfigMap of the same size: creates, GETs and a full list, each pair
// interleaved in the same run (target: a custom resource at ≥ 0.9 of the ConfigMap's rate). The
// Widget's schema names every field it carries (labels, a string map, a replica count), so pruning,
// defaulting and validation against the definition's schema are all on its path, as for any real
// definition.

import type { HttpClient } from './http.js';
import { combine, interleaved, median, roundRatio, type LoadOptions, type LoadResult, type Operation } from './load.js';
import { configMapBody } from './objects.js';
import { getOp } from './reads.js';
import { ms, rate, type Row } from './report.js';

const GROUP = 'bench.example.com';
const CRDS = '/apis/apiextensions.platform.io/v1/customresourcedefinitions';
const NAME = `widgets.${GROUP}`;
const TARGET_RATIO = 0.9;
const LIST_OBJECTS = 1_000;
const LIST_RUNS = 15;

const SCHEMA = {
  type: 'object',
  properties: {
    data: { type: 'object', additionalProperties: { type: 'string' } },
    spec: { type: 'object', properties: { replicas: { type: 'integer', minimum: 0, default: 1 } } },
  },
};

const definition = {
  apiVersion: 'apiextensions.platform.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: NAME },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: SCHEMA } }],
  },
};

/** A Widget with the ConfigMap's labels and data (same size on the wire), plus a defaulted spec. */
function widgetBody(namespace: string, name: string): Record<string, unknown> {
  return { ...configMapBody(namespace, name), apiVersion: `${GROUP}/v1`, kind: 'Widget', spec: {} };
}

/**
 * Defines the Widget and makes it Established. The bench runs no controllers service (it would
 * load every other figure), so the definition's status is written through `/status` as the
 * customresources controller writes it; every gateway serves the type from that status alone.
 */
async function defineWidget(gw: HttpClient, namespace: string): Promise<void> {
  const crd = await gw.json('POST', CRDS, definition, [201]);
  const status = {
    ...crd,
    status: {
      acceptedNames: definition.spec.names,
      storedVersions: ['v1'],
      conditions: [
        { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found', lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') },
        {
          type: 'Established',
          status: 'True',
          reason: 'InitialNamesAccepted',
          message: 'the initial names have been accepted',
          lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
        },
      ],
    },
  };
  await gw.json('PUT', `${CRDS}/${NAME}/status`, status, [200]);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await gw.request('GET', `/apis/${GROUP}/v1/namespaces/${namespace}/widgets`);
    if (res.status === 200) return;
    if (Date.now() > deadline) throw new Error(`the gateway does not serve ${NAME} 10 s after it was Established: ${res.status} ${res.body.toString().slice(0, 200)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function createOp(gw: HttpClient, path: string, body: (name: string) => Record<string, unknown>, prefix: string): Operation {
  return async (_w, seq) => {
    const res = await gw.request('POST', path, Buffer.from(JSON.stringify(body(`${prefix}-${seq}`))));
    if (res.status !== 201) throw new Error(`POST ${path} → ${res.status}: ${res.body.toString().slice(0, 300)}`);
  };
}

/** The bytes of the first listed item of `path` as the gateway serves it. */
async function itemBytes(gw: HttpClient, path: string): Promise<number> {
  const page = await gw.json<{ items: unknown[] }>('GET', `${path}?limit=1`);
  return JSON.stringify(page.items[0]).length;
}

/** What a `padding` key adds to a stored ConfigMap besides its value: the key in data and its managedFields entry. */
const PADDING_OVERHEAD = ',"padding":""'.length + ',"f:padding":{}'.length;

/** A ConfigMap body with a data key of `length` bytes more. */
function padded(body: Record<string, unknown>, length: number): Record<string, unknown> {
  return length > 0 ? { ...body, data: { ...(body.data as Record<string, string>), padding: 'x'.repeat(length) } } : body;
}

async function fill(gw: HttpClient, path: string, body: (name: string) => Record<string, unknown>, count: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) await gw.json('POST', path, body(`list-${i}`), [201]);
  };
  await Promise.all(Array.from({ length: 32 }, worker));
}

/**
 * The median time of each full list, the lists taking turns (which goes first alternates), so that
 * drift on the machine (a collection, another process) falls on both alike. Each list's first
 * answer is a warm-up and not counted.
 */
async function medianListMs<K extends string>(gw: HttpClient, paths: Record<K, string>, runs: number): Promise<Record<K, number>> {
  const keys = Object.keys(paths) as K[];
  const times = Object.fromEntries(keys.map((k) => [k, [] as number[]])) as Record<K, number[]>;
  for (let i = 0; i <= runs; i++) {
    for (const k of i % 2 === 0 ? keys : [...keys].reverse()) {
      const t = performance.now();
      const res = await gw.request('GET', paths[k]);
      if (res.status !== 200) throw new Error(`GET ${paths[k]} → ${res.status}`);
      const items = (JSON.parse(res.body.toString()) as { items: unknown[] }).items.length;
      if (items !== LIST_OBJECTS) throw new Error(`GET ${paths[k]} listed ${items} items, expected ${LIST_OBJECTS}`);
      if (i > 0) times[k].push(performance.now() - t);
    }
  }
  return Object.fromEntries(keys.map((k) => [k, median(times[k])])) as Record<K, number>;
}

function pairRow(figure: string, cr: LoadResult[], cm: LoadResult[]): Row {
  const [a, b] = [combine(cr), combine(cm)];
  const ratio = roundRatio(cr, cm);
  return { figure, measured: `${rate(a.rate)} p99 ${ms(a.p99Ms)}`, limit: `ConfigMap ${rate(b.rate)} p99 ${ms(b.p99Ms)}`, ratio, target: `≥ ${TARGET_RATIO}`, ok: ratio >= TARGET_RATIO };
}

/** The custom resource rows; `namespaces` are created here (one for creates, one per kind for lists). */
export async function customResourceFigures(gw: HttpClient, rounds: number, load: LoadOptions): Promise<{ rows: Row[]; results: LoadResult[] }> {
  const [ns, cmList, crList] = ['bench-cr', 'bench-cr-list-cm', 'bench-cr-list-widget'];
  for (const name of [ns, cmList, crList]) await gw.json('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, [201]);
  await defineWidget(gw, ns);
  const cms = `/api/v1/namespaces/${ns}/configmaps`;
  const widgets = `/apis/${GROUP}/v1/namespaces/${ns}/widgets`;

  const creates = await interleaved({ cm: createOp(gw, cms, (n) => configMapBody(ns, n), 'cm'), cr: createOp(gw, widgets, (n) => widgetBody(ns, n), 'widget') }, rounds, load);
  await gw.json('POST', cms, configMapBody(ns, 'one'), [201]);
  await gw.json('POST', widgets, widgetBody(ns, 'one'), [201]);
  const gets = await interleaved({ cm: getOp(gw, `${cms}/one`), cr: getOp(gw, `${widgets}/one`) }, rounds, load);

  const lists = { cm: `/api/v1/namespaces/${cmList}/configmaps`, cr: `/apis/${GROUP}/v1/namespaces/${crList}/widgets` };
  await fill(gw, lists.cr, (n) => widgetBody(crList, n), LIST_OBJECTS);
  // A stored Widget is longer than the ConfigMap it was made from (its apiVersion twice, a
  // defaulted spec, a generation): the listed ConfigMaps carry as many bytes more in their data,
  // so the two lists move the same bytes and the ratio is the custom resource's own cost.
  const widgetBytes = await itemBytes(gw, lists.cr);
  await gw.json('POST', lists.cm, configMapBody(cmList, 'probe'), [201]);
  const padding = Math.max(0, widgetBytes - (await itemBytes(gw, lists.cm)) - PADDING_OVERHEAD);
  await gw.json('DELETE', `${lists.cm}/probe`, undefined, [200]);
  await fill(gw, lists.cm, (n) => padded(configMapBody(cmList, n), padding), LIST_OBJECTS);
  const configMapBytes = await itemBytes(gw, lists.cm);
  const { cm: cmMs, cr: crMs } = await medianListMs(gw, lists, LIST_RUNS);
  const listRatio = Math.round((cmMs / crMs) * 100) / 100;

  const rows = [
    pairRow(`custom resource creates (c=${load.concurrency})`, creates.cr, creates.cm),
    pairRow(`custom resource GETs, consistent (c=${load.concurrency})`, gets.cr, gets.cm),
    {
      figure: `custom resource full list of ${LIST_OBJECTS.toLocaleString('en-US')} (median of ${LIST_RUNS}, taking turns)`,
      measured: ms(crMs),
      limit: `ConfigMaps ${ms(cmMs)} (items of ${configMapBytes} B, padded to the Widgets' ${widgetBytes} B)`,
      ratio: listRatio,
      target: `≥ ${TARGET_RATIO}`,
      ok: listRatio >= TARGET_RATIO,
    },
  ];
  return { rows, results: [...creates.cr, ...creates.cm, ...gets.cr, ...gets.cm] };
}
