// The registry of every built-in type, honouring `--runtime-config`.

import { builtinTypes } from './builtin-types.js';
import { Registry, type RegistryOptions } from './registry.js';

export function createBuiltinRegistry(opts: RegistryOptions = {}): Registry {
  return new Registry(builtinTypes, opts);
}
