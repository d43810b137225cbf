// The uid and gid rules of a PodSecurityPolicy (upstream's podsecuritypolicy/user and /group):
// what a container or pod gets when it names no id, and whether the ids it names are allowed.
// A rule a policy cannot be built with (MustRunAs without ranges) is a construction error: that
// policy is then skipped, as upstream skips a provider it cannot create.

import { int64Slice, invalid, rangesText, required, type IdRange, type PspFieldError } from './field-errors.js';

export interface RunAsUserStrategy {
  /** The uid to default a container to (undefined: leave it). */
  generate(): number | undefined;
  /** `scPath` is the container's `…securityContext`; the values are the effective ones. */
  validate(scPath: string, runAsNonRoot: boolean | undefined, runAsUser: number | undefined): PspFieldError[];
}

export interface GroupStrategy {
  /** Supplemental groups to default to. */
  generate(): number[] | undefined;
  /** fsGroup / runAsGroup to default to. */
  generateSingle(): number | undefined;
  validate(field: string, groups: number[] | undefined): PspFieldError[];
}

export class StrategyError extends Error {
  override name = 'StrategyError';
}

const inRanges = (id: number, ranges: readonly IdRange[]): boolean => ranges.some((r) => id >= r.min && id <= r.max);

export function runAsUserStrategy(opts: { rule?: string; ranges?: IdRange[] } | undefined): RunAsUserStrategy {
  const rule = opts?.rule;
  const ranges = opts?.ranges ?? [];
  switch (rule) {
    case 'MustRunAs':
      if (!ranges.length) throw new StrategyError('MustRunAs requires at least one range');
      return {
        generate: () => ranges[0]!.min,
        validate(scPath, _nonRoot, uid) {
          if (uid === undefined) return [required(`${scPath}.runAsUser`)];
          return inRanges(uid, ranges) ? [] : [invalid(`${scPath}.runAsUser`, uid, `must be in the ranges: ${rangesText(ranges)}`)];
        },
      };
    case 'MustRunAsNonRoot':
      return {
        generate: () => undefined,
        validate(scPath, nonRoot, uid) {
          if (nonRoot === undefined && uid === undefined) return [required(`${scPath}.runAsNonRoot`, 'must be true')];
          if (nonRoot === false) return [invalid(`${scPath}.runAsNonRoot`, false, 'must be true')];
          if (uid === 0) return [invalid(`${scPath}.runAsUser`, 0, 'running with the root UID is forbidden')];
          return [];
        },
      };
    case 'RunAsAny':
      return { generate: () => undefined, validate: () => [] };
    default:
      throw new StrategyError(`Unrecognized RunAsUser strategy type ${rule ?? ''}`);
  }
}

function validateGroupsInRanges(field: string, ranges: readonly IdRange[], groups: number[] | undefined): PspFieldError[] {
  return (groups ?? []).filter((g) => !inRanges(g, ranges)).map((g) => invalid(field, int64Slice(groups), `group ${g} must be in the ranges: ${rangesText(ranges)}`));
}

/** fsGroup, supplementalGroups and runAsGroup share these rules; an omitted runAsGroup is RunAsAny. */
export function groupStrategy(opts: { rule?: string; ranges?: IdRange[] } | undefined, omittedMeansAny = false): GroupStrategy {
  const rule = opts === undefined && omittedMeansAny ? 'RunAsAny' : opts?.rule;
  const ranges = opts?.ranges ?? [];
  switch (rule) {
    case 'MustRunAs':
      if (!ranges.length) throw new StrategyError('ranges must be supplied for MustRunAs');
      return {
        generate: () => [ranges[0]!.min],
        generateSingle: () => ranges[0]!.min,
        validate(field, groups) {
          const errs: PspFieldError[] = [];
          if (!groups?.length) errs.push(invalid(field, int64Slice(groups), 'unable to validate empty groups against required ranges'));
          errs.push(...validateGroupsInRanges(field, ranges, groups));
          return errs;
        },
      };
    case 'MayRunAs':
      if (!ranges.length) throw new StrategyError('ranges must be supplied for MayRunAs');
      return { generate: () => undefined, generateSingle: () => undefined, validate: (field, groups) => validateGroupsInRanges(field, ranges, groups) };
    case 'RunAsAny':
      return { generate: () => undefined, generateSingle: () => undefined, validate: () => [] };
    default:
      throw new StrategyError(`Unrecognized group strategy type ${rule ?? ''}`);
  }
}
