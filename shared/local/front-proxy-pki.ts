// The front-proxy PKI of a local installation (`npm start`, docker compose), as kubeadm lays it
// out: a CA of its own (`front-proxy-ca`, never the cluster CA: a certificate it signs lets its
// holder name any user in X-Remote-* headers) and the client certificate `front-proxy-client` it
// signs, which the gateway presents to the backends of remote APIServices
// (`--proxy-client-cert-file`) and the apiservice-availability controller presents when it checks
// them. Backends find the CA and the name in the `extension-apiserver-authentication` ConfigMap,
// published by the gateway from its `--requestheader-client-ca-file` (this CA). Created once and
// reused, as the rest of the local PKI.

import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { createCA, issueClientCert, loadCA, readPair, stillGood, writeAtomic, type CertificateAuthority, type PemPair } from './pki.js';

/** The CN of the front-proxy client certificate (kubeadm's), which backends may require (`requestheader-allowed-names`). */
export const FRONT_PROXY_CLIENT_NAME = 'front-proxy-client';

export interface FrontProxyFiles {
  caCert: string;
  caKey: string;
  clientCert: string;
  clientKey: string;
}

export interface FrontProxyPki {
  files: FrontProxyFiles;
  ca: CertificateAuthority;
  client: PemPair;
}

export function frontProxyFiles(dir: string): FrontProxyFiles {
  const f = (name: string) => path.join(dir, name);
  return { caCert: f('front-proxy-ca.crt'), caKey: f('front-proxy-ca.key'), clientCert: f('front-proxy-client.crt'), clientKey: f('front-proxy-client.key') };
}

/**
 * The front-proxy CA and client certificate under `dir`, made when missing; the client certificate
 * is issued again when another CA signed it or it is close to expiry. Keys are written 0600.
 */
export async function ensureFrontProxyPki(dir: string, written: string[] = []): Promise<FrontProxyPki> {
  const files = frontProxyFiles(dir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  let ca: CertificateAuthority;
  const caPair = await readPair(files.caCert, files.caKey);
  if (caPair) ca = await loadCA(caPair.certPem, caPair.keyPem);
  else {
    ca = await createCA('front-proxy-ca');
    await writeAtomic(files.caKey, ca.keyPem, 0o600);
    await writeAtomic(files.caCert, ca.certPem, 0o644);
    written.push(files.caKey, files.caCert);
  }
  let client = await readPair(files.clientCert, files.clientKey);
  if (!client || !stillGood(ca, client)) {
    client = await issueClientCert(ca, { commonName: FRONT_PROXY_CLIENT_NAME });
    await writeAtomic(files.clientKey, client.keyPem, 0o600);
    await writeAtomic(files.clientCert, client.certPem, 0o644);
    written.push(files.clientKey, files.clientCert);
  }
  return { files, ca, client };
}
