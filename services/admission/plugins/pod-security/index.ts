// The plugins of this folder by name: PodSecurity.

import type { PluginFactory } from '../../types.js';
import { createPodSecurity } from './admission.js';
import { loadPodSecurityConfiguration, POD_SECURITY } from './configuration.js';
import { PodSecurityMetrics } from './metrics.js';

/**
 * Reads its configuration at start (a mistake stops the service) and watches namespaces at once,
 * for their labels; the pods cache starts only when a namespace's enforce level first tightens.
 */
export const podSecurityPlugin: PluginFactory = (deps) =>
  createPodSecurity({
    configuration: loadPodSecurityConfiguration(deps.config),
    namespaces: deps.objects('', 'namespaces'),
    pods: () => deps.objects('', 'pods'),
    metrics: new PodSecurityMetrics(deps.metrics),
    log: deps.log,
  });

export const plugins: Readonly<Record<string, PluginFactory>> = {
  [POD_SECURITY]: podSecurityPlugin,
};
