// Which requests count against --max-requests-inflight / --max-mutating-requests-inflight, and the
// counters themselves.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseRequestInfo } from '../../../shared/api/request-info.js';
import { InFlight, inFlightKind } from '../filters/max-in-flight.js';

describe('inFlightKind', () => {
  const cases: Array<[method: string, url: string, want: string | null]> = [
    ['GET', '/api/v1/namespaces/a/pods', 'readOnly'],
    ['GET', '/api/v1/namespaces/a/pods/p', 'readOnly'],
    ['GET', '/apis', 'readOnly'],
    ['POST', '/api/v1/namespaces/a/pods', 'mutating'],
    ['PUT', '/api/v1/namespaces/a/pods/p', 'mutating'],
    ['PATCH', '/api/v1/namespaces/a/pods/p/status', 'mutating'],
    ['DELETE', '/api/v1/namespaces/a/pods', 'mutating'],
    ['POST', '/apis/authorization.platform.io/v1/selfsubjectaccessreviews', 'mutating'],
    ['GET', '/api/v1/namespaces/a/pods?watch=true', null],
    ['GET', '/api/v1/watch/namespaces/a/pods', null],
    ['GET', '/api/v1/namespaces/a/pods/p/log', null],
    ['POST', '/api/v1/namespaces/a/pods/p/exec', null],
    ['GET', '/api/v1/namespaces/a/pods/p/proxy/x', null],
    ['GET', '/api/v1/namespaces/a/services/s/proxy', null],
    ['GET', '/healthz', null],
    ['GET', '/readyz/etcd', null],
    ['GET', '/livez', null],
    ['GET', '/metrics', 'readOnly'],
  ];
  for (const [method, url, want] of cases) {
    it(`${method} ${url} → ${want}`, () => {
      const u = new URL(url, 'https://x');
      assert.equal(inFlightKind(parseRequestInfo(method, u.pathname, u.searchParams), u.pathname), want);
    });
  }
});

describe('InFlight', () => {
  it('refuses beyond each limit separately and frees a slot once, however often release is called', () => {
    const seen: string[] = [];
    const f = new InFlight({ readOnly: 2, mutating: 1 }, (k, n) => seen.push(`${k}=${n}`));
    const r1 = f.tryAcquire('readOnly')!;
    const r2 = f.tryAcquire('readOnly')!;
    assert.equal(f.tryAcquire('readOnly'), null);
    const w1 = f.tryAcquire('mutating')!;
    assert.equal(f.tryAcquire('mutating'), null);
    r1();
    r1();
    assert.equal(f.count('readOnly'), 1);
    assert.ok(f.tryAcquire('readOnly'));
    w1();
    assert.ok(f.tryAcquire('mutating'));
    r2();
    assert.deepEqual(seen.slice(0, 4), ['readOnly=1', 'readOnly=2', 'mutating=1', 'readOnly=1']);
  });

  it('0 is no limit; force takes a slot beyond the limit', () => {
    const f = new InFlight({ readOnly: 0, mutating: 1 });
    for (let i = 0; i < 1000; i++) assert.ok(f.tryAcquire('readOnly'));
    f.tryAcquire('mutating');
    assert.ok(f.tryAcquire('mutating', true));
    assert.equal(f.count('mutating'), 2);
  });
});
