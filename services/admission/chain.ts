// Runs one admission phase: in the mutating phase every enabled plugin with a `mutate` hook, in
// chain order, each seeing the object as the previous one left it; in the validating phase every
// `validate` hook on the final object. The first rejection ends the phase with its Status. A
// dry-run request that reaches a plugin with side effects fails there.
//
// Reinvocation (upstream's reinvoker): a mutating plugin may ask for the chain to run once more
// after the pass (the webhook plugin does when a webhook changed the object). The second pass runs
// every mutating plugin again, in order, on the object the first left; plugins must be idempotent,
// and each may keep per-request state across the passes (`ctx.scratch`).

import { StatusError, badRequest, internalError, isStatus, type Status } from '../../shared/api/status.js';
import type { ApiObject } from '../../shared/api/types.js';
import { AdmissionPhase, type AdmissionInterest, type AdmissionReply, type AdmissionRequest } from '../../shared/bus/messages.js';
import { admissionMatches } from '../../shared/api/admission-match.js';
import type { Logger } from '../../shared/log.js';
import type { AdmissionContext, AdmissionPlugin, AnnotationLevel, PluginMatch } from './types.js';
import { cloneJson } from '../../shared/patch/json-value.js';

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

/** Told how long each plugin's hook took and whether it rejected the request (metrics.ts). */
export interface AdmissionObserver {
  plugin(name: string, req: AdmissionRequest, rejected: boolean, seconds: number): void;
}

/** The most passes a mutating phase makes: the first and one reinvocation, as upstream. */
const MAX_ROUNDS = 2;

/** What one phase of one request accumulates across its plugins and passes. */
class PhaseRecord {
  /** Distinct messages in the order first given (a plugin run twice warns once). */
  readonly warnings = new Set<string>();
  readonly annotations: Record<string, string> = {};
  readonly requestAnnotations: Record<string, string> = {};
  readonly scratch = new Map<string, unknown>();
  reinvoke = false;

  context(plugin: string, log: Logger, round: number): AdmissionContext {
    return {
      log,
      round,
      warn: (m) => void this.warnings.add(m),
      annotate: (k: string, v: string, level?: AnnotationLevel) => {
        const into = level === 'Request' ? this.requestAnnotations : this.annotations;
        if (!Object.hasOwn(into, k)) into[k] = v;
      },
      requestReinvocation: () => {
        if (round === 0) this.reinvoke = true;
      },
      scratch: <T>(init: () => T): T => {
        if (!this.scratch.has(plugin)) this.scratch.set(plugin, init());
        return this.scratch.get(plugin) as T;
      },
    };
  }

  reply(allowed: true, object: ApiObject | null): AdmissionReply;
  reply(allowed: false, status: Status): AdmissionReply;
  reply(allowed: boolean, outcome: ApiObject | Status | null): AdmissionReply {
    const reply: AdmissionReply = allowed ? { allowed: true } : { allowed: false, status: outcome as Status };
    if (allowed && outcome) reply.object = outcome as ApiObject;
    if (this.warnings.size) reply.warnings = [...this.warnings];
    if (Object.keys(this.annotations).length) reply.auditAnnotations = this.annotations;
    if (Object.keys(this.requestAnnotations).length) reply.requestAuditAnnotations = this.requestAnnotations;
    return reply;
  }
}

export async function runAdmissionChain(plugins: AdmissionPlugin[], req: AdmissionRequest, log: Logger, observer?: AdmissionObserver): Promise<AdmissionReply> {
  const mutating = req.phase === AdmissionPhase.Mutating;
  const record = new PhaseRecord();
  let current: ApiObject | null = req.object;
  let copied = false;

  for (let round = 0; round < MAX_ROUNDS; round++) {
    for (const plugin of plugins) {
      const hook = mutating ? plugin.mutate : plugin.validate;
      if (!hook || !pluginMatches(plugin.match, req)) continue;
      // A dry run must not cause what the plugin would do elsewhere: it fails instead (spec: Dry run 2).
      if (req.dryRun && (plugin.sideEffects === 'Some' || plugin.sideEffects === 'Unknown')) {
        return record.reply(false, badRequest(`admission plugin "${plugin.name}" has side effects and does not support dry run`).status);
      }
      const ctx = record.context(plugin.name, log, round);
      // A mutator gets its own copy so a rejected request never leaves a half-changed object.
      if (mutating && current && !copied && plugin.mutatesObject !== false) {
        current = cloneJson(current);
        copied = true;
      }
      const start = observer ? performance.now() : 0;
      try {
        const out = await hook.call(plugin, mutating ? { ...req, object: current } : req, ctx);
        observer?.plugin(plugin.name, req, false, (performance.now() - start) / 1000);
        if (mutating && out) current = out;
      } catch (err) {
        observer?.plugin(plugin.name, req, true, (performance.now() - start) / 1000);
        if (err instanceof StatusError) return record.reply(false, err.status);
        if (isStatus(err)) return record.reply(false, err);
        log.error({ err, plugin: plugin.name }, 'admission plugin failed');
        return record.reply(false, internalError(`admission plugin "${plugin.name}" failed to complete`).status);
      }
    }
    if (!mutating || !record.reinvoke) break;
  }
  return record.reply(true, mutating ? current : null);
}
