// One valid object per built-in type, as a client would send it on create.

import type { ApiObject } from '../../api/types.js';

const meta = (name: string, namespace?: string) => (namespace ? { name, namespace } : { name });
const podSpec = { containers: [{ name: 'app', image: 'nginx:1.25', ports: [{ containerPort: 80 }] }] };
const template = { metadata: { labels: { app: 'web' } }, spec: podSpec };
const jobTemplate = { metadata: { labels: { app: 'batch' } }, spec: { ...podSpec, restartPolicy: 'Never' } };
const csrPem = `-----BEGIN CERTIFICATE REQUEST-----\n${Buffer.from([0x30, 0x03, 0x02, 0x01, 0x00]).toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;

/** Keyed by `<group>/<plural>` (core group is empty). */
export const samples: Record<string, ApiObject> = {
  '/namespaces': { metadata: meta('team-a') },
  '/pods': { metadata: meta('web-0', 'default'), spec: podSpec },
  '/services': { metadata: meta('web', 'default'), spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] } },
  '/nodes': { metadata: meta('node-1'), spec: { podCIDR: '10.244.0.0/24', taints: [{ key: 'k', effect: 'NoSchedule' }] } },
  '/configmaps': { metadata: meta('cfg', 'default'), data: { 'app.properties': 'a=b' }, binaryData: { blob: 'AAEC' } },
  '/secrets': { metadata: meta('s', 'default'), type: 'Opaque', data: { password: 'cGFzcw==' }, stringData: { user: 'admin' } },
  '/serviceaccounts': { metadata: meta('builder', 'default'), automountServiceAccountToken: false, imagePullSecrets: [{ name: 'reg' }] },
  '/events': {
    metadata: meta('web-0.1', 'default'),
    involvedObject: { kind: 'Pod', name: 'web-0', namespace: 'default', apiVersion: 'v1' },
    reason: 'Started',
    message: 'Started container',
    type: 'Normal',
    source: { component: 'agent', host: 'node-1' },
    firstTimestamp: '2024-01-01T00:00:00Z',
    lastTimestamp: '2024-01-01T00:00:00Z',
    count: 1,
  },
  '/endpoints': { metadata: meta('web', 'default'), subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 8080 }] }] },
  '/limitranges': { metadata: meta('limits', 'default'), spec: { limits: [{ type: 'Container', max: { cpu: '2' }, min: { memory: '64Mi' } }] } },
  '/resourcequotas': { metadata: meta('quota', 'default'), spec: { hard: { pods: '10', 'requests.cpu': 4 } } },
  '/persistentvolumes': { metadata: meta('pv1'), spec: { capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' } } },
  '/persistentvolumeclaims': { metadata: meta('data', 'default'), spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
  '/podtemplates': { metadata: meta('tpl', 'default'), template },
  '/replicationcontrollers': { metadata: meta('rc', 'default'), spec: { replicas: 2, template } },
  'apps/deployments': { metadata: meta('web', 'default'), spec: { selector: { matchLabels: { app: 'web' } }, template } },
  'apps/statefulsets': {
    metadata: meta('db', 'default'),
    spec: {
      serviceName: 'db',
      selector: { matchLabels: { app: 'web' } },
      template,
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
    },
  },
  'apps/daemonsets': { metadata: meta('agent', 'default'), spec: { selector: { matchLabels: { app: 'web' } }, template } },
  'apps/replicasets': { metadata: meta('web-abc', 'default'), spec: { replicas: 3, selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['web'] }] }, template } },
  'apps/controllerrevisions': { metadata: meta('web-1', 'default'), revision: 1, data: { spec: { template: {} } } },
  'batch/jobs': { metadata: meta('pi', 'default'), spec: { backoffLimit: 2, template: jobTemplate } },
  'batch/cronjobs': { metadata: meta('nightly', 'default'), spec: { schedule: '0 3 * * MON-FRI', jobTemplate: { spec: { template: jobTemplate } } } },
  'autoscaling/horizontalpodautoscalers': { metadata: meta('web', 'default'), spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 2, maxReplicas: 5 } },
  'discovery.platform.io/endpointslices': {
    metadata: meta('web-x7k2p', 'default'),
    addressType: 'IPv4',
    endpoints: [{ addresses: ['10.1.0.7'], conditions: { ready: true }, nodeName: 'node-1', zone: 'zone-a', targetRef: { kind: 'Pod', name: 'web-0', namespace: 'default' } }],
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  },
  'flowcontrol.apiserver.platform.io/flowschemas': {
    metadata: meta('service-accounts'),
    spec: {
      priorityLevelConfiguration: { name: 'workload-low' },
      matchingPrecedence: 9000,
      distinguisherMethod: { type: 'ByUser' },
      rules: [
        {
          subjects: [{ kind: 'Group', group: { name: 'system:serviceaccounts' } }],
          resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }],
          nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/apis/*'] }],
        },
      ],
    },
  },
  'flowcontrol.apiserver.platform.io/prioritylevelconfigurations': {
    metadata: meta('workload-low'),
    spec: { type: 'Limited', limited: { assuredConcurrencyShares: 100, limitResponse: { type: 'Queue', queuing: { queues: 128, handSize: 6, queueLengthLimit: 50 } } } },
  },
  'events.platform.io/events': {
    metadata: meta('web-0.2', 'default'),
    eventTime: '2024-01-01T00:00:00.000000Z',
    type: 'Warning',
    reason: 'BackOff',
    action: 'Restarting',
    note: 'Back-off restarting failed container',
    regarding: { kind: 'Pod', name: 'web-0', namespace: 'default' },
    reportingController: 'platform.io/agent',
    reportingInstance: 'agent-node-1',
  },
  'rbac.authorization.platform.io/roles': { metadata: meta('reader', 'default'), rules: [{ apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get', 'list'] }] },
  'rbac.authorization.platform.io/rolebindings': {
    metadata: meta('read-pods', 'default'),
    subjects: [
      { kind: 'User', name: 'jane' },
      { kind: 'ServiceAccount', name: 'default' },
    ],
    roleRef: { kind: 'Role', name: 'reader', apiGroup: 'rbac.authorization.platform.io' },
  },
  'rbac.authorization.platform.io/clusterroles': {
    metadata: meta('system:monitoring'),
    rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.platform.io/aggregate-to-monitoring': 'true' } }] },
  },
  'rbac.authorization.platform.io/clusterrolebindings': {
    metadata: meta('admins'),
    subjects: [
      { kind: 'Group', name: 'system:masters' },
      { kind: 'ServiceAccount', name: 'ci', namespace: 'tools' },
    ],
    roleRef: { kind: 'ClusterRole', name: 'cluster-admin', apiGroup: 'rbac.authorization.platform.io' },
  },
  'certificates.platform.io/certificatesigningrequests': {
    metadata: meta('node-csr'),
    spec: { request: Buffer.from(csrPem).toString('base64'), signerName: 'platform.io/apiserver-client', usages: ['digital signature', 'key encipherment', 'client auth'], expirationSeconds: 3600 },
  },
  'admissionregistration.platform.io/mutatingwebhookconfigurations': {
    metadata: meta('inject'),
    webhooks: [
      {
        name: 'inject.example.com',
        clientConfig: { service: { namespace: 'hooks', name: 'injector' } },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
      },
    ],
  },
  'admissionregistration.platform.io/validatingwebhookconfigurations': {
    metadata: meta('policy'),
    webhooks: [
      {
        name: 'policy.example.com',
        clientConfig: { url: 'https://policy.example.com/validate' },
        rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }],
        sideEffects: 'NoneOnDryRun',
        admissionReviewVersions: ['v1', 'v1beta1'],
      },
    ],
  },
  'apiextensions.platform.io/customresourcedefinitions': {
    metadata: meta('widgets.example.com'),
    spec: {
      group: 'example.com',
      names: { plural: 'widgets', kind: 'Widget', shortNames: ['wd'] },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', properties: { size: { type: 'integer', minimum: 1, default: 1 }, color: { type: 'string', enum: ['red', 'blue'] } } },
                status: { type: 'object', properties: { ready: { type: 'boolean' } } },
              },
            },
          },
          subresources: { status: {} },
          additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
        },
      ],
    },
  },
  'coordination.platform.io/leases': { metadata: meta('scheduler', 'platform-system'), spec: { holderIdentity: 'node-1', leaseDurationSeconds: 15, renewTime: '2024-01-01T00:00:00.000000Z' } },
  'scheduling.platform.io/priorityclasses': { metadata: meta('high'), value: 1000, globalDefault: false, description: 'important' },
  'storage.platform.io/storageclasses': { metadata: meta('fast'), provisioner: 'example.com/ssd', parameters: { type: 'pd-ssd' }, allowVolumeExpansion: true },
  'storage.platform.io/csidrivers': { metadata: meta('csi.example.com'), spec: { podInfoOnMount: true, tokenRequests: [{ audience: 'vault' }] } },
  'storage.platform.io/csinodes': { metadata: meta('node-1'), spec: { drivers: [{ name: 'csi.example.com', nodeID: 'n1', topologyKeys: ['zone'] }] } },
  'storage.platform.io/volumeattachments': { metadata: meta('va-1'), spec: { attacher: 'csi.example.com', source: { persistentVolumeName: 'pv1' }, nodeName: 'node-1' } },
  'storage.platform.io/csistoragecapacities': { metadata: meta('cap-1', 'default'), storageClassName: 'fast', capacity: '100Gi', nodeTopology: { matchLabels: { zone: 'a' } } },
  'networking.platform.io/networkpolicies': {
    metadata: meta('deny', 'default'),
    spec: { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }], ports: [{ port: 80 }] }] },
  },
  'networking.platform.io/ingresses': {
    metadata: meta('web', 'default'),
    spec: {
      ingressClassName: 'nginx',
      tls: [{ hosts: ['a.example.com'], secretName: 'tls' }],
      rules: [{ host: 'a.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }],
    },
  },
  'networking.platform.io/ingressclasses': { metadata: meta('nginx'), spec: { controller: 'example.com/ingress-nginx' } },
  'node.platform.io/runtimeclasses': { metadata: meta('gvisor'), handler: 'runsc', overhead: { podFixed: { cpu: '100m' } } },
  'policy/poddisruptionbudgets': { metadata: meta('web', 'default'), spec: { minAvailable: '50%', selector: { matchLabels: { app: 'web' } } } },
  'policy/podsecuritypolicies': {
    metadata: meta('restricted'),
    spec: {
      privileged: false,
      seLinux: { rule: 'RunAsAny' },
      runAsUser: { rule: 'MustRunAsNonRoot' },
      supplementalGroups: { rule: 'MustRunAs', ranges: [{ min: 1, max: 65535 }] },
      fsGroup: { rule: 'MustRunAs', ranges: [{ min: 1, max: 65535 }] },
      volumes: ['configMap', 'secret', 'emptyDir', 'projected'],
    },
  },
  'authentication.platform.io/tokenreviews': { metadata: {}, spec: { token: 'abc', audiences: ['api'] } },
  'authentication.platform.io/selfsubjectreviews': { metadata: {} },
  'authorization.platform.io/subjectaccessreviews': { metadata: {}, spec: { user: 'jane', groups: ['dev'], resourceAttributes: { namespace: 'a', verb: 'get', resource: 'pods' } } },
  'authorization.platform.io/selfsubjectaccessreviews': { metadata: {}, spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' } } },
  'authorization.platform.io/localsubjectaccessreviews': { metadata: { namespace: 'a' }, spec: { user: 'jane', resourceAttributes: { namespace: 'a', verb: 'list', resource: 'pods' } } },
  'authorization.platform.io/selfsubjectrulesreviews': { metadata: {}, spec: { namespace: 'a' } },
  'apiregistration.platform.io/apiservices': {
    metadata: meta('v1beta1.metrics.example.io'),
    spec: {
      service: { namespace: 'platform-system', name: 'metrics-server' },
      group: 'metrics.example.io',
      version: 'v1beta1',
      insecureSkipTLSVerify: true,
      groupPriorityMinimum: 100,
      versionPriority: 100,
    },
  },
};
