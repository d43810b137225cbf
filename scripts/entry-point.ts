// Whether the module at `moduleUrl` is the one node was asked to run (`node x.ts`, a symlink to
// it included), so a script that tests import does not start itself.

import { realpathSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

export function isEntryPoint(moduleUrl: string): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(moduleUrl));
  } catch {
    return moduleUrl === pathToFileURL(script).href;
  }
}
