// The SELinux rule of a PodSecurityPolicy (upstream's podsecuritypolicy/selinux): MustRunAs
// defaults the pod's seLinuxOptions to the policy's and requires every label to match it, levels
// compared with their categories in any order (`s0:c1,c2` is `s0:c2,c1`); RunAsAny allows anything.

import { invalid, required, type PspFieldError } from './field-errors.js';
import { StrategyError } from './id-strategies.js';

export interface SELinuxOptions {
  user?: string;
  role?: string;
  type?: string;
  level?: string;
}

export interface SELinuxStrategy {
  generate(): SELinuxOptions | undefined;
  validate(field: string, options: SELinuxOptions | undefined): PspFieldError[];
}

function sameCategories(a: string, b: string): boolean {
  const x = a.split(',').sort();
  const y = b.split(',').sort();
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/** Levels are `<sensitivity>:<categories>`; only the category set's order may differ. */
export function equalLevels(expected: string, actual: string): boolean {
  if (expected === actual) return true;
  const e = expected.split(/:(.*)/s);
  const a = actual.split(/:(.*)/s);
  if (e.length < 2 || a.length < 2) return false;
  return e[0] === a[0] && sameCategories(e[1]!, a[1]!);
}

export function seLinuxStrategy(opts: { rule?: string; seLinuxOptions?: SELinuxOptions } | undefined): SELinuxStrategy {
  switch (opts?.rule) {
    case 'MustRunAs': {
      const want = opts.seLinuxOptions;
      if (!want) throw new StrategyError('MustRunAs requires SELinuxOptions');
      return {
        generate: () => ({ ...want }),
        validate(field, got) {
          if (!got) return [required(field)];
          const errs: PspFieldError[] = [];
          if (!equalLevels(want.level ?? '', got.level ?? '')) errs.push(invalid(`${field}.level`, got.level ?? '', `must be ${want.level ?? ''}`));
          for (const k of ['role', 'type', 'user'] as const) {
            if ((got[k] ?? '') !== (want[k] ?? '')) errs.push(invalid(`${field}.${k}`, got[k] ?? '', `must be ${want[k] ?? ''}`));
          }
          return errs;
        },
      };
    }
    case 'RunAsAny':
      return { generate: () => undefined, validate: () => [] };
    default:
      throw new StrategyError(`Unrecognized SELinuxContext strategy type ${opts?.rule ?? ''}`);
  }
}
