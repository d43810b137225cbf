// The `--authorization-mode` names and their factories. Names the spec lists but that are not
// built yet are known, so the start-up error can say "not implemented" instead of "unknown".

import type { Authorizer, ModeContext, ModeFactory } from './types.js';
import { alwaysAllowMode } from './authorizers/always-allow.js';
import { alwaysDenyMode } from './authorizers/always-deny.js';

export const implementedModes: Readonly<Record<string, ModeFactory>> = {
  AlwaysAllow: alwaysAllowMode,
  AlwaysDeny: alwaysDenyMode,
};

/** Every mode the spec defines (`--authorization-mode`), implemented or not. */
export const knownModes = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'RBAC', 'Node', 'Webhook'] as const;

export class AuthzConfigError extends Error {
  override name = 'AuthzConfigError';
}

/** Checks the mode list the way upstream does: non-empty, known, implemented, no repeats. */
export function validateModes(modes: string[]): void {
  if (modes.length === 0) throw new AuthzConfigError('--authorization-mode: at least one mode is required');
  const seen = new Set<string>();
  for (const mode of modes) {
    if (seen.has(mode)) throw new AuthzConfigError(`--authorization-mode: mode "${mode}" is specified more than once`);
    seen.add(mode);
    if (!(knownModes as readonly string[]).includes(mode)) {
      throw new AuthzConfigError(`--authorization-mode: unknown mode "${mode}" (valid modes: ${knownModes.join(', ')})`);
    }
    if (!Object.hasOwn(implementedModes, mode)) {
      throw new AuthzConfigError(`--authorization-mode: mode "${mode}" is not implemented yet (implemented: ${Object.keys(implementedModes).join(', ')})`);
    }
  }
}

export async function buildModeAuthorizers(ctx: ModeContext): Promise<Authorizer[]> {
  validateModes(ctx.config.modes);
  const out: Authorizer[] = [];
  for (const mode of ctx.config.modes) out.push(await implementedModes[mode]!(ctx));
  return out;
}
