// NetworkPolicies: which traffic may reach or leave the selected pods.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn, selectorString } from '../common/columns.js';
import { asArray, asObject, at, ensureObject, setDefault } from '../common/field-errors.js';
import { labelSelector } from '../common/meta.js';
import { validateLabelSelector } from '../common/selector.js';
import { atomicList, int32, intOrString, obj, str, strEnum } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';
import { forbidden, invalidValue, required } from '../../../api/field-errors.js';

const port = obj({ protocol: strEnum('TCP', 'UDP', 'SCTP'), port: intOrString, endPort: int32 });
const peer = obj({ podSelector: labelSelector, namespaceSelector: labelSelector, ipBlock: obj({ cidr: str, except: atomicList(str) }, ['cidr']) });

const schema = obj({
  spec: obj(
    {
      podSelector: labelSelector,
      ingress: atomicList(obj({ ports: atomicList(port), from: atomicList(peer) })),
      egress: atomicList(obj({ ports: atomicList(port), to: atomicList(peer) })),
      policyTypes: atomicList(strEnum('Ingress', 'Egress')),
    },
    ['podSelector'],
  ),
});

const CIDR = /^(\d{1,3}(\.\d{1,3}){3}\/\d{1,2}|[0-9a-fA-F:]+\/\d{1,3})$/;

function validate(o: ApiObject): FieldError[] {
  const spec = asObject(o.spec) ?? {};
  const errs = validateLabelSelector(spec.podSelector, 'spec.podSelector');
  for (const [dir, peers] of [
    ['ingress', 'from'],
    ['egress', 'to'],
  ] as const) {
    asArray(spec[dir]).forEach((r, i) => {
      const rule = asObject(r) ?? {};
      asArray(rule.ports).forEach((p, j) => {
        const pp = asObject(p) ?? {};
        const f = `spec.${dir}[${i}].ports[${j}]`;
        if (typeof pp.port === 'number' && (pp.port < 1 || pp.port > 65535)) errs.push(invalidValue(`${f}.port`, pp.port, 'must be between 1 and 65535, inclusive'));
        if (pp.endPort !== undefined) {
          if (typeof pp.port !== 'number') errs.push(required(`${f}.port`, 'must be specified when endPort is specified'));
          else if (typeof pp.endPort === 'number' && pp.endPort < pp.port) errs.push(invalidValue(`${f}.endPort`, pp.endPort, 'must be greater than or equal to `port`'));
        }
      });
      asArray(rule[peers]).forEach((p, j) => {
        const pe = asObject(p) ?? {};
        const f = `spec.${dir}[${i}].${peers}[${j}]`;
        const n = ['podSelector', 'namespaceSelector'].filter((k) => pe[k] !== undefined).length;
        if (pe.ipBlock !== undefined && n > 0) errs.push(forbidden(f, 'may not specify both ipBlock and another peer'));
        if (pe.ipBlock === undefined && n === 0) errs.push(required(f, 'must specify a peer'));
        const cidr = at(pe, 'ipBlock.cidr');
        if (typeof cidr === 'string' && !CIDR.test(cidr)) errs.push(invalidValue(`${f}.ipBlock.cidr`, cidr, 'must be a valid CIDR (e.g. 10.0.0.0/16)'));
      });
    });
  }
  return errs;
}

export const networkpolicies: ResourceType = {
  group: 'networking.platform.io',
  versions: [{ name: 'v1', schema }],
  kind: 'NetworkPolicy',
  listKind: 'NetworkPolicyList',
  plural: 'networkpolicies',
  singular: 'networkpolicy',
  scope: 'Namespaced',
  shortNames: ['netpol'],
  columns: [{ name: 'Pod-Selector', type: 'string', description: 'Pods the policy applies to', cell: (o) => selectorString(at(o, 'spec.podSelector')) }, ageColumn],
  strategy: {
    defaults(o) {
      const spec = ensureObject(o, 'spec');
      for (const dir of ['ingress', 'egress']) {
        for (const r of asArray(spec[dir]))
          for (const p of asArray(asObject(r)?.ports)) {
            const pp = asObject(p);
            if (pp) setDefault(pp, 'protocol', 'TCP');
          }
      }
      // Without explicit types a policy isolates ingress, and egress too when it has egress rules.
      if (!asArray(spec.policyTypes).length) spec.policyTypes = asArray(spec.egress).length ? ['Ingress', 'Egress'] : ['Ingress'];
    },
    validate,
    validateUpdate: updateValidation(validate),
  },
};
