// The docker CLI for the suites that run containers (the image, compose): one call with a
// deadline, and why such a suite cannot run here. Nothing is ever pulled: no registry is assumed,
// and scripts/containers.sh provides the engine and the base images (stand-ins where needed).

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { findKubectl } from './kubectl.js';

export const run = promisify(execFile);

export async function docker(args: string[], timeoutMs = 60_000): Promise<string> {
  const { stdout } = await run('docker', args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  return stdout.trim();
}

/** Why a suite needing an engine, these local images and kubectl cannot run here, or undefined. */
export async function containersUnavailable(images: readonly string[]): Promise<string | undefined> {
  try {
    await docker(['info', '--format', '{{.ServerVersion}}'], 15_000);
  } catch {
    return 'no Docker engine answers `docker info` (scripts/containers.sh starts one)';
  }
  for (const image of images) {
    try {
      await docker(['image', 'inspect', '--format', '{{.Id}}', image], 15_000);
    } catch {
      return `image ${image} is not present and no registry is assumed (scripts/containers.sh builds a stand-in)`;
    }
  }
  if (!findKubectl()) return 'kubectl is not on PATH';
  return undefined;
}
