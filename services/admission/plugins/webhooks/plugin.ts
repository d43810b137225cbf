// MutatingAdmissionWebhook and ValidatingAdmissionWebhook: the webhooks of the stored
// Mutating/ValidatingWebhookConfigurations, fed from the bucket (not read per request), called for
// the requests they match. When the configurations change, the plugin's match follows and the
// gateways are told at once, so a new webhook takes effect within moments.

import { MAX_ADMISSION_SECONDS } from '../../../../shared/api/admission-match.js';
import { ADMISSION_GROUP } from '../../../../shared/registry/builtin/admissionregistration/webhook.js';
import { announceAdmissionInterestChange } from '../../../../shared/bus/service-interest.js';
import type { ObjectCache } from '../../object-cache.js';
import { webhookMetrics } from '../../metrics.js';
import type { AdmissionPlugin, PluginDefinition, PluginDeps, PluginMatch } from '../../types.js';
import { apiTypesOf, type ApiTypes } from './api-types.js';
import { WebhookCaller } from './client.js';
import { loadWebhookCredentials } from './credentials.js';
import { dispatchMutating, dispatchValidating, type DispatchEnvironment } from './dispatch.js';
import { isWebhookConfigurationResource } from './rules.js';
import { parseServiceResolver, ServiceResolver } from './service-resolver.js';
import { interestOf, webhooksOf, type Webhook, type WebhookKind } from './webhooks.js';

/** Before the configurations are known: every request, waited for as long as any may take. */
const UNKNOWN_MATCH: PluginMatch = { timeoutSeconds: MAX_ADMISSION_SECONDS };

export const MUTATING_ADMISSION_WEBHOOK = 'MutatingAdmissionWebhook';
export const VALIDATING_ADMISSION_WEBHOOK = 'ValidatingAdmissionWebhook';

const CONFIGURATIONS: Record<WebhookKind, { plugin: string; resource: string }> = {
  mutating: { plugin: MUTATING_ADMISSION_WEBHOOK, resource: 'mutatingwebhookconfigurations' },
  validating: { plugin: VALIDATING_ADMISSION_WEBHOOK, resource: 'validatingwebhookconfigurations' },
};

export interface WebhookPluginOptions {
  /** The API types (equivalents, conversion, defaults); default the service's (built-in and custom resources), built on first use. */
  types?: () => ApiTypes;
  /** Sends a review in place of the HTTPS client (unit tests). */
  post?: DispatchEnvironment['post'];
}

/**
 * The webhooks of the stored configurations of one kind and the requests they match, kept current:
 * rebuilt once the configurations are loaded and after each burst of changes to them.
 */
class ConfiguredWebhooks {
  hooks: readonly Webhook[] = [];
  /** Some webhook has matchPolicy Equivalent: requests wait for the API's types before they are matched. */
  equivalent = false;
  /** Unknown until the configurations are loaded: every request is then offered to the plugin, which waits for them. */
  match: PluginMatch | undefined;
  private synced = false;
  private stopped = false;
  private pending: NodeJS.Immediate | undefined;
  private readonly off: () => void;

  constructor(
    private readonly kind: WebhookKind,
    private readonly configurations: ObjectCache,
    private readonly types: () => ApiTypes,
    private readonly log: DispatchEnvironment['log'],
    /** Tells the gateways the match changed. */
    private readonly announce: () => void,
  ) {
    // Events come in bursts (a watch's first sync): one rebuild per burst.
    this.off = configurations.onChange(() => {
      if (this.synced && !this.pending) {
        this.pending = setImmediate(() => {
          this.pending = undefined;
          if (!this.stopped) this.rebuild();
        });
      }
    });
    // No deadline here: a store that never comes up leaves the plugin waiting, not the process running.
    void configurations.whenSynced().then(() => this.loaded());
  }

  async ready(): Promise<void> {
    if (this.synced) return;
    await this.configurations.ready();
    this.loaded();
  }

  stop(): void {
    this.stopped = true;
    this.off();
    if (this.pending) clearImmediate(this.pending);
  }

  private loaded(): void {
    if (this.stopped || this.synced) return;
    this.synced = true;
    this.rebuild();
  }

  private rebuild(): void {
    const hooks = (this.hooks = webhooksOf(this.kind, this.configurations.list()));
    this.equivalent = hooks.some((h) => h.matchPolicy === 'Equivalent');
    let next: PluginMatch | undefined;
    try {
      next = interestOf(hooks, (group, res) => (this.equivalent ? this.types().related(group, res) : []));
    } catch (err) {
      // Without the equivalents the match could leave requests out: offer the plugin every request instead.
      this.log.error({ err }, 'cannot work out which requests the webhooks match; every request is offered to them');
    }
    const changed = JSON.stringify(next) !== JSON.stringify(this.match);
    this.match = next;
    if (changed) this.announce();
  }
}

export async function createWebhookPlugin(kind: WebhookKind, deps: PluginDeps, opts: WebhookPluginOptions = {}): Promise<AdmissionPlugin> {
  const { plugin: name, resource } = CONFIGURATIONS[kind];
  const credentials = await loadWebhookCredentials(name, deps.config);
  const resolver = new ServiceResolver({
    mappings: parseServiceResolver(deps.options.webhookServiceResolver ?? []),
    services: () => deps.objects('', 'services'),
    endpoints: () => deps.objects('', 'endpoints'),
  });
  const caller = new WebhookCaller(resolver, credentials);
  const types = opts.types ?? (() => apiTypesOf(deps.servedTypes().registry));
  // The custom resources are known once the stored definitions are (types given by a test are ready).
  const typesReady = opts.types ? () => Promise.resolve() : () => deps.servedTypes().ready();
  let namespaces: ObjectCache | undefined;
  const env: DispatchEnvironment = {
    types,
    async namespaceLabels(ns) {
      const obj = await (namespaces ??= deps.objects('', 'namespaces')).lookup(undefined, ns);
      return obj ? ((obj.metadata.labels as Record<string, string> | undefined) ?? {}) : null;
    },
    post: opts.post ?? ((hook, text) => caller.post(hook, text)),
    metrics: webhookMetrics(deps.metrics),
    log: deps.log.child({ plugin: name }),
  };
  const webhooks = new ConfiguredWebhooks(kind, deps.objects(ADMISSION_GROUP, resource), types, env.log, () => announceAdmissionInterestChange(deps.nc));

  const plugin: AdmissionPlugin = {
    name,
    get match() {
      return webhooks.match ?? UNKNOWN_MATCH;
    },
    async stop() {
      webhooks.stop();
      caller.close();
    },
  };
  if (kind === 'mutating') {
    plugin.mutate = async (req, ctx) => {
      if (isWebhookConfigurationResource(req.resource)) return;
      await webhooks.ready();
      if (!webhooks.hooks.length) return;
      if (webhooks.equivalent) await typesReady();
      return (await dispatchMutating(env, webhooks.hooks, req, ctx)) ?? undefined;
    };
  } else {
    plugin.validate = async (req, ctx) => {
      if (isWebhookConfigurationResource(req.resource)) return;
      await webhooks.ready();
      if (!webhooks.hooks.length) return;
      if (webhooks.equivalent) await typesReady();
      await dispatchValidating(env, webhooks.hooks, req, ctx);
    };
  }
  return plugin;
}

export const mutatingWebhookPlugin: PluginDefinition = {
  name: MUTATING_ADMISSION_WEBHOOK,
  defaultEnabled: true,
  create: (deps) => createWebhookPlugin('mutating', deps),
};

export const validatingWebhookPlugin: PluginDefinition = {
  name: VALIDATING_ADMISSION_WEBHOOK,
  defaultEnabled: true,
  create: (deps) => createWebhookPlugin('validating', deps),
};
