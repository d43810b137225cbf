// CertificateApproval: approving or denying a CertificateSigningRequest (an update of its
// `approval` subresource) needs the `approve` verb on the request's signer, in addition to the
// update permission on `certificatesigningrequests/approval` the gateway already checked.

import { AdmissionOperation } from '../../../../shared/bus/messages.js';
import { admissionForbidden } from '../../errors.js';
import type { AdmissionPlugin, PluginDefinition } from '../../types.js';
import { authorizedForSigner, authorizeOverBus, CERTIFICATES_GROUP, CSR_RESOURCE, isCsrRequest, namesOf, signerNameOf, type Authorize } from './signer-authorization.js';

export const CERTIFICATE_APPROVAL = 'CertificateApproval';

export function createCertificateApproval(authorize: Authorize): AdmissionPlugin {
  return {
    name: CERTIFICATE_APPROVAL,
    match: { operations: [AdmissionOperation.Update], resources: [{ group: CERTIFICATES_GROUP, resource: CSR_RESOURCE }] },
    async validate(req) {
      if (req.subResource !== 'approval' || !isCsrRequest(req)) return;
      // The stored signer, as upstream: the approval path never changes the spec anyway.
      if (!req.oldObject) throw admissionForbidden(req, 'expected the stored CertificateSigningRequest');
      const signer = signerNameOf(req.oldObject);
      if (!(await authorizedForSigner(authorize, req.userInfo, 'approve', signer, namesOf(req)))) {
        throw admissionForbidden(req, `user not permitted to approve requests with signerName ${JSON.stringify(signer)}`);
      }
    },
  };
}

export const certificateApprovalPlugin: PluginDefinition = {
  name: CERTIFICATE_APPROVAL,
  defaultEnabled: true,
  create: (deps) => createCertificateApproval(authorizeOverBus(deps.nc)),
};
