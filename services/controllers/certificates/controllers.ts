// The certificate controllers: csrsigning (approved requests to the built-in signers are signed
// with the cluster signing CA, or marked Failed with the signer's reason), csrapproving (node client
// requests approved automatically when a SubjectAccessReview on `nodeclient` / `selfnodeclient`
// allows their requester, as upstream) and csrcleaner (finished and stale requests removed).

import { X509Certificate } from 'node:crypto';
import type { ApiObject } from '../../../shared/api/types.js';
import { AUTHORIZATION_GROUP } from '../../../shared/api/groups.js';
import type { Logger } from '../../../shared/log.js';
import { Informer } from '../../../shared/client/informer.js';
import { ApiClient, isConflict, isNotFound } from '../../../shared/client/rest.js';
import { WorkQueue } from '../queue.js';
import { PLATFORM_NAMES, type WellKnownNames } from '../../../shared/api/well-known-names.js';
import { queueController, type Controller } from '../types.js';
import { BUILT_IN_SIGNERS, certificateValidity, readRequest, SIGNER_AGENT_CLIENT, SIGNER_LEGACY_UNKNOWN, signerProblem, signRequest, type SigningCA } from './signers.js';

export const CERTIFICATES_GROUP = 'certificates.platform.io';
const CSRS = { group: CERTIFICATES_GROUP, version: 'v1', resource: 'certificatesigningrequests' };

interface CsrCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

interface Csr extends ApiObject {
  spec?: { request?: string; signerName?: string; usages?: string[]; expirationSeconds?: number; username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  status?: { conditions?: CsrCondition[]; certificate?: string };
}

const condition = (csr: Csr, type: string) => csr.status?.conditions?.find((c) => c.type === type && c.status === 'True');
const timestamp = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The state of a request, as every certificate controller reads it. */
export function csrState(csr: Csr): 'pending' | 'approved' | 'denied' | 'failed' | 'issued' {
  if (condition(csr, 'Failed')) return 'failed';
  if (condition(csr, 'Denied')) return 'denied';
  if (csr.status?.certificate) return 'issued';
  if (condition(csr, 'Approved')) return 'approved';
  return 'pending';
}

function pemOf(base64: string | undefined): string {
  return Buffer.from(base64 ?? '', 'base64').toString('utf8');
}

function csrController(name: string, client: ApiClient, log: Logger, reconcile: (csr: Csr) => Promise<void>): { controller: Controller; informer: Informer<Csr> } {
  const informer = new Informer<Csr>(client, CSRS, { onError: (err) => log.warn({ err }, 'CSR watch failed; retrying') });
  const queue = new WorkQueue(
    async (key) => {
      const csr = informer.get(key);
      if (csr) await reconcile(csr);
    },
    { onError: (key, err) => log.warn({ err, csr: key }, `${name}: retrying`) },
  );
  informer.addHandlers({ onAdd: (o) => queue.add(o.metadata.name!), onUpdate: (_o, n) => queue.add(n.metadata.name!) });
  return { informer, controller: queueController(name, [informer], queue) };
}

async function addCondition(client: ApiClient, csr: Csr, subresource: 'status' | 'approval', c: CsrCondition, extraStatus: Record<string, unknown> = {}): Promise<void> {
  const now = timestamp(Date.now());
  const conditions = [...(csr.status?.conditions ?? []), { lastUpdateTime: now, lastTransitionTime: now, ...c }];
  try {
    await client.update({ ...CSRS, name: csr.metadata.name!, subresource }, { ...csr, status: { ...(csr.status ?? {}), ...extraStatus, conditions } });
  } catch (err) {
    // A newer version is on its way through the watch; it is looked at again then.
    if (!isConflict(err) && !isNotFound(err)) throw err;
  }
}

/** `names`: with upstream's names, upstream's built-in signers (`kubernetes.io/kube-apiserver-client`, …) are signed as their twins. */
export function csrSigningController(client: ApiClient, log: Logger, ca: SigningCA, durationMs: number, names: WellKnownNames = PLATFORM_NAMES): Controller {
  return csrController('csrsigning', client, log, async (csr) => {
    const signer = names.signer(csr.spec?.signerName ?? '');
    if (csrState(csr) !== 'approved') return;
    if (!(BUILT_IN_SIGNERS as readonly string[]).includes(signer) && signer !== SIGNER_LEGACY_UNKNOWN) return;
    let request;
    try {
      request = await readRequest(pemOf(csr.spec?.request));
    } catch (err) {
      await addCondition(client, csr, 'status', { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: `unable to parse csr: ${(err as Error).message}` });
      return;
    }
    const usages = csr.spec?.usages ?? [];
    const problem = signerProblem(signer, request.names, usages);
    if (problem) {
      await addCondition(client, csr, 'status', { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: problem });
      log.info({ csr: csr.metadata.name, signer, problem }, 'signer refused the request');
      return;
    }
    const validity = certificateValidity(Date.now(), durationMs, csr.spec?.expirationSeconds, ca.certificate.notAfter);
    const pem = await signRequest(ca, request.csr, usages, validity);
    try {
      await client.update({ ...CSRS, name: csr.metadata.name!, subresource: 'status' }, { ...csr, status: { ...(csr.status ?? {}), certificate: Buffer.from(pem).toString('base64') } });
      log.info({ csr: csr.metadata.name, signer, notAfter: validity.notAfter.toISOString() }, 'certificate issued');
    } catch (err) {
      if (!isConflict(err) && !isNotFound(err)) throw err;
    }
  }).controller;
}

/** `names`: with upstream's names, `kubernetes.io/kube-apiserver-client-kubelet` requests are approved as their twin's. */
export function csrApprovingController(client: ApiClient, log: Logger, wellKnown: WellKnownNames = PLATFORM_NAMES): Controller {
  return csrController('csrapproving', client, log, async (csr) => {
    if (csrState(csr) !== 'pending' || wellKnown.signer(csr.spec?.signerName ?? '') !== SIGNER_AGENT_CLIENT) return;
    let names;
    try {
      names = (await readRequest(pemOf(csr.spec?.request))).names;
    } catch {
      return;
    }
    if (signerProblem(SIGNER_AGENT_CLIENT, names, csr.spec?.usages ?? [])) return;
    // A node renewing its own certificate asks for selfnodeclient; a bootstrapping one for nodeclient.
    const subresource = csr.spec?.username === names.commonName ? 'selfnodeclient' : 'nodeclient';
    const spec = csr.spec ?? {};
    const review = await client.create<{ status?: { allowed?: boolean } }>(
      { group: AUTHORIZATION_GROUP, version: 'v1', resource: 'subjectaccessreviews' },
      {
        apiVersion: `${AUTHORIZATION_GROUP}/v1`,
        kind: 'SubjectAccessReview',
        spec: {
          user: spec.username ?? '',
          ...(spec.uid ? { uid: spec.uid } : {}),
          groups: spec.groups ?? [],
          ...(spec.extra ? { extra: spec.extra } : {}),
          resourceAttributes: { group: CERTIFICATES_GROUP, resource: 'certificatesigningrequests', verb: 'create', subresource },
        },
      },
    );
    if (!review.status?.allowed) return;
    await addCondition(client, csr, 'approval', { type: 'Approved', status: 'True', reason: 'AutoApproved', message: 'Auto approving kubelet client certificate after SubjectAccessReview.' });
    log.info({ csr: csr.metadata.name, requester: spec.username, subresource }, 'node client certificate request approved');
  }).controller;
}

export interface CleanerDurations {
  approvedMs: number;
  deniedMs: number;
  failedMs: number;
  pendingMs: number;
  /** How often the requests are looked at. */
  intervalMs: number;
}

/** Upstream's: approved, denied and failed requests go after an hour, pending ones after a day, issued ones once the certificate expired. */
export const DEFAULT_CLEANER_DURATIONS: CleanerDurations = { approvedMs: 3_600_000, deniedMs: 3_600_000, failedMs: 3_600_000, pendingMs: 86_400_000, intervalMs: 60_000 };

function issuedExpired(csr: Csr, now: number): boolean {
  const pem = pemOf(csr.status?.certificate);
  const m = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/.exec(pem);
  if (!m) return false;
  try {
    // Only the first certificate's end counts, as upstream's.
    return Date.parse(new X509Certificate(m[0]).validTo) < now;
  } catch {
    return false;
  }
}

/** Whether the cleaner removes the request at `now`. */
export function csrExpired(csr: Csr, now: number, d: CleanerDurations): boolean {
  const since = (c: CsrCondition | undefined) => Date.parse(c?.lastUpdateTime ?? c?.lastTransitionTime ?? csr.metadata.creationTimestamp ?? '');
  switch (csrState(csr)) {
    case 'pending':
      return now - Date.parse(csr.metadata.creationTimestamp ?? '') > d.pendingMs;
    case 'approved':
      return now - since(condition(csr, 'Approved')) > d.approvedMs;
    case 'denied':
      return now - since(condition(csr, 'Denied')) > d.deniedMs;
    case 'failed':
      return now - since(condition(csr, 'Failed')) > d.failedMs;
    case 'issued':
      return issuedExpired(csr, now) || now - since(condition(csr, 'Approved')) > d.approvedMs;
  }
}

export function csrCleaner(client: ApiClient, log: Logger, durations: CleanerDurations = DEFAULT_CLEANER_DURATIONS): Controller {
  const informer = new Informer<Csr>(client, CSRS, { onError: (err) => log.warn({ err }, 'CSR watch failed; retrying') });
  let timer: NodeJS.Timeout | undefined;
  const sweep = async () => {
    const now = Date.now();
    for (const csr of informer.list()) {
      if (!csrExpired(csr, now, durations)) continue;
      try {
        await client.delete({ ...CSRS, name: csr.metadata.name! }, { preconditions: { uid: csr.metadata.uid } });
        log.info({ csr: csr.metadata.name, state: csrState(csr) }, 'certificate signing request cleaned up');
      } catch (err) {
        if (!isNotFound(err) && !isConflict(err)) log.warn({ err, csr: csr.metadata.name }, 'cleaning up a certificate signing request failed');
      }
    }
  };
  return {
    name: 'csrcleaner',
    async start() {
      informer.start();
      await informer.synced;
      await sweep();
      timer = setInterval(() => void sweep(), durations.intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      await informer.stop();
    },
  };
}
