// NetworkPolicies: which traffic may reach or leave the selected pods.

import type { FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { ageColumn, selectorString } from '../common/columns.js';
import { asArray, asObject, at, ensureObject, setDefault } from '../common/field-errors.js';
import { labelSelector } from '../common/meta.js';
import { validateLabelSelector } from '../common/selector.js';
import { atomicList, described, int32, intOrString, obj, str, strEnum } from '../common/schema.js';
import { updateValidation } from '../common/strategy.js';
import { forbidden, invalidValue, required } from '../../../api/field-errors.js';

const port = described(
  obj({ protocol: strEnum('TCP', 'UDP', 'SCTP'), port: intOrString, endPort: int32 }),
  {
    protocol: 'Protocol of the traffic: TCP (the default), UDP or SCTP.',
    port: 'A port number (1 to 65535) or the name of a container port of the pods. Unset: every port.',
    endPort: 'With a numeric port, the last port of the range port..endPort; not below port.',
  },
  'A port, or range of ports, traffic may use.',
);

const ipBlock = described(
  obj({ cidr: str, except: atomicList(str) }, ['cidr']),
  { cidr: 'The addresses, as a CIDR such as `10.0.0.0/16` or `2001:db8::/64`.', except: 'CIDRs inside cidr that are left out.' },
  'A range of IP addresses, for traffic from or to outside the cluster (pod addresses are better matched with selectors, as they change).',
);

const peer = described(
  obj({ podSelector: labelSelector, namespaceSelector: labelSelector, ipBlock }),
  {
    podSelector: 'Pods matching it, in the namespace of the policy, or with namespaceSelector in the namespaces that one selects.',
    namespaceSelector: 'Namespaces whose pods all match (or, with podSelector, the pods of those namespaces matching it). An empty selector means every namespace.',
    ipBlock: 'A range of addresses; cannot be combined with the selectors.',
  },
  'The other end of allowed traffic: pods selected by label, or a range of addresses.',
);

const ingressRule = described(
  obj({ ports: atomicList(port), from: atomicList(peer) }),
  { ports: 'Ports the traffic may reach; empty: any port.', from: 'Sources the traffic may come from; empty: any source.' },
  'Incoming traffic that is allowed: from any of the sources, to any of the ports.',
);

const egressRule = described(
  obj({ ports: atomicList(port), to: atomicList(peer) }),
  { ports: 'Ports the traffic may go to; empty: any port.', to: 'Destinations the traffic may go to; empty: any destination.' },
  'Outgoing traffic that is allowed: to any of the destinations, on any of the ports.',
);

const policySpec = described(
  obj(
    {
      podSelector: labelSelector,
      ingress: atomicList(ingressRule),
      egress: atomicList(egressRule),
      policyTypes: atomicList(strEnum('Ingress', 'Egress')),
    },
    ['podSelector'],
  ),
  {
    podSelector: 'Pods in the namespace of the policy that it applies to; an empty selector means all of them.',
    ingress: 'Incoming traffic allowed to the selected pods. With Ingress in policyTypes and no rules, no incoming traffic is allowed.',
    egress: 'Outgoing traffic allowed from the selected pods. With Egress in policyTypes and no rules, no outgoing traffic is allowed.',
    policyTypes: 'Directions the policy isolates the pods in. Unset: Ingress, plus Egress when egress rules are given (the server fills it in).',
  },
  'Which pods the policy isolates, and the traffic it allows them.',
);

const schema = described(
  obj({ spec: policySpec }),
  { spec: 'Which pods the policy isolates, and the traffic it allows them.' },
  'A network policy: makes the pods it selects accept only the traffic its rules, or other policies selecting them, allow. The network plugin of the cluster enforces it; the server only stores and validates it.',
);

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
