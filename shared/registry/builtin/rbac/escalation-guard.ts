// The RBAC escalation rule (upstream's rbac REST storage): a role or binding may be written only
// by a user who holds every permission it grants, or may `escalate`/`bind`. The authz service,
// which knows the rules, decides; every writer of RBAC objects passes it, requests and internal
// writers alike.

import { forbidden } from '../../../api/status.js';
import type { EscalationCheckRequest } from '../../../contracts/authz.js';
import type { RestHooks } from '../../types.js';
import { SYSTEM_MASTERS } from '../../../api/groups.js';

export const rbacHooks: RestHooks = {
  async guardWrite(write, object, services) {
    // Members of system:masters may write anything (decided here, as upstream does, so the API
    // server's own writes never wait for the authz service they may be bootstrapping).
    if (write.user.groups.includes(SYSTEM_MASTERS)) return;
    const ask: EscalationCheckRequest = { user: write.user, object };
    if (write.namespace) ask.namespace = write.namespace;
    const reply = await services.authz.checkEscalation(ask);
    if (!reply.allowed)
      throw forbidden({ group: write.target.type.group, resource: write.target.gr.resource }, object.metadata.name ?? '', reply.message ?? 'attempting to grant RBAC permissions not currently held');
  },
};
