// The `--authorization-mode` names and their factories, and the start-up checks of a mode list
// and the settings each mode needs (a bad configuration fails before anything is served).

import { OptionsError } from '../../shared/config/options.js';
import type { ObjectFeed } from '../../shared/store/object-feed.js';
import type { Authorizer, AuthzConfig, ModeContext, ModeFactory } from './types.js';
import { alwaysAllowMode } from './authorizers/always-allow.js';
import { alwaysDenyMode } from './authorizers/always-deny.js';
import { abacMode } from './authorizers/abac.js';
import { rbacMode } from './authorizers/rbac.js';
import { nodeMode } from './authorizers/node.js';
import { webhookMode } from './authorizers/webhook.js';

export const modeFactories: Readonly<Record<string, ModeFactory>> = {
  AlwaysAllow: alwaysAllowMode,
  AlwaysDeny: alwaysDenyMode,
  ABAC: abacMode,
  RBAC: rbacMode,
  Node: nodeMode,
  Webhook: webhookMode,
};

/** Every mode the spec defines (`--authorization-mode`). */
export const knownModes = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'RBAC', 'Node', 'Webhook'] as const;

/** An OptionsError, so a service's entry point reports it as a bad flag (message, exit 2). */
export class AuthzConfigError extends OptionsError {
  override name = 'AuthzConfigError';
}

/** Checks the mode list the way upstream does: non-empty, known, no repeats. */
export function validateModes(modes: string[]): void {
  if (modes.length === 0) throw new AuthzConfigError('--authorization-mode: at least one mode is required');
  const seen = new Set<string>();
  for (const mode of modes) {
    if (seen.has(mode)) throw new AuthzConfigError(`--authorization-mode: mode "${mode}" is specified more than once`);
    seen.add(mode);
    if (!(knownModes as readonly string[]).includes(mode) || !Object.hasOwn(modeFactories, mode)) {
      throw new AuthzConfigError(`--authorization-mode: unknown mode "${mode}" (valid modes: ${knownModes.join(', ')})`);
    }
  }
}

/** The mode list plus what each mode needs: ABAC a policy file, Webhook its configuration. */
export function validateAuthzConfig(config: AuthzConfig): void {
  validateModes(config.modes);
  if (config.modes.includes('ABAC') && !config.policyFile) throw new AuthzConfigError('authorization mode ABAC needs --authorization-policy-file');
  if (config.modes.includes('Webhook') && !config.webhook?.configFile) throw new AuthzConfigError('authorization mode Webhook needs --authorization-webhook-config-file');
  const wh = config.webhook;
  if (wh) {
    if (wh.version !== 'v1' && wh.version !== 'v1beta1') throw new AuthzConfigError('--authorization-webhook-version must be v1 or v1beta1');
    for (const [flag, v] of [
      ['authorized', wh.authorizedTtlMs],
      ['unauthorized', wh.unauthorizedTtlMs],
    ] as const) {
      if (!Number.isFinite(v) || v < 0) throw new AuthzConfigError(`--authorization-webhook-cache-${flag}-ttl must be a non-negative duration`);
    }
  }
}

export async function buildModeAuthorizers(ctx: ModeContext): Promise<Authorizer[]> {
  validateAuthzConfig(ctx.config);
  const out: Authorizer[] = [];
  const feeds: ObjectFeed[] = [];
  const feed: ModeContext['feed'] = (filters, onEvent) => {
    const f = ctx.feed(filters, onEvent);
    feeds.push(f);
    return f;
  };
  const tracked: ModeContext = { ...ctx, feed };
  try {
    for (const mode of ctx.config.modes) out.push(await modeFactories[mode]!(tracked));
  } catch (err) {
    // A later mode failed to start (a bad policy file): release what the earlier ones hold, the
    // node graph's watches and a webhook's connections, so a failed start leaves nothing running.
    for (const a of out) await a.stop?.().catch(() => undefined);
    for (const f of feeds) await f.stop().catch(() => undefined);
    throw err;
  }
  return out;
}
