// CertificateSubjectRestriction: nobody may ask the API server's client signer for a certificate
// in the `system:masters` group (organization), which would be a credential bypassing all
// authorization. Only the PKCS#10 subject counts; spec.groups is the requester, not the request.

// Must load before @peculiar/x509, which resolves its parsers through tsyringe.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { AdmissionOperation } from '../../../../shared/bus/messages.js';
import { scanPem } from '../../../../shared/registry/builtin/certificates/pem.js';
import { admissionForbidden } from '../../errors.js';
import type { AdmissionPlugin, PluginDefinition } from '../../types.js';
import { CERTIFICATES_GROUP, CSR_RESOURCE, isCsrRequest, namesOf, signerNameOf } from './signer-authorization.js';

export const CERTIFICATE_SUBJECT_RESTRICTION = 'CertificateSubjectRestriction';
export const APISERVER_CLIENT_SIGNER = 'platform.io/apiserver-client';
const MASTERS = 'system:masters';

/** The organizations of the request's subject; throws with upstream's wording when unreadable. */
export function requestOrganizations(request: unknown): string[] {
  const text = typeof request === 'string' ? Buffer.from(request, 'base64').toString('latin1') : '';
  // As upstream: the first PEM block is the request.
  const block = scanPem(text).blocks[0];
  if (!block || block.type !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST');
  return new x509.Pkcs10CertificateRequest(block.bytes).subjectName.getField('O');
}

export function createCertificateSubjectRestriction(): AdmissionPlugin {
  return {
    name: CERTIFICATE_SUBJECT_RESTRICTION,
    match: { operations: [AdmissionOperation.Create], resources: [{ group: CERTIFICATES_GROUP, resource: CSR_RESOURCE }] },
    validate(req) {
      // Upstream's `kubernetes.io/kube-apiserver-client` is the same signer when the gateway serves upstream names.
      const signer = signerNameOf(req.object);
      if (req.subResource || !isCsrRequest(req) || namesOf(req).signer(signer) !== APISERVER_CLIENT_SIGNER) return;
      let organizations: string[];
      try {
        organizations = requestOrganizations((req.object?.spec as { request?: unknown } | undefined)?.request);
      } catch (err) {
        throw admissionForbidden(req, `failed to parse CSR: ${(err as Error).message}`);
      }
      if (organizations.includes(MASTERS)) {
        throw admissionForbidden(req, `use of ${signer} signer with ${MASTERS} group is not allowed`);
      }
    },
  };
}

export const certificateSubjectRestrictionPlugin: PluginDefinition = {
  name: CERTIFICATE_SUBJECT_RESTRICTION,
  defaultEnabled: true,
  create: () => createCertificateSubjectRestriction(),
};
