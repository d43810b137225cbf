// Cluster IPs and node ports of Services, claimed in the store. Each address and each port in use
// is a claim record of its own under an internal (unserved) resource, named by the address or the
// port and naming the Service that holds it (upstream's IPAddress objects, for ports too): claiming
// is a create-if-absent of that key, so two concurrent creates can never hold the same address,
// and there is no shared bitmap to contend on. Claims are made after validation and before
// validating admission (upstream's BeginCreate), given back when the write fails or once the
// Service no longer needs them (delete, type change). A claim left by a write that crashed half
// way is taken over once it is older than a grace period and its Service does not hold it.

import { randomInt } from 'node:crypto';
import { internalError, invalid, StatusError, type FieldError } from '../../../api/status.js';
import type { ApiObject, ObjectRef } from '../../../api/types.js';
import { invalidValue } from '../../../api/field-errors.js';
import { addressAt, cidrSize, formatIP, offsetIn, parseIP, type Cidr, type IPFamily } from '../../../api/ip.js';
import { Subjects } from '../../../bus/subjects.js';
import type { StorageGetReply, StorageWriteReply } from '../../../bus/messages.js';
import type { BusRequest } from '../../types.js';
import type { Allocator, Claim } from '../../rest/generic-store.js';
import { asArray, asObject, type Json } from '../common/field-errors.js';
import {
  clusterIPsOf,
  HEADLESS,
  initIPFamilies,
  isHeadless,
  needsClusterIP,
  needsHealthCheckNodePort,
  needsNodePorts,
  nodePortsOf,
  portRangeText,
  rangeOf,
  type ServiceNetwork,
} from './service-network.js';

const CLAIM_GROUP = 'internal.platform.io';
const IP_CLAIMS = 'serviceipclaims';
const PORT_CLAIMS = 'servicenodeportclaims';
/** A claim whose Service does not hold it is taken over only after this long (its write may still be under way). */
const STALE_CLAIM_MS = 30_000;
/** Random tries in the dynamic band before walking the range. */
const RANDOM_TRIES = 16;
/** How far a walk of a range goes before calling it full. */
const MAX_WALK = 65_536;

interface Pool {
  resource: string;
  /** Offsets handed out: 0 … size-1, the name of each. */
  size: bigint;
  /** Offsets below it are left to Services asking for a specific value (upstream's static band). */
  dynamicFrom: bigint;
  /** Offsets that are never handed out (IPv4 network and broadcast addresses). */
  reserved(offset: bigint): boolean;
  name(offset: bigint): string;
  /** What `allocation failed: …` says about a full pool. */
  noun: string;
}

function staticBand(size: bigint): bigint {
  const band = size / 16n;
  return band < 16n ? 16n : band > 256n ? 256n : band;
}

function ipPool(c: Cidr): Pool {
  const size = cidrSize(c);
  const last = size - 1n;
  return {
    resource: IP_CLAIMS,
    size,
    dynamicFrom: size > 64n ? staticBand(size) : 1n,
    reserved: (o) => o === 0n || (c.family === 'IPv4' && o === last),
    name: (o) => addressAt(c, o),
    noun: 'serviceIP',
  };
}

function portPool(net: ServiceNetwork): Pool {
  const size = BigInt(net.nodePorts.last - net.nodePorts.first + 1);
  return {
    resource: PORT_CLAIMS,
    size,
    dynamicFrom: size > 64n ? staticBand(size) : 0n,
    reserved: () => false,
    name: (o) => String(BigInt(net.nodePorts.first) + o),
    noun: 'nodePort',
  };
}

interface Holder {
  namespace: string;
  name: string;
  uid: string;
}

/** An address in one spelling (RFC 5952, IPv4-mapped as IPv4): a claim's name, and what holding compares. */
function canonicalIP(ip: string): string {
  const parsed = parseIP(ip);
  return parsed ? formatIP(parsed) : ip;
}

/** The Service's cluster IPs as claim names. */
function ipClaimsOf(svc: ApiObject): string[] {
  return clusterIPsOf(svc).map(canonicalIP);
}

function holderOf(svc: ApiObject): Holder {
  return { namespace: svc.metadata.namespace ?? '', name: svc.metadata.name ?? '', uid: svc.metadata.uid ?? '' };
}

function claimRef(resource: string, name: string): ObjectRef {
  return { group: CLAIM_GROUP, resource, name };
}

function claimRecord(resource: string, name: string, holder: Holder): ApiObject {
  const kind = resource === IP_CLAIMS ? 'ServiceIPClaim' : 'ServiceNodePortClaim';
  return { apiVersion: `${CLAIM_GROUP}/v1`, kind, metadata: { name }, parentRef: { group: '', resource: 'services', ...holder } } as unknown as ApiObject;
}

function parentOf(record: ApiObject): Holder {
  const p = (asObject((record as Json).parentRef) ?? {}) as Record<string, string>;
  return { namespace: p.namespace ?? '', name: p.name ?? '', uid: p.uid ?? '' };
}

function isStatus(err: unknown, reason: string): boolean {
  return err instanceof StatusError && err.status.reason === reason;
}

/** Claims taken for one write, given back on abort. */
interface Taken {
  resource: string;
  name: string;
}

export function serviceAllocator(net: ServiceNetwork, bus: BusRequest, now: () => number = Date.now): Allocator {
  const ports = portPool(net);

  async function get(ref: ObjectRef): Promise<StorageGetReply | undefined> {
    try {
      return await bus<StorageGetReply>(Subjects.storageGet, { ref });
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return undefined;
      throw err;
    }
  }

  /** Whether the Service named by a claim still holds what the claim is for. */
  async function parentHolds(resource: string, name: string, parent: Holder): Promise<boolean> {
    const svc = await get({ group: '', resource: 'services', namespace: parent.namespace, name: parent.name });
    if (!svc || svc.object.metadata.uid !== parent.uid) return false;
    return resource === IP_CLAIMS ? ipClaimsOf(svc.object).includes(name) : nodePortsOf(svc.object).includes(Number(name));
  }

  /**
   * Whether `name` is (now) held by `holder`: created when free, kept when it is the holder's
   * already, taken over when stale. False when someone else holds it. Dry runs only look.
   */
  async function take(resource: string, name: string, holder: Holder, dryRun: boolean): Promise<'taken' | 'held' | 'busy'> {
    const ref = claimRef(resource, name);
    if (!dryRun) {
      try {
        await bus<StorageWriteReply>(Subjects.storageCreate, { ref, object: claimRecord(resource, name, holder) });
        return 'taken';
      } catch (err) {
        if (!isStatus(err, 'AlreadyExists')) throw err;
      }
    }
    const existing = await get(ref);
    if (!existing) return dryRun ? 'taken' : take(resource, name, holder, dryRun);
    const parent = parentOf(existing.object);
    if (parent.uid === holder.uid && parent.namespace === holder.namespace && parent.name === holder.name) return 'held';
    const created = Date.parse(existing.object.metadata.creationTimestamp ?? '');
    if (!(now() - created > STALE_CLAIM_MS) || (await parentHolds(resource, name, parent))) return 'busy';
    if (dryRun) return 'taken';
    try {
      await bus<StorageWriteReply>(Subjects.storageUpdate, { ref, object: claimRecord(resource, name, holder), expectedRevision: existing.revision });
      return 'taken';
    } catch (err) {
      if (isStatus(err, 'Conflict') || isStatus(err, 'NotFound')) return 'busy';
      throw err;
    }
  }

  async function giveBack(resource: string, name: string, holder: Holder): Promise<void> {
    const ref = claimRef(resource, name);
    const existing = await get(ref);
    if (!existing || parentOf(existing.object).uid !== holder.uid) return;
    try {
      await bus(Subjects.storageDelete, { ref, expectedRevision: existing.revision });
    } catch (err) {
      if (!isStatus(err, 'Conflict') && !isStatus(err, 'NotFound')) throw err;
    }
  }

  /** Any free value of the pool: random tries in the dynamic band, then a walk of the whole pool. */
  async function pick(pool: Pool, holder: Holder, dryRun: boolean): Promise<string> {
    const span = pool.size - pool.dynamicFrom;
    for (let i = 0; i < RANDOM_TRIES && span > 0n; i++) {
      const offset = pool.dynamicFrom + randomBig(span);
      if (pool.reserved(offset)) continue;
      if ((await take(pool.resource, pool.name(offset), holder, dryRun)) === 'taken') return pool.name(offset);
    }
    const start = randomBig(pool.size);
    const walk = pool.size < BigInt(MAX_WALK) ? pool.size : BigInt(MAX_WALK);
    for (let i = 0n; i < walk; i++) {
      const offset = (start + i) % pool.size;
      if (pool.reserved(offset)) continue;
      if ((await take(pool.resource, pool.name(offset), holder, dryRun)) === 'taken') return pool.name(offset);
    }
    throw internalError(`failed to allocate a ${pool.noun}: range is full`);
  }

  async function release(taken: readonly Taken[], holder: Holder): Promise<void> {
    await Promise.all(taken.map((t) => giveBack(t.resource, t.name, holder).catch(() => undefined)));
  }

  return {
    async claim(next, old, dryRun) {
      const kind = 'Service';
      const name = next.metadata.name ?? '';
      const famErrs = initIPFamilies(next, old, net);
      if (famErrs.length) throw invalid(kind, '', name, famErrs);
      const holder = holderOf(next);
      const heldIPs = new Set(old ? ipClaimsOf(old) : []);
      const heldPorts = new Set(old ? nodePortsOf(old) : []);
      const taken: Taken[] = [];
      const errs: FieldError[] = [];
      const spec = (next.spec ??= {}) as Json;
      try {
        // Cluster IPs: the ones asked for, then one per family still missing.
        if (needsClusterIP(next) && !isHeadless(next)) {
          const families = asArray(spec.ipFamilies) as IPFamily[];
          const ips = asArray(spec.clusterIPs).filter((x): x is string => typeof x === 'string' && x !== '');
          for (let i = 0; i < families.length; i++) {
            const range = rangeOf(net, families[i]!)!;
            const want = ips[i];
            if (want === undefined) {
              const ip = await pick(ipPool(range), holder, dryRun);
              if (!dryRun) taken.push({ resource: IP_CLAIMS, name: ip });
              ips[i] = ip;
              continue;
            }
            if (heldIPs.has(canonicalIP(want))) continue;
            const parsed = parseIP(want);
            const offset = parsed && offsetIn(range, parsed);
            if (!parsed || offset === undefined || ipPool(range).reserved(offset)) {
              errs.push(invalidValue('spec.clusterIPs', ips, `failed to allocate IP ${want}: the provided IP (${want}) is not in the valid range. The range of valid IPs is ${range.text}`));
              continue;
            }
            const claimName = formatIP(parsed);
            const got = await take(IP_CLAIMS, claimName, holder, dryRun);
            if (got === 'busy') errs.push(invalidValue('spec.clusterIPs', ips, `failed to allocate IP ${want}: provided IP is already allocated`));
            else if (got === 'taken' && !dryRun) taken.push({ resource: IP_CLAIMS, name: claimName });
          }
          spec.clusterIPs = ips.slice(0, families.length);
          spec.clusterIP = ips[0];
        } else if (needsClusterIP(next)) {
          spec.clusterIP = HEADLESS;
          spec.clusterIPs = [HEADLESS];
        }

        // Node ports: each port's own, reused across protocols of one port number; then the health check port.
        const portErrs = async (field: string, want: number): Promise<void> => {
          if (heldPorts.has(want)) return;
          if (want < net.nodePorts.first || want > net.nodePorts.last) {
            errs.push(invalidValue(field, want, `provided port is not in the valid range. The range of valid ports is ${portRangeText(net.nodePorts)}`));
            return;
          }
          const got = await take(PORT_CLAIMS, String(want), holder, dryRun);
          if (got === 'busy') errs.push(invalidValue(field, want, 'provided port is already allocated'));
          else if (got === 'taken' && !dryRun) taken.push({ resource: PORT_CLAIMS, name: String(want) });
          heldPorts.add(want);
        };
        if (needsNodePorts(next)) {
          const svcPorts = asArray(spec.ports).map((p) => asObject(p) ?? {});
          for (const [i, p] of svcPorts.entries()) {
            if (typeof p.nodePort === 'number' && p.nodePort > 0) await portErrs(`spec.ports[${i}].nodePort`, p.nodePort);
          }
          for (const p of svcPorts) {
            if (typeof p.nodePort === 'number' && p.nodePort > 0) continue;
            const sibling = svcPorts.find((o) => o !== p && o.port === p.port && typeof o.nodePort === 'number' && o.nodePort > 0);
            if (sibling) {
              p.nodePort = sibling.nodePort;
              continue;
            }
            const port = await pick(ports, holder, dryRun);
            if (!dryRun) taken.push({ resource: PORT_CLAIMS, name: port });
            p.nodePort = Number(port);
          }
        }
        if (needsHealthCheckNodePort(next)) {
          const want = spec.healthCheckNodePort;
          if (typeof want === 'number' && want > 0) await portErrs('spec.healthCheckNodePort', want);
          else {
            const port = await pick(ports, holder, dryRun);
            if (!dryRun) taken.push({ resource: PORT_CLAIMS, name: port });
            spec.healthCheckNodePort = Number(port);
          }
        }
        if (errs.length) throw invalid(kind, '', name, errs);
      } catch (err) {
        await release(taken, holder);
        throw err;
      }

      const claim: Claim = {
        async commit() {
          if (!old) return;
          const keepIPs = new Set(ipClaimsOf(next));
          const keepPorts = new Set(nodePortsOf(next));
          const oldHolder = holderOf(old);
          await release(
            [
              ...ipClaimsOf(old)
                .filter((ip) => !keepIPs.has(ip))
                .map((ip) => ({ resource: IP_CLAIMS, name: ip })),
              ...nodePortsOf(old)
                .filter((p) => !keepPorts.has(p))
                .map((p) => ({ resource: PORT_CLAIMS, name: String(p) })),
            ],
            oldHolder,
          );
        },
        abort: () => release(taken, holder),
      };
      return claim;
    },

    async release(svc) {
      await release([...ipClaimsOf(svc).map((ip) => ({ resource: IP_CLAIMS, name: ip })), ...nodePortsOf(svc).map((p) => ({ resource: PORT_CLAIMS, name: String(p) }))], holderOf(svc));
    },
  };
}

function randomBig(n: bigint): bigint {
  if (n <= 0n) return 0n;
  if (n <= 0xffffffffffffn) return BigInt(randomInt(Number(n)));
  // Wide IPv6 ranges: 48 random bits at a time.
  let r = 0n;
  for (let bits = 0n; bits < 128n; bits += 48n) r = (r << 48n) | BigInt(randomInt(0xffffffffffff));
  return r % n;
}
