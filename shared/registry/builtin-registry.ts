// The registry of every built-in type, honouring `--runtime-config`.

import { builtinTypes } from './builtin-types.js';
import { Registry } from './registry.js';

export function createBuiltinRegistry(opts: { runtimeConfig?: string } = {}): Registry {
  return new Registry(builtinTypes, opts);
}
