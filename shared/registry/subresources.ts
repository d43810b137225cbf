// Which subresources the generic handlers serve for a type, and with which verbs: `status` and
// `scale` from their declarations, any other name only when the type's strategy says how an
// update through it is prepared. Also the boot check that a type's strategy and its discovery
// entry agree, so what discovery lists is what the routes serve.

import type { ResourceType, SubresourceStrategy, VersionDef } from './types.js';
import { restAction } from './rest/hooks.js';
import { allSubresources, versionSubresources } from './version-parts.js';

/** The verbs of `/status` and `/scale`, and the most any update-style subresource is served with. */
export const UPDATE_SUBRESOURCE_VERBS: readonly string[] = ['get', 'patch', 'update'];

/** The strategy of an update through `name`; own keys only (a URL segment may be `constructor`). */
export function subresourceStrategy(type: ResourceType, name: string): SubresourceStrategy | undefined {
  const hooks = type.strategy?.subresources;
  return hooks && Object.hasOwn(hooks, name) ? hooks[name] : undefined;
}

/** Verbs the generic handlers serve on `<resource>/<name>` through `version`; undefined when they do not serve it there. */
export function servedSubresourceVerbs(type: ResourceType, name: string, version?: VersionDef): readonly string[] | undefined {
  const subs = versionSubresources(type, version) ?? {};
  if (name === 'status') return subs.status ? UPDATE_SUBRESOURCE_VERBS : undefined;
  if (name === 'scale') return subs.scale ? UPDATE_SUBRESOURCE_VERBS : undefined;
  if (!subresourceStrategy(type, name)) return undefined;
  return subs.others?.find((o) => o.name === name)?.verbs.filter((v) => UPDATE_SUBRESOURCE_VERBS.includes(v));
}

/** Problems of a type whose subresource strategies and discovery entry disagree (empty when fine). */
export function subresourceStrategyProblems(type: ResourceType): string[] {
  const problems: string[] = [];
  // A strategy is the type's, for whichever versions serve the subresource.
  const all = allSubresources(type);
  for (const name of Object.keys(type.strategy?.subresources ?? {})) {
    if (name === 'scale') problems.push(`${type.kind}: /scale is served as a Scale view and takes no strategy`);
    else if (name === 'status') {
      if (!all.some((s) => s.status)) problems.push(`${type.kind}: a status strategy needs subresources.status`);
    } else {
      const listed = all.flatMap((s) => s.others ?? []).find((o) => o.name === name);
      if (!listed) problems.push(`${type.kind}: subresource "${name}" has a strategy but is not listed in subresources.others`);
      // A REST hook may write through a subresource strategy of its own (pods/binding).
      else if (!listed.verbs.some((v) => UPDATE_SUBRESOURCE_VERBS.includes(v)) && !restAction(type.rest, name))
        problems.push(`${type.kind}: subresource "${name}" lists none of the verbs ${UPDATE_SUBRESOURCE_VERBS.join(', ')}`);
    }
  }
  return problems;
}
