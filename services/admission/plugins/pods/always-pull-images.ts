// AlwaysPullImages: every container of a pod pulls its image on each start (imagePullPolicy
// Always), so a private image cached on a node is only used by pods whose credentials may pull
// it. An update that brings no new image is left alone, as upstream, so pods created before the
// plugin was enabled can still be relabelled.

import { AdmissionOperation, type AdmissionRequest } from '../../../../shared/bus/messages.js';
import { failure, fieldErrorMessage, StatusReason } from '../../../../shared/api/status.js';
import { unsupported } from '../../../../shared/api/field-errors.js';
import { admissionForbidden } from '../../errors.js';
import type { AdmissionPlugin, PluginDefinition, PluginMatch } from '../../types.js';
import { isMainResource, podContainers, rec, str } from './pod-fields.js';

export const ALWAYS_PULL_IMAGES = 'AlwaysPullImages';

const PODS_CREATE_UPDATE: PluginMatch = {
  operations: [AdmissionOperation.Create, AdmissionOperation.Update],
  resources: [{ group: '', resource: 'pods' }],
};

/** An update whose containers only use images the pod already had. */
function updateWithNoNewImages(req: AdmissionRequest): boolean {
  if (req.operation !== AdmissionOperation.Update || !req.object || !req.oldObject) return false;
  const old = new Set(podContainers(rec(req.oldObject.spec)).map(({ container }) => str(container.image)));
  return podContainers(rec(req.object.spec)).every(({ container }) => old.has(str(container.image)));
}

const ignored = (req: AdmissionRequest) => !req.object || !isMainResource(req, '', 'pods') || updateWithNoNewImages(req);

export function createAlwaysPullImages(): AdmissionPlugin {
  return {
    name: ALWAYS_PULL_IMAGES,
    match: PODS_CREATE_UPDATE,
    mutate(req) {
      if (ignored(req)) return;
      for (const { container } of podContainers(rec(req.object!.spec))) container.imagePullPolicy = 'Always';
    },
    // A later mutating webhook may have set another policy.
    validate(req) {
      if (ignored(req)) return;
      const errs = podContainers(rec(req.object!.spec))
        .filter(({ container }) => container.imagePullPolicy !== 'Always')
        .map(({ container, path }) => fieldErrorMessage(unsupported(`${path}.imagePullPolicy`, str(container.imagePullPolicy), ['Always'])));
      if (errs.length === 0) return;
      const denials = errs.map((e) => admissionForbidden(req, e));
      if (denials.length === 1) throw denials[0]!;
      // Upstream aggregates one Forbidden per container.
      throw failure(403, StatusReason.Forbidden, `[${denials.map((d) => d.status.message).join(', ')}]`, denials[0]!.status.details);
    },
  };
}

export const alwaysPullImagesPlugin: PluginDefinition = {
  name: ALWAYS_PULL_IMAGES,
  defaultEnabled: false,
  create: () => createAlwaysPullImages(),
};
