// nats-server memory under a steady KV update load: RSS over time.
import { spawn } from 'node:child_process';
import { readFileSync, mkdtempSync } from 'node:fs';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager, StorageType } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
const port = Number(process.argv[2]); const withLog = process.argv[3] === 'log'; const minutes = Number(process.argv[4] ?? 8);
const dir = mkdtempSync('/tmp/natsmem-');
const srv = spawn('nats-server', ['-js', '-p', String(port), '-sd', dir], { stdio: 'ignore' });
await new Promise(r => setTimeout(r, 800));
const nc = await connect({ servers: `nats://127.0.0.1:${port}` });
const kv = await new Kvm(nc).create('objects', { history: 1, storage: StorageType.File, maxValueSize: 2 * 1024 * 1024 });
const jsm = await jetstreamManager(nc);
if (withLog) await jsm.streams.add({ name: 'CHANGES_objects', subjects: ['platform.changes.objects.>'], max_age: 660e9, storage: StorageType.File });
const body = new TextEncoder().encode(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x'.repeat(20), namespace: 'default', uid: 'u'.repeat(36), labels: { a: 'b' } }, data: { v: 'y'.repeat(300) } }));
for (let i = 0; i < 300; i++) await kv.put(`boot.k${i}`, body);
const rss = () => Math.round(Number(readFileSync(`/proc/${srv.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)![1]) / 1024);
const t0 = Date.now(); let n = 0;
const timer = setInterval(async () => { const s = (await jsm.streams.info('KV_objects')).state; console.log(`${((Date.now() - t0) / 60000).toFixed(1)} min rss ${rss()} MiB writes ${n} msgs ${s.messages} deleted ${s.num_deleted} bytes ${s.bytes}`); }, 30_000);
while (Date.now() - t0 < minutes * 60_000) {
  const start = Date.now();
  await Promise.all(Array.from({ length: 20 }, () => { const k = `load.k${Math.floor(Math.random() * 2000)}`; n++; if (withLog) nc.publish(`platform.changes.objects.${k}`, body); return kv.put(k, body); }));
  const wait = 100 - (Date.now() - start); if (wait > 0) await new Promise(r => setTimeout(r, wait));
}
clearInterval(timer); await nc.close(); srv.kill();
