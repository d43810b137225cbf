import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forbidden } from '../../../shared/api/status.js';
import type { AdmissionRequest } from '../../../shared/bus/messages.js';
import { silentLogger } from '../../../shared/log.js';
import { admissionInterest, pluginMatches, runAdmissionChain } from '../chain.js';
import type { AdmissionPlugin } from '../types.js';

const log = silentLogger();
const base: AdmissionRequest = {
  uid: 'u',
  phase: 'mutating',
  kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
  resource: { group: 'apps', version: 'v1', resource: 'deployments' },
  name: 'd',
  namespace: 'a',
  operation: 'CREATE',
  userInfo: { username: 'jane', groups: [] },
  object: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', labels: {} } },
  oldObject: null,
  dryRun: false,
};

const labeler = (key: string): AdmissionPlugin => ({
  name: `label-${key}`,
  mutate(req, ctx) {
    req.object!.metadata.labels![key] = String(Object.keys(req.object!.metadata.labels!).length);
    ctx.warn(`${key} added`);
  },
});

test('admission chain - mutators run in order, each seeing the previous result, without touching the input', async () => {
  const input = structuredClone(base);
  const replacer: AdmissionPlugin = { name: 'replace', mutate: (req) => ({ ...req.object!, metadata: { ...req.object!.metadata, annotations: { replaced: 'yes' } } }) };
  const reply = await runAdmissionChain([labeler('first'), replacer, labeler('second')], input, log);
  assert.deepEqual(reply, {
    allowed: true,
    object: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', labels: { first: '0', second: '1' }, annotations: { replaced: 'yes' } } },
    warnings: ['first added', 'second added'],
  });
  assert.deepEqual(input, base);
});

test('admission chain - phases pick their hooks; the first rejection wins', async () => {
  const calls: string[] = [];
  const rec = (name: string, reject = false): AdmissionPlugin => ({
    name,
    mutate: () => {
      calls.push(`${name}:mutate`);
    },
    validate: () => {
      calls.push(`${name}:validate`);
      if (reject) throw forbidden({ group: 'apps', resource: 'deployments' }, 'd', `${name} says no`);
    },
  });
  const chain = [rec('a'), rec('b', true), rec('c', true)];
  assert.equal((await runAdmissionChain(chain, base, log)).allowed, true);
  assert.deepEqual(calls, ['a:mutate', 'b:mutate', 'c:mutate']);
  calls.length = 0;
  const reply = await runAdmissionChain(chain, { ...base, phase: 'validating' }, log);
  assert.deepEqual(calls, ['a:validate', 'b:validate']);
  assert.equal(reply.allowed, false);
  assert.equal(reply.object, undefined);
  assert.equal(reply.status?.code, 403);
  assert.equal(reply.status?.message, 'deployments.apps "d" is forbidden: b says no');
});

test('admission chain - a plugin that crashes denies with a 500 that does not leak its error', async () => {
  const crash: AdmissionPlugin = {
    name: 'Crashy',
    validate: () => {
      throw new Error('secret internals');
    },
  };
  const reply = await runAdmissionChain([crash], { ...base, phase: 'validating' }, log);
  assert.equal(reply.allowed, false);
  assert.equal(reply.status?.code, 500);
  assert.match(reply.status!.message, /admission plugin "Crashy" failed/);
  assert.doesNotMatch(reply.status!.message, /secret/);
});

test('admission chain - plugins only see the operations and resources they declare', () => {
  const cases: Array<{ match: AdmissionPlugin['match']; req: Partial<AdmissionRequest>; want: boolean }> = [
    { match: undefined, req: {}, want: true },
    { match: { operations: ['UPDATE'] }, req: {}, want: false },
    { match: { operations: ['CREATE', 'UPDATE'] }, req: {}, want: true },
    { match: { resources: [{ group: '', resource: 'pods' }] }, req: {}, want: false },
    { match: { resources: [{ group: 'apps', resource: '*' }] }, req: {}, want: true },
    { match: { resources: [{ group: '*', resource: 'deployments' }] }, req: {}, want: true },
    { match: { operations: ['DELETE'], resources: [{ group: '*', resource: '*' }] }, req: { operation: 'DELETE' }, want: true },
  ];
  for (const c of cases) assert.equal(pluginMatches(c.match, { ...base, ...c.req }), c.want, JSON.stringify(c));
});

test("admission chain - interest lists each phase's plugins and their matches, so the gateway can skip a phase", () => {
  const plugins: AdmissionPlugin[] = [
    { name: 'everything', mutate: () => undefined },
    { name: 'pods-only', match: { operations: ['CREATE'], resources: [{ group: '', resource: 'pods' }] }, validate: () => undefined },
    { name: 'idle' },
  ];
  assert.deepEqual(admissionInterest(plugins), {
    mutating: [{}],
    validating: [{ operations: ['CREATE'], resources: [{ group: '', resource: 'pods' }] }],
  });
  assert.deepEqual(admissionInterest([]), { mutating: [], validating: [] });
});

test('admission chain - a dry run fails at a plugin with side effects and runs those without', async () => {
  const ran: string[] = [];
  const plugin = (name: string, sideEffects: AdmissionPlugin['sideEffects']): AdmissionPlugin => ({
    name,
    sideEffects,
    mutate: () => {
      ran.push(name);
    },
  });
  const cases: [AdmissionPlugin['sideEffects'], boolean][] = [
    [undefined, true],
    ['None', true],
    ['NoneOnDryRun', true],
    ['Some', false],
    ['Unknown', false],
  ];
  for (const [sideEffects, dryRunAllowed] of cases) {
    ran.length = 0;
    const p = plugin(`p-${String(sideEffects)}`, sideEffects);
    const wet = await runAdmissionChain([p], base, log);
    assert.equal(wet.allowed, true, `${String(sideEffects)}: a real request runs the plugin`);
    assert.deepEqual(ran, [p.name]);
    ran.length = 0;
    const dry = await runAdmissionChain([p], { ...base, dryRun: true }, log);
    assert.equal(dry.allowed, dryRunAllowed, String(sideEffects));
    assert.deepEqual(ran, dryRunAllowed ? [p.name] : [], `${String(sideEffects)}: the plugin ${dryRunAllowed ? 'runs' : 'is never called'}`);
    if (!dryRunAllowed) {
      assert.equal(dry.status?.code, 400);
      assert.equal(dry.status?.message, `admission plugin "${p.name}" has side effects and does not support dry run`);
    }
  }
});
