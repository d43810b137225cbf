// `kubectl explain` against the gateway: kubectl 1.32 reads the OpenAPI v3 document of the group
// version and prints, for a kind or a field, its description and every field beneath it with its
// own. Every field of a described type must show a description, also through shared definitions
// (metadata is a `$ref` wrapped in `allOf`) and shared sub-schemas (containers, probes).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { findKubectl, kubectlOk as ok, kubectlSuite } from '../support/kubectl.js';

const bin = findKubectl();
const skip = bin ? false : 'kubectl not on PATH: skipping the kubectl explain suite';
if (!bin) console.log(skip);

interface Explained {
  description: string;
  /** Each field listed under FIELDS with the text printed beneath it. */
  fields: Map<string, string>;
}

/** Splits kubectl's plaintext explain output into the DESCRIPTION block and the FIELDS entries. */
function parseExplain(out: string): Explained {
  const lines = out.split('\n');
  const at = (header: string) => lines.findIndex((l) => l.trim() === header);
  const descStart = at('DESCRIPTION:');
  const fieldsStart = at('FIELDS:');
  const description = lines
    .slice(descStart + 1, fieldsStart < 0 ? undefined : fieldsStart)
    .join('\n')
    .trim();
  const fields = new Map<string, string>();
  let current: string | undefined;
  for (const line of fieldsStart < 0 ? [] : lines.slice(fieldsStart + 1)) {
    const header = /^ {2}(\S+)\t<[^>]*>/.exec(line);
    if (header) fields.set((current = header[1]!), '');
    else if (current && line.trim()) fields.set(current, `${fields.get(current)} ${line.trim()}`.trim());
  }
  return { description, fields };
}

function assertAllDescribed(what: string, e: Explained): void {
  assert.ok(e.fields.size > 0, `${what}: no fields listed`);
  const bare = [...e.fields].filter(([, text]) => !text || /^<(no description|empty)>$/.test(text)).map(([name]) => name);
  assert.deepEqual(bare, [], `${what}: fields printed without a description`);
}

const CONTAINER_FIELDS = [
  'args',
  'command',
  'env',
  'envFrom',
  'image',
  'imagePullPolicy',
  'lifecycle',
  'livenessProbe',
  'name',
  'ports',
  'readinessProbe',
  'resizePolicy',
  'resources',
  'restartPolicy',
  'securityContext',
  'startupProbe',
  'stdin',
  'stdinOnce',
  'terminationMessagePath',
  'terminationMessagePolicy',
  'tty',
  'volumeDevices',
  'volumeMounts',
  'workingDir',
];

describe('kubectl explain', { skip }, () => {
  const s = kubectlSuite(bin, 'kubectl-explain-');

  it('kubectl explain pod - prints the kind description and a description for every top-level field', async () => {
    const e = parseExplain(ok(await s.kubectl.run(['explain', 'pod'])));
    assert.match(e.description, /scheduled together onto one node/);
    assert.deepEqual([...e.fields.keys()].sort(), ['apiVersion', 'kind', 'metadata', 'spec', 'status']);
    assertAllDescribed('pod', e);
  });

  it('kubectl explain pod.spec.containers - every container field is listed with its description', async () => {
    const e = parseExplain(ok(await s.kubectl.run(['explain', 'pod.spec.containers'])));
    assert.match(e.description, /app containers of the pod/);
    for (const f of CONTAINER_FIELDS) assert.ok(e.fields.has(f), `pod.spec.containers: ${f} is not listed`);
    assertAllDescribed('pod.spec.containers', e);
    assert.match(e.fields.get('imagePullPolicy')!, /Defaults to Always for an image tagged :latest/);
  });

  it('kubectl explain - shared definitions and sub-schemas keep their descriptions at every depth', async () => {
    // metadata is a reference to the ObjectMeta definition; its fields come from that definition.
    const meta = parseExplain(ok(await s.kubectl.run(['explain', 'pod.metadata'])));
    assert.ok(meta.fields.has('resourceVersion'));
    assertAllDescribed('pod.metadata', meta);
    // The probe schema is shared by three container fields, pod templates and every workload.
    for (const path of ['pod.spec.containers.livenessProbe', 'deployment.spec.template.spec.containers.readinessProbe.httpGet', 'pod.spec.securityContext', 'pod.spec.volumes', 'pod.status']) {
      assertAllDescribed(path, parseExplain(ok(await s.kubectl.run(['explain', path]))));
    }
    const field = parseExplain(ok(await s.kubectl.run(['explain', 'pod.spec.containers.livenessProbe.periodSeconds'])));
    assert.match(field.description, /Seconds between two checks\. Defaults to 10/);
  });

  it('kubectl explain - the core kinds configmap, secret, service, namespace and serviceaccount are described throughout', async () => {
    for (const kind of ['configmap', 'secret', 'service', 'service.spec', 'service.spec.ports', 'namespace', 'serviceaccount']) {
      const e = parseExplain(ok(await s.kubectl.run(['explain', kind])));
      assert.ok(e.description && !/^<(no description|empty)>$/.test(e.description), `${kind}: no description`);
      assertAllDescribed(kind, e);
    }
  });

  it('kubectl explain - rbac, reviews, certificate requests, webhook configurations, definitions and api services are described throughout', async () => {
    const paths: Array<[path: string, apiVersion?: string]> = [
      ['role.rules'],
      ['clusterrole.aggregationRule'],
      ['rolebinding.subjects'],
      ['clusterrolebinding.roleRef'],
      ['tokenreview.status.user'],
      ['tokenreview.spec', 'authentication.platform.io/v1beta1'],
      ['selfsubjectreview.status.userInfo'],
      ['subjectaccessreview.spec.resourceAttributes'],
      ['localsubjectaccessreview.spec'],
      ['selfsubjectaccessreview.status'],
      ['selfsubjectrulesreview.status.nonResourceRules'],
      ['csr.spec'],
      ['csr.status.conditions'],
      ['mutatingwebhookconfiguration.webhooks'],
      ['validatingwebhookconfiguration.webhooks.clientConfig.service'],
      ['validatingwebhookconfiguration.webhooks.rules', 'admissionregistration.platform.io/v1beta1'],
      ['crd.spec.versions'],
      ['crd.spec.versions.subresources.scale'],
      ['crd.spec.conversion.webhook.clientConfig'],
      ['crd.status.acceptedNames'],
      ['apiservice.spec'],
      ['apiservice.status.conditions'],
    ];
    for (const [path, apiVersion] of paths) {
      const e = parseExplain(ok(await s.kubectl.run(['explain', path, ...(apiVersion ? [`--api-version=${apiVersion}`] : [])])));
      assert.ok(e.description && !/^<(no description|empty)>$/.test(e.description), `${path}: no description`);
      assertAllDescribed(path, e);
    }
    // Each version of a webhook configuration states its own defaults.
    const v1 = parseExplain(ok(await s.kubectl.run(['explain', 'mutatingwebhookconfiguration.webhooks.failurePolicy'])));
    assert.match(v1.description.replace(/\s+/g, ' '), /Defaults to Fail\./);
    const v1beta1 = parseExplain(ok(await s.kubectl.run(['explain', 'mutatingwebhookconfiguration.webhooks.failurePolicy', '--api-version=admissionregistration.platform.io/v1beta1'])));
    assert.match(v1beta1.description.replace(/\s+/g, ' '), /Defaults to Ignore\./);
    const schema = parseExplain(ok(await s.kubectl.run(['explain', 'crd.spec.versions.schema.openAPIV3Schema'])));
    assert.match(schema.description.replace(/\s+/g, ' '), /in the structural form the server requires/);
  });

  it('kubectl explain - autoscaling, policy, networking, discovery, flow control, storage, node, scheduling and coordination kinds are described throughout', async () => {
    const paths: Array<[path: string, apiVersion?: string]> = [
      ['hpa.spec.metrics.object'],
      ['hpa.spec.behavior.scaleUp.policies'],
      ['hpa.status.currentMetrics.containerResource.current'],
      ['hpa.spec.metrics.external', 'autoscaling/v2beta1'],
      ['hpa.status', 'autoscaling/v1'],
      ['pdb.status'],
      ['psp.spec.runAsGroup.ranges'],
      ['ingress.spec.rules.http.paths.backend.service.port'],
      ['ingressclass.spec.parameters'],
      ['networkpolicy.spec.egress.to.ipBlock'],
      ['endpointslice.endpoints.hints.forZones'],
      ['endpointslice.endpoints', 'discovery.platform.io/v1beta1'],
      ['flowschema.spec.rules.subjects.serviceAccount'],
      ['prioritylevelconfiguration.spec.limited.limitResponse.queuing'],
      ['csidriver.spec.tokenRequests'],
      ['csinode.spec.drivers.allocatable'],
      ['csistoragecapacity'],
      ['storageclass'],
      ['volumeattachment.status.detachError'],
      ['runtimeclass.scheduling'],
      ['priorityclass'],
      ['lease.spec'],
    ];
    for (const [path, apiVersion] of paths) {
      const e = parseExplain(ok(await s.kubectl.run(['explain', path, ...(apiVersion ? [`--api-version=${apiVersion}`] : [])])));
      assert.ok(e.description && !/^<(no description|empty)>$/.test(e.description), `${path}: no description`);
      assertAllDescribed(path, e);
    }
    const window = parseExplain(ok(await s.kubectl.run(['explain', 'hpa.spec.behavior.scaleDown.stabilizationWindowSeconds'])));
    assert.match(window.description.replace(/\s+/g, ' '), /a brief swing of the metrics does not change the replica count.* 0 to 3600\./);
  });

  it('kubectl explain - nodes, events, quotas, volumes, claims and the workload kinds of core, apps and batch are described throughout', async () => {
    const paths: Array<[path: string, apiVersion?: string]> = [
      ['node.spec.taints'],
      ['node.status.nodeInfo'],
      ['endpoints.subsets.ports'],
      ['event', 'v1'],
      ['event.series', 'events.platform.io/v1'],
      ['event', 'events.platform.io/v1beta1'],
      ['limitrange.spec.limits'],
      ['resourcequota.spec.scopeSelector.matchExpressions'],
      ['pv.spec'],
      ['pvc.status.modifyVolumeStatus'],
      ['podtemplate'],
      ['rc.status'],
      ['daemonset.spec.updateStrategy.rollingUpdate'],
      ['statefulset.spec.volumeClaimTemplates'],
      ['controllerrevision'],
      ['job.status.uncountedTerminatedPods'],
      ['cronjob.spec.jobTemplate.spec'],
      ['cronjob.spec', 'batch/v1beta1'],
    ];
    for (const [path, apiVersion] of paths) {
      const e = parseExplain(ok(await s.kubectl.run(['explain', path, ...(apiVersion ? [`--api-version=${apiVersion}`] : [])])));
      assert.ok(e.description && !/^<(no description|empty)>$/.test(e.description), `${path}: no description`);
      assertAllDescribed(path, e);
    }
    // Every volume source a PersistentVolume may name is listed, each with what it takes.
    const pv = parseExplain(ok(await s.kubectl.run(['explain', 'pv.spec'])));
    const sources = ['csi', 'local', 'nfs', 'hostPath', 'iscsi', 'fc', 'rbd', 'cephfs', 'glusterfs', 'flexVolume', 'awsElasticBlockStore', 'gcePersistentDisk', 'azureDisk', 'azureFile'];
    for (const source of sources) assert.ok(pv.fields.has(source), `pv.spec: ${source} is not listed`);
    assert.match(pv.fields.get('csi')!, /driver .* and volumeHandle/);
    const schedule = parseExplain(ok(await s.kubectl.run(['explain', 'cronjob.spec.schedule'])));
    assert.match(schedule.description.replace(/\s+/g, ' '), /a TZ= or CRON_TZ= prefix is rejected \(use timeZone\)/);
  });
});
