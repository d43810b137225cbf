// Runs one service by name: `npm run service -- <name> [flags]`, and the container image's entry
// point (`node --import tsx scripts/service.ts <name> [flags]`), so one image serves every role.
// The service's main module reads its flags from process.argv, so the name is removed first.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isEntryPoint } from './entry-point.js';

export const SERVICES = ['storage', 'authn', 'authz', 'admission', 'gateway', 'controllers'] as const;
export type ServiceToRun = (typeof SERVICES)[number];

const here = path.dirname(fileURLToPath(import.meta.url));

export const USAGE = `usage: npm run service -- <name> [--flag=value ...]
       node --import tsx scripts/service.ts <name> [--flag=value ...]

names: ${SERVICES.join(', ')}
Each service takes --help; flags can also come from PLATFORM_<FLAG> environment variables or a
YAML file given with --config.
`;

/** The main module of `name`: the .ts source when present (tsx), else compiled .js (dist/). */
export function serviceMain(name: string): string | undefined {
  if (!(SERVICES as readonly string[]).includes(name)) return undefined;
  for (const ext of ['.ts', '.js']) {
    const file = path.join(here, '..', 'services', name, `main${ext}`);
    if (existsSync(file)) return file;
  }
  return undefined;
}

async function run(): Promise<void> {
  const [name, ...flags] = process.argv.slice(2);
  if (!name || name === '--help' || name === '-h') {
    process.stdout.write(USAGE);
    process.exit(name ? 0 : 2);
  }
  const main = serviceMain(name);
  if (!main) {
    const why = (SERVICES as readonly string[]).includes(name) ? `service ${name} has no main module yet` : `unknown service ${JSON.stringify(name)}`;
    process.stderr.write(`${why}\n\n${USAGE}`);
    process.exit(2);
  }
  // argv[1] becomes the main module itself, exactly as if it had been started directly.
  process.argv = [process.argv[0]!, main, ...flags];
  await import(pathToFileURL(main).href);
}

// Imported by tests for serviceMain; runs only as the entry point.
if (isEntryPoint(import.meta.url)) await run();
