// CustomResourceDefinitions as apiextensions v1 validates them: real-world definitions accepted as
// shipped, then one mutation per rule of a valid definition (the schema rules are in
// builtin-apiextensions-schema.test.ts), asserting the field path and message a client would see,
// then the update rules, the status subresource, and the protobuf form.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../api/types.js';
import { decodeObject, encodeObject } from '../../proto/envelope.js';
import { createBuiltinRegistry } from '../builtin-registry.js';
import { prepareForStatusUpdate, prepareForUpdate } from '../rest/prepare.js';
import { createFlow, testStrategyContext } from './builtin-helpers.js';
import { certManagerCertificate, nonStructural, prometheusServiceMonitor } from './crd-fixtures.js';
import { created, createErrors, crd, DNS1035, messages, ROOT, sample, schemaOf, specProps, type Mutable } from './crd-helpers.js';

describe('customresourcedefinitions - real-world definitions', () => {
  for (const [name, fixture] of [
    ['cert-manager Certificate', certManagerCertificate],
    ['Prometheus Operator ServiceMonitor', prometheusServiceMonitor],
  ] as const) {
    it(`${name} is accepted as shipped, through the registry as a client sends it`, () => {
      const registry = createBuiltinRegistry({ upstreamGroupAliases: true });
      const served = registry.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
      const o = structuredClone(fixture);
      registry.defaults(served, o);
      crd.strategy!.prepareForCreate!(o, testStrategyContext);
      assert.deepEqual(messages(registry.validate(served, o)), []);
      assert.deepEqual(registry.unknownFields(served, o), []);
    });
  }

  it('a non-structural schema is refused, with upstream’s sorted structural errors', () => {
    assert.deepEqual(
      createErrors(() => {}, nonStructural),
      [
        `${ROOT}.properties[spec].oneOf[1].properties[image].type: Forbidden: must be empty to be structural`,
        `${ROOT}.properties[spec].type: Required value: must not be empty for specified object fields`,
        `${ROOT}.type: Required value: must not be empty at the root`,
      ],
    );
  });

  it('per-version schemas that differ are reported at spec.versions[i].schema', () => {
    const errs = createErrors((o) => delete o.spec.versions[0].schema.openAPIV3Schema.properties.spec.type, certManagerCertificate);
    assert.deepEqual(errs, ['spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields']);
  });
});

describe('customresourcedefinitions - v1 defaults', () => {
  it('singular from kind, listKind, conversion None, storedVersions from the storage version', () => {
    const o = created() as Mutable;
    assert.deepEqual(o.spec.names, { plural: 'widgets', kind: 'Widget', shortNames: ['wd'], singular: 'widget', listKind: 'WidgetList' });
    assert.deepEqual(o.spec.conversion, { strategy: 'None' });
    assert.deepEqual(o.status, { storedVersions: ['v1'] });
  });

  it('a conversion webhook service defaults to port 443', () => {
    const o = created(certManagerCertificate) as Mutable;
    assert.deepEqual(o.spec.conversion.webhook.clientConfig.service, { name: 'cert-manager-webhook', namespace: 'cert-manager', path: '/convert', port: 443 });
  });

  it('a schema keeps only JSONSchemaProps fields (unknown ones and nulls go, as decoding drops them)', () => {
    const o = structuredClone(sample) as Mutable;
    Object.assign(schemaOf(o).properties.spec, { bogus: 1, title: null, externalDocs: { url: 'https://x', extra: 1 } });
    const spec = (createFlow(crd, o as ApiObject).obj as Mutable).spec.versions[0].schema.openAPIV3Schema.properties.spec;
    assert.deepEqual([spec.bogus, 'title' in spec, spec.externalDocs], [undefined, false, { url: 'https://x' }]);
  });

  it('a status sent on create is replaced', () => {
    const o = created({ ...structuredClone(sample), status: { storedVersions: ['v0'], acceptedNames: { plural: 'x', kind: 'X' } } }) as Mutable;
    assert.deepEqual(o.status, { storedVersions: ['v1'] });
  });
});

const CREATE_RULES: Array<[string, (o: Mutable) => void, string[]]> = [
  ['metadata.name is plural.group', (o) => (o.metadata.name = 'gadgets.example.com'), ['metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group']],
  ['group required', (o) => ((o.spec.group = ''), (o.metadata.name = 'widgets.')), ['spec.group: Required value']],
  ['group has a dot', (o) => ((o.spec.group = 'example'), (o.metadata.name = 'widgets.example')), ['spec.group: Invalid value: "example": should be a domain with at least one dot']],
  [
    'group is a DNS subdomain',
    (o) => ((o.spec.group = 'Example.com'), (o.metadata.name = 'widgets.Example.com')),
    [
      "spec.group: Invalid value: \"Example.com\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ],
  ],
  [
    'a built-in group, branded spelling',
    (o) => ((o.spec.group = 'rbac.authorization.platform.io'), (o.metadata.name = 'widgets.rbac.authorization.platform.io')),
    ['spec.group: Invalid value: "rbac.authorization.platform.io": must not be a group the server serves built in'],
  ],
  [
    'a built-in group, upstream spelling (approved or not)',
    (o) => (
      (o.spec.group = 'apiextensions.k8s.io'),
      (o.metadata.name = 'widgets.apiextensions.k8s.io'),
      (o.metadata.annotations = { 'api-approved.kubernetes.io': 'https://github.com/kubernetes/kubernetes/pull/1' })
    ),
    ['spec.group: Invalid value: "apiextensions.k8s.io": must not be a group the server serves built in'],
  ],
  [
    'a community group needs the approval annotation',
    (o) => ((o.spec.group = 'gateway.networking.k8s.io'), (o.metadata.name = 'widgets.gateway.networking.k8s.io')),
    [
      'metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
    ],
  ],
  [
    'an approval annotation is a URL or starts with "unapproved"',
    (o) => ((o.spec.group = 'x.kubernetes.io'), (o.metadata.name = 'widgets.x.kubernetes.io'), (o.metadata.annotations = { 'api-approved.kubernetes.io': 'yes' })),
    [
      'metadata.annotations[api-approved.kubernetes.io]: Invalid value: "yes": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111',
    ],
  ],
  ['scope required', (o) => delete o.spec.scope, ['spec.scope: Required value']],
  ['scope Namespaced or Cluster', (o) => (o.spec.scope = 'Global'), ['spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"']],
  ['plural required', (o) => ((o.spec.names.plural = ''), (o.metadata.name = '.example.com')), ['spec.names.plural: Required value']],
  ['kind required', (o) => delete o.spec.names.kind, ['spec.names.singular: Required value', 'spec.names.kind: Required value', 'spec.names.listKind: Required value']],
  ['plural a DNS-1035 label', (o) => ((o.spec.names.plural = 'wid_gets'), (o.metadata.name = 'wid_gets.example.com')), [`spec.names.plural: Invalid value: "wid_gets": ${DNS1035}`]],
  ['singular a DNS-1035 label', (o) => (o.spec.names.singular = 'Widget'), [`spec.names.singular: Invalid value: "Widget": ${DNS1035}`]],
  [
    'kind may be mixed case, nothing else',
    (o) => Object.assign(o.spec.names, { kind: 'Wid_get', singular: 'widget', listKind: 'WidgetList' }),
    [`spec.names.kind: Invalid value: "Wid_get": may have mixed case, but should otherwise match: ${DNS1035}`],
  ],
  ['listKind differs from kind', (o) => (o.spec.names.listKind = 'Widget'), ['spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same']],
  ['short names are DNS-1035 labels', (o) => (o.spec.names.shortNames = ['wd', '1w']), [`spec.names.shortNames[1]: Invalid value: "1w": ${DNS1035}`]],
  ['categories are DNS-1035 labels', (o) => (o.spec.names.categories = ['all', 'My Stuff']), [`spec.names.categories[1]: Invalid value: "My Stuff": ${DNS1035}`]],
  [
    'at least one version',
    (o) => (o.spec.versions = []),
    ['spec.versions: Invalid value: must have exactly one version marked as storage version', 'status.storedVersions: Invalid value: []: must have at least one stored version'],
  ],
  ['version names are DNS-1035 labels', (o) => (o.spec.versions[0].name = 'V1'), [`spec.versions[0].name: Invalid value: "V1": ${DNS1035}`, `spec.version: Invalid value: "V1": ${DNS1035}`]],
  ['version names are unique', (o) => o.spec.versions.push({ ...structuredClone(o.spec.versions[0]), storage: false }), ['spec.versions: Invalid value: must contain unique version names']],
  [
    'exactly one storage version',
    (o) => o.spec.versions.push({ ...structuredClone(o.spec.versions[0]), name: 'v2' }),
    // Only the first storage version enters storedVersions, so the second is missing there too.
    ['spec.versions: Invalid value: must have exactly one version marked as storage version', 'status.storedVersions: Invalid value: ["v1"]: must have the storage version v2'],
  ],
  ['every version has a schema', (o) => delete o.spec.versions[0].schema, ['spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required']],
  [
    'deprecationWarning only on deprecated versions',
    (o) => (o.spec.versions[0].deprecationWarning = 'old'),
    ['spec.versions[0].deprecationWarning: Invalid value: "old": can only be set for deprecated versions'],
  ],
  [
    'deprecationWarning printable and at most 256 bytes',
    (o) => Object.assign(o.spec.versions[0], { deprecated: true, deprecationWarning: `a\u0007${'x'.repeat(256)}` }),
    [
      `spec.versions[0].deprecationWarning: Invalid value: "a\\u0007${'x'.repeat(256)}": must be <= 256 characters long`,
      `spec.versions[0].deprecationWarning: Invalid value: "a\\u0007${'x'.repeat(256)}": must only contain printable UTF-8 characters; non-printable character found at index 1`,
    ],
  ],
  [
    'preserveUnknownFields must be false',
    (o) => ((o.spec.preserveUnknownFields = true), delete specProps(o).size.default),
    ['spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'],
  ],
];

const PART_RULES: Array<[string, (o: Mutable) => void, string[]]> = [
  [
    'printer columns: name, type, format, a simple JSONPath',
    (o) =>
      (o.spec.versions[0].additionalPrinterColumns = [
        { name: '', type: 'float', format: 'hex', jsonPath: 'spec.size' },
        { name: 'B', jsonPath: '' },
      ]),
    [
      'spec.additionalPrinterColumns[0].name: Required value',
      'spec.additionalPrinterColumns[0].type: Invalid value: "float": must be one of boolean,date,integer,number,string',
      'spec.additionalPrinterColumns[0].format: Invalid value: "hex": must be one of byte,date,date-time,double,float,int32,int64,password',
      'spec.additionalPrinterColumns[0].JSONPath: Invalid value: "spec.size": must be a simple json path starting with .',
      'spec.additionalPrinterColumns[1].type: Required value: must be one of boolean,date,integer,number,string',
      'spec.additionalPrinterColumns[1].JSONPath: Required value',
    ],
  ],
  [
    'scale: replicas paths under .spec and .status, selector under either',
    (o) => (o.spec.versions[0].subresources.scale = { specReplicasPath: '.status.replicas', statusReplicasPath: '', labelSelectorPath: '.metadata.labels' }),
    [
      'spec.subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec',
      'spec.subresources.scale.statusReplicasPath: Required value',
      'spec.subresources.scale.labelSelectorPath: Invalid value: ".metadata.labels": should be a json path under either .spec or .status',
    ],
  ],
  ['conversion strategy None or Webhook', (o) => (o.spec.conversion = { strategy: 'Magic' }), ['spec.conversion.strategy: Unsupported value: "Magic": supported values: "None", "Webhook"']],
  [
    'None forbids a webhook',
    (o) => (o.spec.conversion = { strategy: 'None', webhook: { clientConfig: { url: 'https://c.example.com' }, conversionReviewVersions: ['v1'] } }),
    [
      'spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook',
      'spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook',
    ],
  ],
  [
    'Webhook needs a client config and review versions',
    (o) => (o.spec.conversion = { strategy: 'Webhook' }),
    ['spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook', 'spec.conversion.conversionReviewVersions: Required value'],
  ],
  [
    'Webhook: exactly one of url or service',
    (o) => (o.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://c.example.com', service: { name: 'c', namespace: 'n' } }, conversionReviewVersions: ['v1'] } }),
    ['spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required'],
  ],
  [
    'Webhook: the URL rules of admission webhooks',
    (o) => (o.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'http://c.example.com/?x=1' }, conversionReviewVersions: ['v1'] } }),
    [
      'spec.conversion.webhookClientConfig.url: Invalid value: "http://c.example.com/?x=1": \'https\' is the only allowed URL scheme',
      'spec.conversion.webhookClientConfig.url: Invalid value: "http://c.example.com/?x=1": query parameters are not permitted in the URL',
    ],
  ],
  [
    'Webhook: review versions unique, one understood',
    (o) => (o.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { service: { name: 'c', namespace: 'n' } }, conversionReviewVersions: ['v2', 'v2'] } }),
    [
      'spec.conversion.conversionReviewVersions[1]: Invalid value: "v2": duplicate version',
      'spec.conversion.conversionReviewVersions: Invalid value: ["v2","v2"]: must include at least one of v1, v1beta1',
    ],
  ],
  [
    'selectable fields name string, boolean or integer fields outside metadata, once each',
    (o) => (o.spec.versions[0].selectableFields = [{ jsonPath: '.spec.color' }, { jsonPath: '.spec.color' }, { jsonPath: '.spec' }, { jsonPath: ".spec['size']" }, { jsonPath: '.spec.nope' }]),
    [
      'spec.selectableFields[1].jsonPath: Duplicate value: ".spec.color"',
      'spec.selectableFields[2].jsonPath: Invalid value: ".spec": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.',
      'spec.selectableFields[3].jsonPath: Invalid value: ".spec[\'size\']": is an invalid path: array notation is not allowed',
      'spec.selectableFields[4].jsonPath: Invalid value: ".spec.nope": is an invalid path: does not refer to a valid field',
    ],
  ],
];

describe('customresourcedefinitions - create rules', () => {
  it('the sample is valid', () =>
    assert.deepEqual(
      createErrors(() => {}),
      [],
    ));
  for (const [name, mutate, want] of [...CREATE_RULES, ...PART_RULES]) it(name, () => assert.deepEqual(createErrors(mutate), want));
});

/** The update the main endpoint makes of `stored` from what a client sent, and its errors. */
function update(stored: ApiObject, mutate: (o: Mutable) => void): { obj: ApiObject; errors: string[] } {
  const next = structuredClone(stored) as Mutable;
  mutate(next);
  crd.strategy!.defaults!(next as ApiObject);
  prepareForUpdate(crd, next as ApiObject, stored, testStrategyContext);
  return { obj: next as ApiObject, errors: messages(crd.strategy!.validateUpdate!(next as ApiObject, stored)) };
}

function twoVersions(): ApiObject {
  const o = structuredClone(sample) as Mutable;
  o.spec.versions.push({ ...structuredClone(o.spec.versions[0]), name: 'v2', storage: false });
  return created(o as ApiObject);
}

function established(o: ApiObject): ApiObject {
  return { ...structuredClone(o), status: { ...(o.status as object), conditions: [{ type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'ok' }] } };
}

describe('customresourcedefinitions - update rules', () => {
  it('a new storage version joins status.storedVersions; the stored object is not touched', () => {
    const stored = twoVersions();
    const before = structuredClone(stored);
    const { obj, errors } = update(stored, (o) => ((o.spec.versions[0].storage = false), (o.spec.versions[1].storage = true)));
    assert.deepEqual(errors, []);
    assert.deepEqual((obj.status as Mutable).storedVersions, ['v1', 'v2']);
    assert.deepEqual(stored, before);
  });

  it('a version in status.storedVersions may not leave spec.versions', () => {
    const stored = { ...twoVersions(), status: { storedVersions: ['v1', 'v2'] } };
    const { errors } = update(stored, (o) => o.spec.versions.pop());
    assert.deepEqual(errors, ['status.storedVersions[1]: Invalid value: "v2": must appear in spec.versions']);
  });

  it('the main endpoint ignores status changes', () => {
    const stored = created();
    const { obj } = update(stored, (o) => (o.status = { storedVersions: ['v9'], acceptedNames: { plural: 'x', kind: 'X' } }));
    assert.deepEqual(obj.status, { storedVersions: ['v1'] });
  });

  it('group and plural never change', () => {
    const { errors } = update(created(), (o) => ((o.spec.group = 'example.org'), (o.spec.names.plural = 'gadgets')));
    assert.deepEqual(errors, ['spec.group: Invalid value: "example.org": field is immutable', 'spec.names.plural: Invalid value: "gadgets": field is immutable']);
  });

  it('scope and kind change until the definition is established', () => {
    const change = (o: Mutable) => ((o.spec.scope = 'Cluster'), (o.spec.names.kind = 'Gadget'), (o.spec.names.listKind = 'GadgetList'), (o.spec.names.singular = 'gadget'));
    assert.deepEqual(update(created(), change).errors, []);
    assert.deepEqual(update(established(created()), change).errors, ['spec.scope: Invalid value: "Cluster": field is immutable', 'spec.names.kind: Invalid value: "Gadget": field is immutable']);
  });

  it('an approval state that does not change is never refused; a change to an invalid one is', () => {
    const o = structuredClone(sample) as Mutable;
    o.metadata = { name: 'widgets.gateway.networking.k8s.io', annotations: { 'api-approved.kubernetes.io': 'unapproved, experimental' } };
    o.spec.group = 'gateway.networking.k8s.io';
    // Stored before the annotation was required: its (missing) state may stay.
    const stored = { ...created(o as ApiObject), metadata: { name: 'widgets.gateway.networking.k8s.io' } };
    assert.deepEqual(update(stored, (x) => (x.spec.names.shortNames = ['gw'])).errors, []);
    assert.deepEqual(update(stored, (x) => (x.metadata.annotations = { 'api-approved.kubernetes.io': 'maybe' })).errors, [
      'metadata.annotations[api-approved.kubernetes.io]: Invalid value: "maybe": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111',
    ]);
  });

  it('rules a stored definition already breaks are not imposed on its updates', () => {
    const stored = created() as Mutable;
    stored.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.tags = { type: 'array', items: { type: 'object' }, 'x-kubernetes-list-type': 'set' };
    assert.deepEqual(update(stored as ApiObject, (o) => (o.spec.names.shortNames = ['w'])).errors, []);
  });
});

describe('customresourcedefinitions - status subresource', () => {
  const status = crd.strategy!.subresources!.status!;

  it('/status writes only status, checking the accepted names alone', () => {
    const stored = created();
    const sent = { ...structuredClone(stored), spec: { group: 'changed.example.com' }, status: { storedVersions: ['v1'], acceptedNames: { plural: 'widgets', kind: 'Wid_get' } } } as ApiObject;
    const next = prepareForStatusUpdate(crd, sent, stored, testStrategyContext);
    assert.deepEqual(next.spec, stored.spec);
    assert.deepEqual(messages(status.validateUpdate!(next, stored)), [`status.acceptedNames.kind: Invalid value: "Wid_get": may have mixed case, but should otherwise match: ${DNS1035}`]);
  });

  it('a storage migration may drop an old version from storedVersions through /status', () => {
    const stored = { ...twoVersions(), status: { storedVersions: ['v2', 'v1'] } };
    const next = prepareForStatusUpdate(crd, { ...stored, status: { storedVersions: ['v1'] } }, stored, testStrategyContext);
    assert.deepEqual(messages(status.validateUpdate!(next, stored)), []);
  });
});

describe('customresourcedefinitions - protobuf', () => {
  it('a definition with every schema form round-trips (items, additionalProperties, dependencies, defaults, enums)', () => {
    const o = structuredClone(certManagerCertificate) as Mutable;
    Object.assign(o.spec.versions[1].schema.openAPIV3Schema.properties.spec.properties, {
      free: { type: 'object', additionalProperties: true },
      closed: { type: 'object', additionalProperties: false },
      list: { type: 'array', items: { type: 'integer', default: 3, enum: [1, 2, 3] } },
      deps: { type: 'object', dependencies: { a: ['b'], c: { required: ['d'] } } },
      tuple: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }] },
      obj: { type: 'object', default: { a: [1, { b: 'c' }] }, 'x-kubernetes-preserve-unknown-fields': true },
    });
    o.status = {
      storedVersions: ['v1'],
      acceptedNames: { plural: 'certificates', kind: 'Certificate' },
      conditions: [{ type: 'Established', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z' }],
    };
    const json = JSON.parse(JSON.stringify(o));
    assert.deepEqual(decodeObject(encodeObject(json)!), json);
  });
});
