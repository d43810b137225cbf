// What the API server presents to admission webhooks (spec: Authentication to webhooks). The
// plugin's entry of --admission-control-config-file is a WebhookAdmissionConfiguration naming a
// `kubeConfigFile`; that file's `users[]` are matched by the webhook's host: the service name
// `<svc>.<ns>.svc` (with `:<port>` when not 443) or the URL's host[:port], exactly, then by a
// leading `*.` wildcard from the most specific, then without a `:443`, then `*`; otherwise
// nothing is presented. The file's current context plays no part (spec: `*` is the default), so a
// user meant for one host never reaches a webhook on another. Read and checked once at start-up.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { AdmissionConfigError } from '../../errors.js';
import { checkPluginConfiguration, type PluginConfiguration } from '../../plugin-configuration.js';
import { ClientConfigError, parseClientConfig, type UserCredentials } from '../../../../shared/client/config.js';
import { authorizationSource } from '../../../../shared/client/credentials.js';
import { resolveWebhookUser, WEBHOOK_CONFIG_FORMAT, WebhookConfigError } from '../../../../shared/webhook/client-config.js';
import type { WebhookCredentials } from '../../../../shared/webhook/webhook-caller.js';

const CONFIG_GROUPS = ['apiserver.config.platform.io', 'apiserver.config.k8s.io'];

/** The credentials for one webhook host (the shape the shared webhook caller presents). */
export type { WebhookCredentials };

export class CredentialResolver {
  constructor(private readonly users: ReadonlyMap<string, WebhookCredentials> = new Map()) {}

  /** `target`: `<host>` or `<host>:<port>`, as the spec's matching rules spell it. */
  forTarget(target: string): WebhookCredentials | undefined {
    const found = this.lookup(target);
    if (found) return found;
    const m = /^(.*):443$/.exec(target);
    if (m) {
      const withoutPort = this.lookup(m[1]!);
      if (withoutPort) return withoutPort;
    }
    return this.users.get('*');
  }

  private lookup(target: string): WebhookCredentials | undefined {
    const exact = this.users.get(target);
    if (exact) return exact;
    const steps = target.split('.');
    for (let i = 1; i < steps.length; i++) {
      const hit = this.users.get(`*.${steps.slice(i).join('.')}`);
      if (hit) return hit;
    }
    return undefined;
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function credentialsOf(name: string, c: UserCredentials): WebhookCredentials {
  const out: WebhookCredentials = { user: name, authorization: authorizationSource(c) };
  if (c.clientCertPem && c.clientKeyPem) {
    out.clientCertPem = c.clientCertPem;
    out.clientKeyPem = c.clientKeyPem;
  }
  return out;
}

/** Parses a kubeconfig's users for webhook calls (its contexts are not used); `file` is its path. */
export async function parseWebhookKubeconfig(text: string, file: string): Promise<CredentialResolver> {
  // Users are matched by name, so a name given twice is refused (as upstream's decoding does)
  // rather than its first entry silently winning, as it would for the API client.
  const cfg = parseClientConfig(text, file, { ...WEBHOOK_CONFIG_FORMAT, uniqueNames: true });
  const users = new Map<string, WebhookCredentials>();
  for (const [name, user] of cfg.users) users.set(name, credentialsOf(name, await resolveWebhookUser(name, user)));
  return new CredentialResolver(users);
}

/**
 * The credentials of a webhook plugin from its configuration entry (none: webhooks are called
 * without credentials). A bad entry or file is an AdmissionConfigError naming both.
 */
export async function loadWebhookCredentials(plugin: string, cfg: PluginConfiguration | undefined): Promise<CredentialResolver> {
  if (!cfg) return new CredentialResolver();
  const raw = cfg.configuration;
  // v1 calls it WebhookAdmissionConfiguration; v1alpha1 called it WebhookAdmission.
  const legacy = isObj(raw) && raw.kind === 'WebhookAdmission';
  const doc = checkPluginConfiguration(plugin, cfg, {
    apiVersions: CONFIG_GROUPS.map((g) => `${g}/${legacy ? 'v1alpha1' : 'v1'}`),
    kind: legacy ? 'WebhookAdmission' : 'WebhookAdmissionConfiguration',
    fields: ['kubeConfigFile'],
  });
  const file = doc.kubeConfigFile;
  if (file === undefined || file === '') return new CredentialResolver();
  const at = `admission plugin ${plugin}: configuration from ${cfg.source}`;
  if (typeof file !== 'string') throw new AdmissionConfigError(`${at}: kubeConfigFile must be a string`);
  const full = path.resolve(cfg.dir, file);
  let text: string;
  try {
    text = await readFile(full, 'utf8');
  } catch (err) {
    throw new AdmissionConfigError(`${at}: kubeConfigFile: cannot read ${full}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    return await parseWebhookKubeconfig(text, full);
  } catch (err) {
    if (err instanceof WebhookConfigError || err instanceof ClientConfigError) throw new AdmissionConfigError(`${at}: kubeConfigFile ${full}: ${err.message}`);
    throw err;
  }
}
