// CertificateSigning: issuing a certificate (an update of a CertificateSigningRequest's `status`
// subresource that changes status.certificate) needs the `sign` verb on the request's signer.
// Other status writes (a Failed condition, say) pass.

import type { ApiObject } from '../../../../shared/api/types.js';
import { AdmissionOperation } from '../../../../shared/bus/messages.js';
import { admissionForbidden } from '../../errors.js';
import type { AdmissionPlugin, PluginDefinition } from '../../types.js';
import { authorizedForSigner, authorizeOverBus, CERTIFICATES_GROUP, CSR_RESOURCE, isCsrRequest, namesOf, signerNameOf, type Authorize } from './signer-authorization.js';

export const CERTIFICATE_SIGNING = 'CertificateSigning';

function certificateOf(o: ApiObject): unknown {
  return (o?.status as { certificate?: unknown } | undefined)?.certificate ?? '';
}

export function createCertificateSigning(authorize: Authorize): AdmissionPlugin {
  return {
    name: CERTIFICATE_SIGNING,
    match: { operations: [AdmissionOperation.Update], resources: [{ group: CERTIFICATES_GROUP, resource: CSR_RESOURCE }] },
    async validate(req) {
      if (req.subResource !== 'status' || !isCsrRequest(req)) return;
      if (!req.oldObject || !req.object) throw admissionForbidden(req, 'expected the stored and the updated CertificateSigningRequest');
      if (certificateOf(req.object) === certificateOf(req.oldObject)) return;
      const signer = signerNameOf(req.oldObject);
      if (!(await authorizedForSigner(authorize, req.userInfo, 'sign', signer, namesOf(req)))) {
        throw admissionForbidden(req, `user not permitted to sign requests with signerName ${JSON.stringify(signer)}`);
      }
    },
  };
}

export const certificateSigningPlugin: PluginDefinition = {
  name: CERTIFICATE_SIGNING,
  defaultEnabled: true,
  create: (deps) => createCertificateSigning(authorizeOverBus(deps.nc)),
};
