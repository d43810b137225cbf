// Fields of an object that hold an API group's name (a binding's `roleRef.apiGroup`, its
// subjects' `apiGroup`), renamed between the spellings of a group the way apiVersion is: an object
// read through an upstream alias shows the alias, an object written through it is stored with the
// canonical name. Paths are dotted; `name[]` walks every item of a list.

import type { ApiObject } from '../api/types.js';

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `node` with the value at `steps` renamed from `from` to `to`; the same node when nothing changed (no copy). */
function renameAt(node: unknown, steps: readonly string[], from: string, to: string): unknown {
  if (steps.length === 0) return node === from ? to : node;
  if (!isObject(node)) return node;
  const [step, ...rest] = steps as [string, ...string[]];
  const list = step.endsWith('[]');
  const key = list ? step.slice(0, -2) : step;
  const child = node[key];
  if (child === undefined) return node;
  let next: unknown;
  if (list) {
    if (!Array.isArray(child)) return node;
    const items = child.map((item) => renameAt(item, rest, from, to));
    next = items.some((item, i) => item !== child[i]) ? items : child;
  } else {
    next = renameAt(child, rest, from, to);
  }
  return next === child ? node : { ...node, [key]: next };
}

/** `o` with every group name at `paths` that reads `from` reading `to`; `o` itself when none does. */
export function renameGroupNameFields(o: ApiObject, paths: readonly string[] | undefined, from: string, to: string): ApiObject {
  let out: unknown = o;
  for (const path of paths ?? []) out = renameAt(out, path.split('.'), from, to);
  return out as ApiObject;
}
