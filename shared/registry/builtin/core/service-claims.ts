// The claim records behind Services' cluster IPs and node ports (service-allocator.ts decides what
// a Service needs). Each address and each port in use is a record of its own under an internal
// (unserved) resource, named by the address or the port and naming the Service that holds it
// (upstream's IPAddress objects, for ports too): claiming is a create-if-absent of that key in
// storage, so two concurrent creates can never hold the same address, and there is no shared
// bitmap to contend on. A claim left by a write that crashed half way is taken over once it is
// older than a grace period and its Service does not hold it.

import { randomInt } from 'node:crypto';
import { internalError, StatusError } from '../../../api/status.js';
import type { ApiObject, ObjectRef } from '../../../api/types.js';
import { addressAt, cidrSize, formatIP, parseIP, type Cidr } from '../../../api/ip.js';
import { lookup, type Storage } from '../../../contracts/storage.js';
import { asObject, type Json } from '../common/field-errors.js';
import { clusterIPsOf, nodePortsOf, type ServiceNetwork } from './service-network.js';

const CLAIM_GROUP = 'internal.platform.io';
export const IP_CLAIMS = 'serviceipclaims';
export const PORT_CLAIMS = 'servicenodeportclaims';
/** A claim whose Service does not hold it is taken over only after this long (its write may still be under way). */
const STALE_CLAIM_MS = 30_000;
/** Random tries in the dynamic band before walking the range. */
const RANDOM_TRIES = 16;
/** How far a walk of a range goes before calling it full. */
const MAX_WALK = 65_536;

/** The values of one range, by offset. */
export interface Pool {
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

export function ipPool(c: Cidr): Pool {
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

export function portPool(net: ServiceNetwork): Pool {
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

/** The Service a claim names. */
export interface Holder {
  namespace: string;
  name: string;
  uid: string;
}

export function holderOf(svc: ApiObject): Holder {
  return { namespace: svc.metadata.namespace ?? '', name: svc.metadata.name ?? '', uid: svc.metadata.uid ?? '' };
}

/** An address in one spelling (RFC 5952, IPv4-mapped as IPv4): a claim's name, and what holding compares. */
export function canonicalIP(ip: string): string {
  const parsed = parseIP(ip);
  return parsed ? formatIP(parsed) : ip;
}

/** The Service's cluster IPs as claim names. */
export function ipClaimsOf(svc: ApiObject): string[] {
  return clusterIPsOf(svc).map(canonicalIP);
}

/** A claim record by resource and name. */
export interface Taken {
  resource: string;
  name: string;
}

/** Every claim a Service's cluster IPs and node ports stand for. */
export function claimsOf(svc: ApiObject): Taken[] {
  return [...ipClaimsOf(svc).map((ip) => ({ resource: IP_CLAIMS, name: ip })), ...nodePortsOf(svc).map((p) => ({ resource: PORT_CLAIMS, name: String(p) }))];
}

/** What taking a value came to: created or taken over, already the holder's, or someone else's. */
export type TakeOutcome = 'taken' | 'held' | 'busy';

/** The claim records in storage. */
export class ClaimLedger {
  constructor(
    private readonly storage: Storage,
    private readonly now: () => number,
  ) {}

  /**
   * Whether `name` is (now) held by `holder`: created when free, kept when it is the holder's
   * already, taken over when stale. False when someone else holds it. Dry runs only look.
   */
  async take(resource: string, name: string, holder: Holder, dryRun: boolean): Promise<TakeOutcome> {
    const ref = claimRef(resource, name);
    if (!dryRun) {
      try {
        await this.storage.create(ref, claimRecord(resource, name, holder));
        return 'taken';
      } catch (err) {
        if (!isStatus(err, 'AlreadyExists')) throw err;
      }
    }
    const existing = await lookup(this.storage, ref);
    if (!existing) return dryRun ? 'taken' : this.take(resource, name, holder, dryRun);
    const parent = parentOf(existing.object);
    if (parent.uid === holder.uid && parent.namespace === holder.namespace && parent.name === holder.name) return 'held';
    const created = Date.parse(existing.object.metadata.creationTimestamp ?? '');
    if (!(this.now() - created > STALE_CLAIM_MS) || (await this.parentHolds(resource, name, parent))) return 'busy';
    if (dryRun) return 'taken';
    try {
      await this.storage.update(ref, claimRecord(resource, name, holder), existing.revision);
      return 'taken';
    } catch (err) {
      if (isStatus(err, 'Conflict') || isStatus(err, 'NotFound')) return 'busy';
      throw err;
    }
  }

  /** Any free value of the pool: random tries in the dynamic band, then a walk of the whole pool. */
  async pick(pool: Pool, holder: Holder, dryRun: boolean): Promise<string> {
    const span = pool.size - pool.dynamicFrom;
    for (let i = 0; i < RANDOM_TRIES && span > 0n; i++) {
      const offset = pool.dynamicFrom + randomBig(span);
      if (pool.reserved(offset)) continue;
      if ((await this.take(pool.resource, pool.name(offset), holder, dryRun)) === 'taken') return pool.name(offset);
    }
    const start = randomBig(pool.size);
    const walk = pool.size < BigInt(MAX_WALK) ? pool.size : BigInt(MAX_WALK);
    for (let i = 0n; i < walk; i++) {
      const offset = (start + i) % pool.size;
      if (pool.reserved(offset)) continue;
      if ((await this.take(pool.resource, pool.name(offset), holder, dryRun)) === 'taken') return pool.name(offset);
    }
    throw internalError(`failed to allocate a ${pool.noun}: range is full`);
  }

  /** Gives back each of `taken` that `holder` still holds; best effort. */
  async release(taken: readonly Taken[], holder: Holder): Promise<void> {
    await Promise.all(taken.map((t) => this.giveBack(t.resource, t.name, holder).catch(() => undefined)));
  }

  private async giveBack(resource: string, name: string, holder: Holder): Promise<void> {
    const ref = claimRef(resource, name);
    const existing = await lookup(this.storage, ref);
    if (!existing || parentOf(existing.object).uid !== holder.uid) return;
    try {
      await this.storage.delete(ref, existing.revision);
    } catch (err) {
      if (!isStatus(err, 'Conflict') && !isStatus(err, 'NotFound')) throw err;
    }
  }

  /** Whether the Service named by a claim still holds what the claim is for. */
  private async parentHolds(resource: string, name: string, parent: Holder): Promise<boolean> {
    const svc = await lookup(this.storage, { group: '', resource: 'services', namespace: parent.namespace, name: parent.name });
    if (!svc || svc.object.metadata.uid !== parent.uid) return false;
    return resource === IP_CLAIMS ? ipClaimsOf(svc.object).includes(name) : nodePortsOf(svc.object).includes(Number(name));
  }
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

function randomBig(n: bigint): bigint {
  if (n <= 0n) return 0n;
  if (n <= 0xffffffffffffn) return BigInt(randomInt(Number(n)));
  // Wide IPv6 ranges: 48 random bits at a time.
  let r = 0n;
  for (let bits = 0n; bits < 128n; bits += 48n) r = (r << 48n) | BigInt(randomInt(0xffffffffffff));
  return r % n;
}
