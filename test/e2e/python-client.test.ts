// End to end with the official Python client (Debian's python3-kubernetes, skipped when absent):
// its typed models reject answers that lack what upstream always returns, so objects must come
// back in upstream's form — Services with their cluster IP and status, budgets with their counts,
// Nodes with the status they registered with.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { uniq } from './helpers.js';

const PYTHON = '/usr/bin/python3';

function hasPythonClient(): boolean {
  try {
    execFileSync(PYTHON, ['-c', 'import kubernetes'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const skip = hasPythonClient() ? false : 'python3-kubernetes not installed: skipping the Python client suite';
if (skip) console.log(skip);
const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'python', 'client_e2e.py');

describe('python client', { skip }, () => {
  let c: TestCluster;
  before(async () => {
    // The typed APIs name upstream's groups (apiregistration.k8s.io): served as aliases, as `npm start` does.
    c = await startTestCluster({ upstreamGroupAliases: true });
  });
  after(async () => c?.stop());

  it('python - namespaces, configmaps, services with allocated IPs and ports, deployments, budgets, nodes, APIServices, watch, errors', async () => {
    const out = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(PYTHON, [script, c.kubeconfigPath, uniq('py')], { timeout: 60_000 }, (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      });
    });
    assert.equal(out.code, 0, `${out.stdout}\n${out.stderr}`);
    assert.deepEqual(out.stdout.trim().split('\n'), [
      'ok namespace',
      'ok configmap create/patch, managedFields',
      'ok service with cluster IP and node port',
      'ok cluster IP in use is 422',
      'ok deployment and its scale',
      'ok pod disruption budget status',
      'ok node registers with its status',
      'ok apiservice',
      'ok watch',
      'ok errors and deletes',
    ]);
  });
});
