import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planNatsServer, type NatsServerHost, type NatsServerPlan } from '../nats-server-binary.js';

const DEBIAN_PATH = ['/usr/local/bin', '/usr/bin', '/bin'];

function host(files: string[], o: Partial<NatsServerHost> = {}): NatsServerHost {
  const present = new Set(files);
  return { pathDirs: DEBIAN_PATH, isExecutable: (f) => present.has(f), isRoot: false, ...o };
}

test('nats-server binary - found, installed as root, or the command to run is said', () => {
  const cases: Array<{ name: string; host: NatsServerHost; want: NatsServerPlan }> = [
    { name: 'on PATH', host: host(['/usr/local/bin/nats-server', '/usr/sbin/nats-server']), want: { kind: 'found', path: '/usr/local/bin/nats-server' } },
    { name: "in /usr/sbin (Debian's package) though PATH lacks it", host: host(['/usr/sbin/nats-server', '/usr/bin/apt-get']), want: { kind: 'found', path: '/usr/sbin/nats-server' } },
    { name: 'in /usr/local/sbin', host: host(['/usr/local/sbin/nats-server']), want: { kind: 'found', path: '/usr/local/sbin/nats-server' } },
    {
      name: 'NATS_SERVER_BIN wins over PATH',
      host: host(['/usr/bin/nats-server', '/opt/nats/nats-server'], { explicit: '/opt/nats/nats-server' }),
      want: { kind: 'found', path: '/opt/nats/nats-server' },
    },
    {
      name: 'NATS_SERVER_BIN naming nothing',
      host: host(['/usr/bin/nats-server'], { explicit: '/opt/nats/nats-server' }),
      want: { kind: 'missing', message: 'NATS_SERVER_BIN=/opt/nats/nats-server is not an executable file' },
    },
    { name: 'missing, root with apt-get', host: host(['/usr/bin/apt-get'], { isRoot: true }), want: { kind: 'install', command: ['apt-get', 'install', '-y', 'nats-server'] } },
    {
      name: 'missing, not root',
      host: host(['/usr/bin/apt-get']),
      want: { kind: 'missing', message: 'nats-server is not installed; run: sudo apt-get install -y nats-server (or set NATS_SERVER_BIN to its path)' },
    },
    {
      name: 'missing, root without apt-get',
      host: host([], { isRoot: true }),
      want: { kind: 'missing', message: 'nats-server is not installed; install it (https://docs.nats.io/running-a-nats-service/introduction/installation) (or set NATS_SERVER_BIN to its path)' },
    },
  ];
  for (const c of cases) assert.deepEqual(planNatsServer(c.host), c.want, c.name);
});
