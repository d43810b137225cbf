import { describe, it } from 'node:test';
import type { ApiObject } from '../../../shared/api/types.js';
import { createDenyServiceExternalIPs } from '../plugins/networking/deny-service-external-ips.js';
import { CTX, rejects, request } from './scheduling-fixtures.js';

const svc = (externalIPs?: string[]): ApiObject => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: 'default' },
  spec: { ports: [{ port: 80 }], ...(externalIPs ? { externalIPs } : {}) },
});
const DENIED = 'services "web" is forbidden: Use of external IPs is denied by admission control';

describe('DenyServiceExternalIPs', () => {
  const plugin = createDenyServiceExternalIPs();
  const cases: Array<{ name: string; next?: string[]; old?: string[] | null; allowed: boolean }> = [
    { name: 'a new Service without external IPs', allowed: true },
    { name: 'a new Service with an empty list', next: [], allowed: true },
    { name: 'a new Service with external IPs', next: ['192.0.2.1'], allowed: false },
    { name: 'an update keeping the same external IPs', next: ['192.0.2.1', '192.0.2.2'], old: ['192.0.2.2', '192.0.2.1'], allowed: true },
    { name: 'an update removing one', next: ['192.0.2.1'], old: ['192.0.2.1', '192.0.2.2'], allowed: true },
    { name: 'an update removing all', next: [], old: ['192.0.2.1'], allowed: true },
    { name: 'an update adding one', next: ['192.0.2.1', '192.0.2.3'], old: ['192.0.2.1'], allowed: false },
    { name: 'an update giving a Service its first', next: ['192.0.2.1'], old: [], allowed: false },
  ];
  for (const c of cases) {
    it(`${c.allowed ? 'allows' : 'refuses'} ${c.name}`, async () => {
      const update = c.old !== undefined;
      const req = request('services', { object: svc(c.next), old: update ? svc(c.old ?? undefined) : null, operation: update ? 'UPDATE' : 'CREATE', phase: 'validating' });
      if (c.allowed) await plugin.validate!(req, CTX);
      else await rejects(() => plugin.validate!(req, CTX), 403, DENIED);
    });
  }

  it('ignores the status subresource', async () => {
    await plugin.validate!(request('services', { object: svc(['192.0.2.9']), old: svc(), operation: 'UPDATE', sub: 'status', phase: 'validating' }), CTX);
  });
});
