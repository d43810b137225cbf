import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { StatusError } from '../../api/status.js';
import type { ApiObject } from '../../api/types.js';
import { createCA, issueServingCert, type CertificateAuthority } from '../../local/pki.js';
import { ConversionWebhook } from '../conversion-webhook.js';
import { ApiWebhookCaller, type ApiWebhookClientConfig } from '../webhook-caller.js';
import { sendJson, startHttpsServer, type ReceivedRequest, type TestHttpsServer } from './https-server.js';

const obj = (name: string, apiVersion: string): ApiObject => ({ apiVersion, kind: 'CronTab', metadata: { name, uid: `uid-${name}` }, spec: { n: name } });

/** Converts by rewriting apiVersion, as a webhook for versions of one shape would; some paths misbehave. */
function answer(req: ReceivedRequest, res: ServerResponse): void | Promise<void> {
  const review = JSON.parse(req.body);
  const r = review.request;
  if (req.url === '/broken') return sendJson(res, 500, { kind: 'Status', message: 'the converter crashed' });
  if (req.url === '/slow') return new Promise((done) => setTimeout(() => done(sendJson(res, 200, {})), 1_000));
  if (req.url === '/refuse')
    return sendJson(res, 200, { apiVersion: review.apiVersion, kind: 'ConversionReview', response: { uid: r.uid, result: { status: 'Failure', message: 'spec.n cannot be converted' } } });
  const convertedObjects = r.objects.map((o: ApiObject) => ({ ...o, apiVersion: r.desiredAPIVersion }));
  sendJson(res, 200, { apiVersion: review.apiVersion, kind: 'ConversionReview', response: { uid: r.uid, result: { status: 'Success' }, convertedObjects } });
}

describe('conversion webhook', () => {
  let ca: CertificateAuthority;
  let server: TestHttpsServer;
  let svcServer: TestHttpsServer;
  let caller: ApiWebhookCaller;

  before(async () => {
    ca = await createCA('conversion-ca');
    const [serving, svcServing] = await Promise.all([
      issueServingCert(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] }),
      issueServingCert(ca, { dnsNames: ['convert.hooks.svc'], ipAddresses: [] }),
    ]);
    [server, svcServer] = await Promise.all([startHttpsServer(serving, answer), startHttpsServer(svcServing, answer)]);
    caller = new ApiWebhookCaller({
      resolve: (ref) => (ref.name === 'convert' ? Promise.resolve({ host: '127.0.0.1', port: svcServer.port }) : Promise.reject(new Error(`service "${ref.name}" not found`))),
    });
  });
  after(async () => {
    caller?.close();
    await Promise.all([server?.close(), svcServer?.close()]);
  });

  const webhook = (clientConfig: ApiWebhookClientConfig, reviewVersions = ['v1'], timeoutMs?: number) =>
    new ConversionWebhook(caller, { clientConfig, reviewVersions }, { ...(timeoutMs ? { timeoutMs } : {}), uid: () => 'the-uid' });
  const failsWith = async (p: Promise<unknown>, message: RegExp) =>
    assert.rejects(p, (err: Error) => {
      assert.ok(err instanceof StatusError, String(err));
      assert.equal(err.code, 500);
      assert.equal(err.status.reason, 'InternalError');
      assert.match(err.status.message, message);
      return true;
    });

  test('conversion webhook - one review for the objects in other versions, the rest kept in place', async () => {
    const hook = webhook({ url: `${server.url}/convert`, caPem: ca.certPem }, ['v2', 'v1beta1', 'v1']);
    const before = server.received.length;
    const objects = [obj('a', 'stable.example.com/v1'), obj('b', 'stable.example.com/v2'), obj('c', 'stable.example.com/v1')];
    const out = await hook.convert(objects, 'stable.example.com/v2');
    assert.deepEqual(
      out.map((o) => [o.metadata.name, o.apiVersion]),
      [
        ['a', 'stable.example.com/v2'],
        ['b', 'stable.example.com/v2'],
        ['c', 'stable.example.com/v2'],
      ],
    );
    assert.equal(out[1], objects[1]);
    assert.equal(server.received.length, before + 1);
    const review = JSON.parse(server.received.at(-1)!.body);
    assert.equal(review.apiVersion, 'apiextensions.platform.io/v1beta1');
    assert.deepEqual([review.request.uid, review.request.desiredAPIVersion, review.request.objects.map((o: ApiObject) => o.metadata.name)], ['the-uid', 'stable.example.com/v2', ['a', 'c']]);
    // Nothing to convert: no call at all.
    await hook.convert([obj('d', 'stable.example.com/v2')], 'stable.example.com/v2');
    assert.equal(server.received.length, before + 1);
  });

  test('conversion webhook - a webhook named by a Service: dialled where the resolver says, its certificate checked for <svc>.<ns>.svc', async () => {
    const out = await webhook({ service: { namespace: 'hooks', name: 'convert', path: '/convert', port: 443 }, caPem: ca.certPem }).convert([obj('a', 'g/v1')], 'g/v2');
    assert.equal(out[0]!.apiVersion, 'g/v2');
    await failsWith(
      webhook({ service: { namespace: 'hooks', name: 'missing', path: '/', port: 443 }, caPem: ca.certPem }).convert([obj('a', 'g/v1')], 'g/v2'),
      /^Internal error occurred: conversion webhook for g\/v1, Kind=CronTab failed: service "missing" not found$/,
    );
  });

  test('conversion webhook - every failure is a 500 naming the webhook and why', async () => {
    const one = [obj('a', 'stable.example.com/v1')];
    const to = 'stable.example.com/v2';
    const prefix = 'Internal error occurred: conversion webhook for stable\\.example\\.com/v1, Kind=CronTab failed: ';
    await failsWith(webhook({ url: `${server.url}/broken`, caPem: ca.certPem }).convert(one, to), new RegExp(`^${prefix}the webhook answered HTTP 500: the converter crashed$`));
    await failsWith(webhook({ url: `${server.url}/refuse`, caPem: ca.certPem }).convert(one, to), new RegExp(`^${prefix}spec\\.n cannot be converted$`));
    await failsWith(webhook({ url: `${server.url}/slow`, caPem: ca.certPem }, ['v1'], 200).convert(one, to), new RegExp(`^${prefix}https://127\\.0\\.0\\.1:\\d+/slow: no response within 200 ms$`));
    // Without its caBundle the webhook's certificate is not trusted.
    await failsWith(webhook({ url: `${server.url}/convert` }).convert(one, to), /failed: .*(self-signed|unable to (get|verify))/);
    await failsWith(webhook({ url: 'https://127.0.0.1:1/convert', caPem: ca.certPem }).convert(one, to), /failed: https:\/\/127\.0\.0\.1:1\/convert: connect ECONNREFUSED/);
    await failsWith(webhook({ url: `${server.url}/convert`, caPem: ca.certPem }, ['v2']).convert(one, to), /failed: none of the conversionReviewVersions \["v2"\] is supported/);
  });
});
