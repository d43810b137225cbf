// The services `npm start` runs and how: their start order and each one's command line in local
// mode (TLS to the local nats-server as its own user, loopback listeners, the dev PKI's files).

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NatsUserRole } from '../shared/bus/permissions.js';
import { natsAuthFlags, type LocalNatsAuth } from '../shared/local/nats-auth.js';
import { LOCAL_SA_ISSUER, type LocalState } from './local-state.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Start order: storage provisions the bucket the others rely on; the gateway comes once they
 * answer; the controllers, an API client of the gateway, once it answers /readyz (started beside
 * it they would find nothing listening). Stopping goes in reverse.
 */
export const SERVICE_STAGES: readonly (readonly LocalServiceName[])[] = [['storage'], ['authn', 'authz', 'admission'], ['gateway'], ['controllers']];
export type LocalServiceName = 'storage' | 'authn' | 'authz' | 'admission' | 'gateway' | 'controllers';

/** Upstream's controller manager's --secure-port. */
export const DEFAULT_CONTROLLERS_PORT = 10257;

/** The services whose /metrics has a listener of its own (`--metrics-bind-address`). */
export const METRICS_LISTENERS = ['storage', 'authn', 'authz', 'admission'] as const;
export type MetricsListener = (typeof METRICS_LISTENERS)[number];

/**
 * The command line of one service in local mode. `natsAuth`: the local nats-server's TLS and users
 * (absent for a NATS_URL of the user's, whose credentials PLATFORM_NATS_* variables can give).
 */
export function serviceArgs(
  name: LocalServiceName,
  ctx: { natsUrl: string; state: LocalState; port: number; controllersPort?: number; metricsPorts?: Partial<Record<MetricsListener, number>>; natsAuth?: LocalNatsAuth },
): string[] {
  const metricsPort = ctx.metricsPorts?.[name as MetricsListener];
  // Each service as its own NATS user (the controllers speak HTTPS to the gateway only).
  const credentials = ctx.natsAuth && name !== 'controllers' ? natsAuthFlags(ctx.natsAuth, name satisfies NatsUserRole) : [];
  // Plain HTTP without authentication: loopback only.
  const common = [`--nats-url=${ctx.natsUrl}`, ...credentials, ...(metricsPort ? [`--metrics-bind-address=127.0.0.1:${metricsPort}`] : [])];
  switch (name) {
    case 'storage':
      return common;
    case 'authn':
      return [
        ...common,
        `--token-auth-file=${ctx.state.tokenFile}`,
        `--client-ca-file=${ctx.state.pki.files.caCert}`,
        '--enable-bootstrap-token-auth=true',
        `--service-account-signing-key-file=${ctx.state.serviceAccountKeyFile}`,
        `--service-account-issuer=${LOCAL_SA_ISSUER}`,
        '--anonymous-auth=true',
      ];
    case 'authz':
      return [...common, '--authorization-mode=Node,RBAC', '--upstream-group-aliases=true'];
    case 'admission':
      // The Node authorizer's partner: what a node may change in the objects it is allowed to write.
      return [...common, '--enable-admission-plugins=NodeRestriction'];
    case 'controllers':
      // An API client of the gateway with its own identity; it retries until the gateway answers.
      return [
        `--kubeconfig=${ctx.state.controllersKubeconfig}`,
        `--cluster-signing-cert-file=${ctx.state.pki.files.caCert}`,
        `--cluster-signing-key-file=${ctx.state.pki.files.caKey}`,
        `--service-account-private-key-file=${ctx.state.serviceAccountKeyFile}`,
        // Each controller as its own service account (system:controller:<name> roles), as upstream's clusters run it.
        '--use-service-account-credentials=true',
        // Its health endpoints, with the gateway's serving pair so the dev CA verifies them too.
        `--secure-port=${ctx.controllersPort ?? DEFAULT_CONTROLLERS_PORT}`,
        '--bind-address=127.0.0.1',
        `--tls-cert-file=${ctx.state.pki.files.servingCert}`,
        `--tls-private-key-file=${ctx.state.pki.files.servingKey}`,
        // apiservice-availability checks remote APIServices as the gateway reaches them: as the front proxy.
        `--proxy-client-cert-file=${ctx.state.frontProxy.files.clientCert}`,
        `--proxy-client-key-file=${ctx.state.frontProxy.files.clientKey}`,
      ];
    case 'gateway':
      return [
        ...common,
        `--secure-port=${ctx.port}`,
        '--bind-address=127.0.0.1',
        `--tls-cert-file=${ctx.state.pki.files.servingCert}`,
        `--tls-private-key-file=${ctx.state.pki.files.servingKey}`,
        `--client-ca-file=${ctx.state.pki.files.caCert}`,
        // The front proxy of aggregated APIs: the gateway presents the client certificate to their
        // backends and publishes its CA (extension-apiserver-authentication) for them to trust.
        `--requestheader-client-ca-file=${ctx.state.frontProxy.files.caCert}`,
        `--proxy-client-cert-file=${ctx.state.frontProxy.files.clientCert}`,
        `--proxy-client-key-file=${ctx.state.frontProxy.files.clientKey}`,
        // Stock manifests and kubectl's typed commands name upstream's groups (rbac.authorization.k8s.io, …).
        '--upstream-group-aliases=true',
        // The audit log of the shipped example policy, kept small: a development cluster's disk is not an archive.
        `--audit-policy-file=${path.join(REPO_ROOT, 'deploy', 'audit-policy.yaml')}`,
        `--audit-log-path=${path.join(ctx.state.dir, 'audit.log')}`,
        '--audit-log-maxsize=20',
        '--audit-log-maxbackup=3',
      ];
  }
}
