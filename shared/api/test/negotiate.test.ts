import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../status.js';
import { negotiate, parseAccept, type Offer } from '../negotiate.js';

const JSON_OFFER: Offer = { mediaType: 'application/json' };
const YAML_OFFER: Offer = { mediaType: 'application/yaml' };
const PROTO_OFFER: Offer = { mediaType: 'application/vnd.platform.protobuf' };
const TABLE_OFFER: Offer = { mediaType: 'application/json', as: 'Table', group: 'meta.platform.io', version: 'v1' };
const DISCOVERY_OFFER: Offer = { mediaType: 'application/json', as: 'APIGroupDiscoveryList', group: 'apidiscovery.platform.io', version: 'v2' };
const OFFERS = [JSON_OFFER, YAML_OFFER, PROTO_OFFER, TABLE_OFFER, DISCOVERY_OFFER];

test('negotiate - parseAccept reads types, parameters and q', () => {
  assert.deepEqual(parseAccept('application/json;as=Table;g=meta.platform.io;v=v1;q=0.9, application/json;q=0.5'), [
    { type: 'application', subtype: 'json', params: { as: 'Table', g: 'meta.platform.io', v: 'v1' }, q: 0.9 },
    { type: 'application', subtype: 'json', params: {}, q: 0.5 },
  ]);
  assert.deepEqual(parseAccept(undefined), []);
  assert.deepEqual(parseAccept(''), []);
  assert.deepEqual(parseAccept(' Application/JSON ; Charset="utf-8" ')[0], { type: 'application', subtype: 'json', params: { charset: 'utf-8' }, q: 1 });
});

test('negotiate - parseAccept sorts by q, then specificity, then order', () => {
  const r = parseAccept('*/*;q=0.8, application/*, text/plain;q=0.8, application/yaml, application/json;as=Table;g=meta.platform.io;v=v1');
  assert.deepEqual(
    r.map((x) => `${x.type}/${x.subtype}${x.params.as ? ';as' : ''}@${x.q}`),
    ['application/json;as@1', 'application/yaml@1', 'application/*@1', 'text/plain@0.8', '*/*@0.8'],
  );
});

test('negotiate - parseAccept drops malformed entries and q=0', () => {
  assert.deepEqual(
    parseAccept('json, application/, /json, a/b/c, application/json;q=0, application/yaml;q=abc, application/yaml;q=1.5, text/plain').map((x) => `${x.type}/${x.subtype}`),
    ['text/plain'],
  );
  // Java's default header sends a bare `*`.
  assert.deepEqual(
    parseAccept('text/html, image/gif, *; q=.2, */*; q=.2').map((x) => `${x.type}/${x.subtype}@${x.q}`),
    ['text/html@1', 'image/gif@1', '*/*@0.2', '*/*@0.2'],
  );
  assert.deepEqual(negotiate('text/html, image/gif, image/jpeg, *; q=.2, */*; q=.2', OFFERS), JSON_OFFER);
});

const cases: { name: string; accept: string | undefined; offers?: Offer[]; want: Offer }[] = [
  { name: 'absent header picks the first offer', accept: undefined, want: JSON_OFFER },
  { name: 'empty header picks the first offer', accept: '', want: JSON_OFFER },
  { name: 'wildcard picks the first offer', accept: '*/*', want: JSON_OFFER },
  { name: 'type wildcard picks the first offer', accept: 'application/*', want: JSON_OFFER },
  { name: 'yaml', accept: 'application/yaml', want: YAML_OFFER },
  { name: 'protobuf then json', accept: 'application/vnd.platform.protobuf, application/json', want: PROTO_OFFER },
  { name: 'client-go default', accept: 'application/json, */*', want: JSON_OFFER },
  { name: 'watch stream parameter ignored', accept: 'application/json;stream=watch', want: JSON_OFFER },
  { name: 'q decides', accept: 'application/json;q=0.5, application/yaml', want: YAML_OFFER },
  { name: 'platform table', accept: 'application/json;as=Table;g=meta.platform.io;v=v1', want: TABLE_OFFER },
  {
    name: 'platform table with json fallback',
    accept: 'application/json;as=Table;v=v1;g=meta.platform.io,application/json',
    want: TABLE_OFFER,
  },
  {
    name: 'upstream table falls through to plain json',
    accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json',
    want: JSON_OFFER,
  },
  { name: 'aggregated discovery', accept: 'application/json;g=apidiscovery.platform.io;v=v2;as=APIGroupDiscoveryList,application/json', want: DISCOVERY_OFFER },
  { name: 'wrong discovery version falls back', accept: 'application/json;g=apidiscovery.platform.io;v=v2beta1;as=APIGroupDiscoveryList,application/json', want: JSON_OFFER },
  { name: 'plain json never selects a conversion', accept: 'application/json', offers: [TABLE_OFFER, JSON_OFFER], want: JSON_OFFER },
  { name: 'wildcard never selects a conversion', accept: '*/*', offers: [TABLE_OFFER, YAML_OFFER], want: YAML_OFFER },
  { name: 'absent header takes the first offer as listed', accept: undefined, offers: [TABLE_OFFER, JSON_OFFER], want: TABLE_OFFER },
  { name: 'media type case-insensitive', accept: 'APPLICATION/YAML', want: YAML_OFFER },
];

for (const c of cases) {
  test(`negotiate - ${c.name}`, () => {
    assert.deepEqual(negotiate(c.accept, c.offers ?? OFFERS), c.want);
  });
}

const refused: { name: string; accept: string; offers?: Offer[] }[] = [
  { name: 'unsupported type', accept: 'text/html' },
  { name: 'only upstream table', accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' },
  { name: 'table without group and version', accept: 'application/json;as=Table' },
  { name: 'table not offered', accept: 'application/json;as=Table;g=meta.platform.io;v=v1', offers: [JSON_OFFER] },
  { name: 'protobuf not offered', accept: 'application/vnd.platform.protobuf', offers: [JSON_OFFER, YAML_OFFER] },
  { name: 'only q=0', accept: 'application/json;q=0' },
];

for (const c of refused) {
  test(`negotiate - 406 for ${c.name}`, () => {
    assert.throws(
      () => negotiate(c.accept, c.offers ?? OFFERS),
      (e: unknown) => e instanceof StatusError && e.code === 406 && e.status.reason === 'NotAcceptable' && e.message.includes('application/json'),
    );
  });
}
