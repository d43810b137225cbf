import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../shared/api/types.js';
import { createDefaultIngressClassPlugin } from '../plugins/networking/default-ingress-class.js';
import { admitted, cacheOf, request, run, type RequestInit } from './defaulting-fixtures.js';

const NETWORKING = 'networking.platform.io';
const ic = (name: string, annotations?: Record<string, string>): ApiObject => ({
  apiVersion: `${NETWORKING}/v1`,
  kind: 'IngressClass',
  metadata: { name, ...(annotations ? { annotations } : {}) },
  spec: { controller: 'example.com/ingress' },
});
const DEFAULT = { 'ingressclass.platform.io/is-default-class': 'true' };

const ingress = (spec: Record<string, unknown> = {}, annotations?: Record<string, string>): ApiObject => ({
  apiVersion: `${NETWORKING}/v1`,
  kind: 'Ingress',
  metadata: { name: 'web', namespace: 'ns1', ...(annotations ? { annotations } : {}) },
  spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } }, ...spec },
});

const setup = (classes: ApiObject[]) => {
  const plugin = createDefaultIngressClassPlugin(cacheOf(NETWORKING, 'ingressclasses', classes));
  return (init: RequestInit) => run(plugin, request({ namespace: 'ns1', group: NETWORKING, resource: 'ingresses', ...init }));
};

test('DefaultIngressClass - which ingresses get which class', async (t) => {
  const cases: Array<{ name: string; classes: ApiObject[]; ingress: ApiObject; want: unknown }> = [
    { name: 'no class named: the default', classes: [ic('nginx'), ic('traefik', DEFAULT)], ingress: ingress(), want: 'traefik' },
    { name: 'no default: left alone', classes: [ic('nginx')], ingress: ingress(), want: undefined },
    { name: 'a named class is kept', classes: [ic('traefik', DEFAULT)], ingress: ingress({ ingressClassName: 'nginx' }), want: 'nginx' },
    { name: 'the class annotation counts as naming one', classes: [ic('traefik', DEFAULT)], ingress: ingress({}, { 'platform.io/ingress.class': 'nginx' }), want: undefined },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const out = admitted(await setup(c.classes)({ object: c.ingress }));
      assert.equal((out.spec as any).ingressClassName, c.want);
    });
  }
});

test('DefaultIngressClass - two defaults refuse the ingress', async () => {
  assert.deepEqual(await setup([ic('a', DEFAULT), ic('b', DEFAULT)])({ object: ingress() }), {
    code: 403,
    message: 'ingresses.networking.platform.io "web" is forbidden: Internal error occurred: 2 default IngressClasses were found, only 1 allowed',
  });
});
