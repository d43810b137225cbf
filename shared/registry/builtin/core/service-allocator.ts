// Cluster IPs and node ports of Services, claimed in the store as claim records
// (service-claims.ts). Claims are made after validation and before validating admission
// (upstream's BeginCreate), given back when the write fails or once the Service no longer needs
// them (delete, type change).

import { invalid, type FieldError } from '../../../api/status.js';
import type { ApiObject } from '../../../api/types.js';
import { invalidValue } from '../../../api/field-errors.js';
import { formatIP, offsetIn, parseIP, type Cidr, type IPFamily } from '../../../api/ip.js';
import type { Storage } from '../../../contracts/storage.js';
import type { Allocator, Claim } from '../../rest/store-types.js';
import { asArray, asObject, type Json } from '../common/field-errors.js';
import { canonicalIP, claimsOf, ClaimLedger, holderOf, IP_CLAIMS, ipClaimsOf, ipPool, PORT_CLAIMS, portPool, type Holder, type Pool, type Taken } from './service-claims.js';
import { HEADLESS, initIPFamilies, isHeadless, needsClusterIP, needsHealthCheckNodePort, needsNodePorts, nodePortsOf, portRangeText, rangeOf, type ServiceNetwork } from './service-network.js';

/** The allocator of Services, its claim records kept in `storage`. */
export function serviceAllocator(net: ServiceNetwork, storage: Storage, now: () => number = Date.now): Allocator {
  return new ServiceAllocator(net, new ClaimLedger(storage, now));
}

class ServiceAllocator implements Allocator {
  private readonly ports: Pool;

  constructor(
    private readonly net: ServiceNetwork,
    private readonly ledger: ClaimLedger,
  ) {
    this.ports = portPool(net);
  }

  async claim(next: ApiObject, old: ApiObject | null, dryRun: boolean): Promise<Claim> {
    const famErrs = initIPFamilies(next, old, this.net);
    if (famErrs.length) throw invalid('Service', '', next.metadata.name ?? '', famErrs);
    const run = new ClaimRun(this.net, this.ports, this.ledger, next, old, dryRun);
    try {
      await run.clusterIPs();
      await run.nodePorts();
      await run.healthCheckNodePort();
      run.refuseErrors();
    } catch (err) {
      await run.abort();
      throw err;
    }
    return { commit: () => this.releaseReplaced(next, old), abort: () => run.abort() };
  }

  async release(svc: ApiObject): Promise<void> {
    await this.ledger.release(claimsOf(svc), holderOf(svc));
  }

  /** An update is stored: what the old Service held and the new one does not goes back. */
  private async releaseReplaced(next: ApiObject, old: ApiObject | null): Promise<void> {
    if (!old) return;
    const keep = new Set(claimsOf(next).map(key));
    await this.ledger.release(
      claimsOf(old).filter((c) => !keep.has(key(c))),
      holderOf(old),
    );
  }
}

function key(c: Taken): string {
  return `${c.resource}/${c.name}`;
}

/** The claims of one write of a Service: what it takes (given back on abort) and why it cannot (422 causes). */
class ClaimRun {
  private readonly holder: Holder;
  private readonly heldIPs: Set<string>;
  private readonly heldPorts: Set<number>;
  private readonly taken: Taken[] = [];
  private readonly errs: FieldError[] = [];
  private readonly spec: Json;

  constructor(
    private readonly net: ServiceNetwork,
    private readonly ports: Pool,
    private readonly ledger: ClaimLedger,
    private readonly next: ApiObject,
    old: ApiObject | null,
    private readonly dryRun: boolean,
  ) {
    this.holder = holderOf(next);
    this.heldIPs = new Set(old ? ipClaimsOf(old) : []);
    this.heldPorts = new Set(old ? nodePortsOf(old) : []);
    this.spec = (next.spec ??= {}) as Json;
  }

  /** Cluster IPs: the ones asked for, then one per family still missing; a headless Service's `None`. */
  async clusterIPs(): Promise<void> {
    const { next, spec } = this;
    if (!needsClusterIP(next)) return;
    if (isHeadless(next)) {
      spec.clusterIP = HEADLESS;
      spec.clusterIPs = [HEADLESS];
      return;
    }
    const families = asArray(spec.ipFamilies) as IPFamily[];
    const ips = asArray(spec.clusterIPs).filter((x): x is string => typeof x === 'string' && x !== '');
    for (let i = 0; i < families.length; i++) {
      const range = rangeOf(this.net, families[i]!)!;
      const want = ips[i];
      if (want === undefined) ips[i] = await this.any(ipPool(range));
      else await this.askedIP(range, want, ips);
    }
    spec.clusterIPs = ips.slice(0, families.length);
    spec.clusterIP = ips[0];
  }

  /** Node ports: each port's own, reused across protocols of one port number. */
  async nodePorts(): Promise<void> {
    if (!needsNodePorts(this.next)) return;
    const svcPorts = asArray(this.spec.ports).map((p) => asObject(p) ?? {});
    for (const [i, p] of svcPorts.entries()) {
      if (typeof p.nodePort === 'number' && p.nodePort > 0) await this.askedPort(`spec.ports[${i}].nodePort`, p.nodePort);
    }
    for (const p of svcPorts) {
      if (typeof p.nodePort === 'number' && p.nodePort > 0) continue;
      const sibling = svcPorts.find((o) => o !== p && o.port === p.port && typeof o.nodePort === 'number' && o.nodePort > 0);
      p.nodePort = sibling ? sibling.nodePort : Number(await this.any(this.ports));
    }
  }

  async healthCheckNodePort(): Promise<void> {
    if (!needsHealthCheckNodePort(this.next)) return;
    const want = this.spec.healthCheckNodePort;
    if (typeof want === 'number' && want > 0) await this.askedPort('spec.healthCheckNodePort', want);
    else this.spec.healthCheckNodePort = Number(await this.any(this.ports));
  }

  /** 422 with every cause found. */
  refuseErrors(): void {
    if (this.errs.length) throw invalid('Service', '', this.next.metadata.name ?? '', this.errs);
  }

  /** The write did not happen: gives back what it claimed. */
  abort(): Promise<void> {
    return this.ledger.release(this.taken, this.holder);
  }

  /** Any free value of the pool, claimed. */
  private async any(pool: Pool): Promise<string> {
    const value = await this.ledger.pick(pool, this.holder, this.dryRun);
    if (!this.dryRun) this.taken.push({ resource: pool.resource, name: value });
    return value;
  }

  /** A cluster IP the Service asks for (`ips`, the field's value, goes into the causes). */
  private async askedIP(range: Cidr, want: string, ips: string[]): Promise<void> {
    if (this.heldIPs.has(canonicalIP(want))) return;
    const parsed = parseIP(want);
    const offset = parsed && offsetIn(range, parsed);
    if (!parsed || offset === undefined || ipPool(range).reserved(offset)) {
      this.errs.push(invalidValue('spec.clusterIPs', ips, `failed to allocate IP ${want}: the provided IP (${want}) is not in the valid range. The range of valid IPs is ${range.text}`));
      return;
    }
    await this.takeAsked(IP_CLAIMS, formatIP(parsed), () => invalidValue('spec.clusterIPs', ips, `failed to allocate IP ${want}: provided IP is already allocated`));
  }

  /** A node port the Service asks for. */
  private async askedPort(field: string, want: number): Promise<void> {
    if (this.heldPorts.has(want)) return;
    const range = this.net.nodePorts;
    if (want < range.first || want > range.last) {
      this.errs.push(invalidValue(field, want, `provided port is not in the valid range. The range of valid ports is ${portRangeText(range)}`));
      return;
    }
    await this.takeAsked(PORT_CLAIMS, String(want), () => invalidValue(field, want, 'provided port is already allocated'));
    this.heldPorts.add(want);
  }

  private async takeAsked(resource: string, name: string, busy: () => FieldError): Promise<void> {
    const got = await this.ledger.take(resource, name, this.holder, this.dryRun);
    if (got === 'busy') this.errs.push(busy());
    else if (got === 'taken' && !this.dryRun) this.taken.push({ resource, name });
  }
}
