// Runs one admission phase: in the mutating phase every enabled plugin with a `mutate` hook, in
// chain order, each seeing the object as the previous one left it; in the validating phase every
// `validate` hook on the final object. The first rejection ends the phase with its Status. A
// dry-run request that reaches a plugin with side effects fails there.

import { StatusError, badRequest, internalError, isStatus, type Status } from '../../shared/api/status.js';
import type { ApiObject } from '../../shared/api/types.js';
import { AdmissionPhase, type AdmissionInterest, type AdmissionReply, type AdmissionRequest } from '../../shared/bus/messages.js';
import { admissionMatches } from '../../shared/api/admission-match.js';
import type { Logger } from '../../shared/log.js';
import type { AdmissionContext, AdmissionPlugin, PluginMatch } from './types.js';

export function pluginMatches(match: PluginMatch | undefined, req: AdmissionRequest): boolean {
  return admissionMatches(match, req.operation, req.resource.group, req.resource.resource, req.userInfo?.groups ?? []);
}

/** What the gateway needs to know to skip phases: each phase's plugins' matches. */
export function admissionInterest(plugins: AdmissionPlugin[]): AdmissionInterest {
  return {
    mutating: plugins.filter((p) => p.mutate).map((p) => p.match ?? {}),
    validating: plugins.filter((p) => p.validate).map((p) => p.match ?? {}),
  };
}

function denied(status: Status, warnings: string[]): AdmissionReply {
  const reply: AdmissionReply = { allowed: false, status };
  if (warnings.length) reply.warnings = warnings;
  return reply;
}

/** Told how long each plugin's hook took and whether it rejected the request (metrics.ts). */
export interface AdmissionObserver {
  plugin(name: string, req: AdmissionRequest, rejected: boolean, seconds: number): void;
}

export async function runAdmissionChain(plugins: AdmissionPlugin[], req: AdmissionRequest, log: Logger, observer?: AdmissionObserver): Promise<AdmissionReply> {
  const mutating = req.phase === AdmissionPhase.Mutating;
  const warnings: string[] = [];
  const annotations: Record<string, string> = {};
  let current: ApiObject | null = req.object;
  let copied = false;

  for (const plugin of plugins) {
    const hook = mutating ? plugin.mutate : plugin.validate;
    if (!hook || !pluginMatches(plugin.match, req)) continue;
    // A dry run must not cause what the plugin would do elsewhere: it fails instead (spec: Dry run 2).
    if (req.dryRun && (plugin.sideEffects === 'Some' || plugin.sideEffects === 'Unknown')) {
      return denied(badRequest(`admission plugin "${plugin.name}" has side effects and does not support dry run`).status, warnings);
    }
    const ctx: AdmissionContext = {
      log,
      warn: (m) => warnings.push(m),
      annotate: (k, v) => (annotations[k] = v),
    };
    // A mutator gets its own copy so a rejected request never leaves a half-changed object.
    if (mutating && current && !copied && plugin.mutatesObject !== false) {
      current = structuredClone(current);
      copied = true;
    }
    const start = observer ? performance.now() : 0;
    try {
      const out = await hook.call(plugin, mutating ? { ...req, object: current } : req, ctx);
      observer?.plugin(plugin.name, req, false, (performance.now() - start) / 1000);
      if (mutating && out) current = out;
    } catch (err) {
      observer?.plugin(plugin.name, req, true, (performance.now() - start) / 1000);
      if (err instanceof StatusError) return denied(err.status, warnings);
      if (isStatus(err)) return denied(err, warnings);
      log.error({ err, plugin: plugin.name }, 'admission plugin failed');
      return denied(internalError(`admission plugin "${plugin.name}" failed to complete`).status, warnings);
    }
  }

  const reply: AdmissionReply = { allowed: true };
  if (mutating && current) reply.object = current;
  if (warnings.length) reply.warnings = warnings;
  if (Object.keys(annotations).length) reply.auditAnnotations = annotations;
  return reply;
}
