// CustomResourceDefinitions in the shape real projects ship them (abbreviated schemas): cert-manager's
// Certificate, with a deprecated older version converted by a webhook, and the Prometheus
// Operator's ServiceMonitor, as controller-gen writes it. Both must be accepted as they are. And
// the skeleton the tests' own small definitions share (`crdOf`).

import type { ApiObject } from '../../api/types.js';

const str = { type: 'string' };
const strList = { type: 'array', items: str };
const typeMeta = {
  apiVersion: { description: 'APIVersion defines the versioned schema of this representation of an object.', type: 'string' },
  kind: { description: 'Kind is a string value representing the REST resource this object represents.', type: 'string' },
  metadata: { type: 'object' },
};

const KEY_USAGES = ['signing', 'digital signature', 'content commitment', 'key encipherment', 'key agreement', 'data encipherment', 'cert sign', 'crl sign', 'server auth', 'client auth'];

function certificateSchema(withKeystores: boolean): Record<string, unknown> {
  const spec: Record<string, unknown> = {
    commonName: { description: 'Requested common name X509 certificate subject attribute.', type: 'string' },
    dnsNames: { description: 'Requested DNS subject alternative names.', ...strList },
    duration: { description: 'Requested lifetime of the certificate.', type: 'string' },
    renewBefore: str,
    ipAddresses: strList,
    isCA: { type: 'boolean' },
    issuerRef: { type: 'object', required: ['name'], properties: { group: str, kind: str, name: str } },
    privateKey: {
      type: 'object',
      properties: {
        algorithm: { type: 'string', enum: ['RSA', 'ECDSA', 'Ed25519'] },
        encoding: { type: 'string', enum: ['PKCS1', 'PKCS8'] },
        rotationPolicy: { type: 'string', enum: ['Never', 'Always'] },
        size: { type: 'integer' },
      },
    },
    secretName: str,
    secretTemplate: { type: 'object', properties: { annotations: { type: 'object', additionalProperties: str }, labels: { type: 'object', additionalProperties: str } } },
    subject: { type: 'object', properties: { organizations: strList, countries: strList } },
    usages: { type: 'array', items: { type: 'string', enum: KEY_USAGES } },
  };
  if (withKeystores) {
    spec.keystores = {
      type: 'object',
      properties: {
        pkcs12: {
          type: 'object',
          required: ['create', 'passwordSecretRef'],
          properties: { create: { type: 'boolean' }, passwordSecretRef: { type: 'object', required: ['name'], properties: { key: str, name: str } } },
        },
      },
    };
  }
  return {
    description: 'A Certificate resource should be created to ensure an up to date and signed X.509 certificate is stored in the Kubernetes Secret resource named in `spec.secretName`.',
    type: 'object',
    required: ['spec'],
    properties: {
      ...typeMeta,
      spec: { type: 'object', required: ['issuerRef', 'secretName'], properties: spec },
      status: {
        type: 'object',
        properties: {
          conditions: {
            type: 'array',
            items: {
              type: 'object',
              required: ['status', 'type'],
              properties: {
                lastTransitionTime: { type: 'string', format: 'date-time' },
                message: str,
                observedGeneration: { type: 'integer', format: 'int64' },
                reason: str,
                status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
                type: str,
              },
            },
            'x-kubernetes-list-map-keys': ['type'],
            'x-kubernetes-list-type': 'map',
          },
          notAfter: { type: 'string', format: 'date-time' },
          notBefore: { type: 'string', format: 'date-time' },
          renewalTime: { type: 'string', format: 'date-time' },
          revision: { type: 'integer' },
        },
      },
    },
  };
}

const certificateColumns = [
  { jsonPath: '.status.conditions[?(@.type=="Ready")].status', name: 'Ready', type: 'string' },
  { jsonPath: '.spec.secretName', name: 'Secret', type: 'string' },
  { jsonPath: '.spec.issuerRef.name', name: 'Issuer', priority: 1, type: 'string' },
  { jsonPath: '.status.conditions[?(@.type=="Ready")].message', name: 'Status', priority: 1, type: 'string' },
  { description: 'CreationTimestamp is a timestamp representing the server time when this object was created.', jsonPath: '.metadata.creationTimestamp', name: 'Age', type: 'date' },
];

export const certManagerCertificate: ApiObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: {
    name: 'certificates.cert-manager.io',
    labels: { app: 'cert-manager', 'app.kubernetes.io/instance': 'cert-manager', 'app.kubernetes.io/name': 'cert-manager' },
    annotations: { 'cert-manager.io/inject-ca-from-secret': 'cert-manager/cert-manager-webhook-ca' },
  },
  spec: {
    group: 'cert-manager.io',
    names: { categories: ['cert-manager'], kind: 'Certificate', listKind: 'CertificateList', plural: 'certificates', shortNames: ['cert', 'certs'], singular: 'certificate' },
    scope: 'Namespaced',
    conversion: {
      strategy: 'Webhook',
      webhook: {
        clientConfig: { service: { name: 'cert-manager-webhook', namespace: 'cert-manager', path: '/convert' } },
        conversionReviewVersions: ['v1', 'v1beta1'],
      },
    },
    versions: [
      {
        name: 'v1alpha2',
        served: true,
        storage: false,
        deprecated: true,
        deprecationWarning: 'cert-manager.io/v1alpha2 Certificate is deprecated in v1.4+, unavailable in v1.6+; use cert-manager.io/v1 Certificate',
        schema: { openAPIV3Schema: certificateSchema(false) },
        subresources: { status: {} },
        additionalPrinterColumns: certificateColumns,
      },
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: certificateSchema(true) },
        subresources: { status: {} },
        additionalPrinterColumns: certificateColumns,
      },
    ],
  },
};

const duration = { type: 'string', pattern: '^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$' };
const secretKeySelector = {
  type: 'object',
  required: ['key'],
  properties: { key: str, name: { default: '', type: 'string' }, optional: { type: 'boolean' } },
  'x-kubernetes-map-type': 'atomic',
};
const relabelConfig = {
  type: 'object',
  properties: {
    action: {
      default: 'replace',
      enum: ['replace', 'Replace', 'keep', 'Keep', 'drop', 'Drop', 'hashmod', 'HashMod', 'labelmap', 'LabelMap', 'labeldrop', 'LabelDrop', 'labelkeep', 'LabelKeep'],
      type: 'string',
    },
    modulus: { format: 'int64', type: 'integer' },
    regex: str,
    replacement: str,
    separator: str,
    sourceLabels: { type: 'array', items: { pattern: '^[a-zA-Z_][a-zA-Z0-9_]*$', type: 'string' } },
    targetLabel: str,
  },
};

export const prometheusServiceMonitor: ApiObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: {
    name: 'servicemonitors.monitoring.coreos.com',
    annotations: { 'controller-gen.kubebuilder.io/version': 'v0.13.0', 'operator.prometheus.io/version': '0.70.0' },
  },
  spec: {
    group: 'monitoring.coreos.com',
    names: { categories: ['prometheus-operator'], kind: 'ServiceMonitor', listKind: 'ServiceMonitorList', plural: 'servicemonitors', shortNames: ['smon'], singular: 'servicemonitor' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            description: 'ServiceMonitor defines monitoring for a set of services.',
            type: 'object',
            required: ['spec'],
            properties: {
              ...typeMeta,
              spec: {
                type: 'object',
                required: ['selector'],
                properties: {
                  attachMetadata: { type: 'object', properties: { node: { type: 'boolean' } } },
                  endpoints: {
                    type: 'array',
                    items: {
                      type: 'object',
                      properties: {
                        bearerTokenSecret: secretKeySelector,
                        honorLabels: { type: 'boolean' },
                        interval: duration,
                        metricRelabelings: { type: 'array', items: relabelConfig },
                        params: { type: 'object', additionalProperties: strList },
                        path: str,
                        port: str,
                        scheme: { type: 'string', enum: ['http', 'https'] },
                        scrapeTimeout: duration,
                        targetPort: { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true },
                        tlsConfig: { type: 'object', properties: { caFile: str, insecureSkipVerify: { type: 'boolean' }, serverName: str } },
                      },
                    },
                  },
                  jobLabel: str,
                  namespaceSelector: { type: 'object', properties: { any: { type: 'boolean' }, matchNames: strList } },
                  sampleLimit: { format: 'int64', type: 'integer' },
                  selector: {
                    type: 'object',
                    properties: {
                      matchExpressions: {
                        type: 'array',
                        items: { type: 'object', required: ['key', 'operator'], properties: { key: str, operator: str, values: strList } },
                      },
                      matchLabels: { type: 'object', additionalProperties: str },
                    },
                    'x-kubernetes-map-type': 'atomic',
                  },
                  targetLabels: strList,
                },
              },
            },
          },
        },
      },
    ],
  },
};

/** A schema from before structural schemas: types left out, a oneOf that widens the shape. */
export const nonStructural: ApiObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'crontabs.stable.example.com' },
  spec: {
    group: 'stable.example.com',
    names: { kind: 'CronTab', plural: 'crontabs' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            properties: {
              spec: {
                properties: { cronSpec: { type: 'string' }, replicas: { type: 'integer' } },
                oneOf: [{ required: ['cronSpec'] }, { properties: { image: { type: 'string' } } }],
              },
            },
          },
        },
      },
    ],
  },
};

/**
 * A definition (apiextensions.platform.io/v1) of `kind` in `group` serving `versions`: named
 * `<plural>.<group>`, its singular the kind in lower case and its plural that with an `s`, Namespaced;
 * `names` adds to them (listKind, shortNames, …) and `spec` to the spec (conversion, …).
 */
export function crdOf(group: string, kind: string, versions: object[], more: { names?: Record<string, unknown>; spec?: Record<string, unknown> } = {}) {
  const singular = kind.toLowerCase();
  const plural = `${singular}s`;
  return {
    apiVersion: 'apiextensions.platform.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: { group, scope: 'Namespaced', names: { plural, singular, kind, ...more.names }, versions, ...more.spec },
  };
}

const shirtSchema = {
  type: 'object',
  properties: {
    spec: { type: 'object', properties: { color: { type: 'string' }, size: { type: 'integer' }, branded: { type: 'boolean' }, deep: { type: 'object', properties: { tone: { type: 'string' } } } } },
  },
};

/** An Established CRD whose v1 selects by color, size, branded and deep.tone; v2 (storage) by color alone; v3 by none. */
export function shirtDefinition(group: string): ApiObject {
  return {
    ...crdOf(group, 'Shirt', [
      {
        name: 'v1',
        served: true,
        storage: false,
        schema: { openAPIV3Schema: shirtSchema },
        selectableFields: [{ jsonPath: '.spec.color' }, { jsonPath: '.spec.size' }, { jsonPath: '.spec.branded' }, { jsonPath: '.spec.deep.tone' }],
      },
      { name: 'v2', served: true, storage: true, schema: { openAPIV3Schema: shirtSchema }, selectableFields: [{ jsonPath: '.spec.color' }] },
      { name: 'v3', served: true, storage: false, schema: { openAPIV3Schema: shirtSchema } },
    ]),
    status: { conditions: [{ type: 'Established', status: 'True' }] },
  } as unknown as ApiObject;
}
