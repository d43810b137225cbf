// Realistic bodies of the bus messages for the codec micro benchmark (bus-codec.ts): a ConfigMap of
// about 1 KiB as the gateway stores it (managed fields included), a Pod for an admission request,
// the attributes of a namespaced create as the gateway asks authz, an authn request and reply.

import type { ApiObject, UserInfo } from '../shared/api/types.js';
import type { AuthzAttributes, AuthzReply } from '../shared/contracts/authz.js';
import type { AuthnReply, AuthnRequest } from '../shared/contracts/authn.js';
import type { AdmissionRequest } from '../shared/contracts/admission.js';

export const user: UserInfo = {
  username: 'system:serviceaccount:team-a:deployer',
  uid: '1f0c3c52-8a4e-4d1e-9b3a-7c2f5e6d8a90',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:team-a', 'system:authenticated'],
  extra: { 'authentication.platform.io/pod-name': ['deployer-7d9f8'], 'authentication.platform.io/pod-uid': ['0b6c7f3e-1d2a-4c5b-8e9f-a1b2c3d4e5f6'] },
};

export function configMap(name = 'app-config-42'): ApiObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace: 'team-a',
      uid: '6a1f2e3d-4c5b-4a69-8877-665544332211',
      creationTimestamp: '2026-11-28T17:00:00Z',
      labels: { app: 'checkout', tier: 'backend', 'app.platform.io/version': '1.24.3' },
      annotations: { 'deploy.example.com/revision': '17' },
      managedFields: [
        {
          manager: 'kubectl-client-side-apply',
          operation: 'Update',
          apiVersion: 'v1',
          time: '2026-11-28T17:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:data': { '.': {}, 'f:app.properties': {}, 'f:log-level': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {}, 'f:tier': {} } } },
        },
      ],
    },
    data: {
      'app.properties': 'color=blue\nsize=medium\nretries=3\ntimeout=30s\nendpoint=https://payments.team-a.svc:8443/v2\n',
      'log-level': 'info',
      'feature-flags': 'checkout-v2=true,express-pay=false,address-autocomplete=true',
    },
  };
}

export function pod(): ApiObject {
  const container = (name: string, image: string) => ({
    name,
    image,
    ports: [{ containerPort: 8080, protocol: 'TCP' }],
    env: [
      { name: 'LOG_LEVEL', value: 'info' },
      { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
    ],
    resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
    volumeMounts: [{ name: 'config', mountPath: '/etc/app' }],
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: 'IfNotPresent',
  });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'checkout-7d9f8-x2k4q', generateName: 'checkout-7d9f8-', namespace: 'team-a', labels: { app: 'checkout', 'pod-template-hash': '7d9f8' } },
    spec: {
      containers: [container('app', 'registry.example.com/checkout:1.24.3'), container('sidecar', 'registry.example.com/proxy:2.1.0')],
      volumes: [{ name: 'config', configMap: { name: 'app-config-42', defaultMode: 420 } }],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'deployer',
      schedulerName: 'default-scheduler',
      tolerations: [{ key: 'node.platform.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
    },
  };
}

export const authzAttributes: AuthzAttributes = {
  user,
  verb: 'create',
  isResourceRequest: true,
  path: '/api/v1/namespaces/team-a/configmaps',
  apiGroup: '',
  apiVersion: 'v1',
  resource: 'configmaps',
  namespace: 'team-a',
  name: '',
};

export const authzReply: AuthzReply = {
  decision: 'Allow',
  decidedBy: 'RBAC',
  reason: 'RBAC: allowed by RoleBinding "deployers/team-a" of Role "deployer" to ServiceAccount "deployer/team-a"',
  revision: 1234,
};

export const authnRequest: AuthnRequest = {
  token:
    'eyJhbGciOiJSUzI1NiIsImtpZCI6IjEyMyJ9.eyJpc3MiOiJodHRwczovL3BsYXRmb3JtLmRlZmF1bHQuc3ZjIiwic3ViIjoic3lzdGVtOnNlcnZpY2VhY2NvdW50OnRlYW0tYTpkZXBsb3llciIsImF1ZCI6WyJodHRwczovL3BsYXRmb3JtLmRlZmF1bHQuc3ZjIl0sImV4cCI6MTc5NTAwMDAwMH0.c2lnbmF0dXJlLXNpZ25hdHVyZS1zaWduYXR1cmUtc2lnbmF0dXJlLXNpZ25hdHVyZQ',
};

export const authnReply: AuthnReply = { authenticated: true, user, audiences: ['https://platform.default.svc'] };

export function admissionRequest(): AdmissionRequest {
  return {
    uid: '9b8c7d6e-5f4a-4b3c-8d2e-1f0a9b8c7d6e',
    phase: 'validating',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    name: 'checkout-7d9f8-x2k4q',
    namespace: 'team-a',
    operation: 'CREATE',
    userInfo: user,
    object: pod(),
    oldObject: null,
    options: { apiVersion: 'meta.platform.io/v1', kind: 'CreateOptions' },
    dryRun: false,
  };
}
