// Self time by function within the last N seconds of a profile.
import fs from 'node:fs';
const p = JSON.parse(fs.readFileSync(process.argv[2]));
const lastS = Number(process.argv[3]); const top = Number(process.argv[4] || 25);
const byId = new Map(p.nodes.map(n => [n.id, n]));
let t = p.startTime; const times = p.timeDeltas.map(d => (t += d));
const from = p.endTime - lastS * 1e6;
const self = new Map(); let total = 0;
p.samples.forEach((id, i) => { if (times[i] < from) return; const n = byId.get(id); const d = p.timeDeltas[i]; total += d; const k = `${n.callFrame.functionName||'(anon)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`; self.set(k, (self.get(k)||0) + d); });
console.log('window ms', (total/1000).toFixed(0));
[...self].sort((a,b)=>b[1]-a[1]).slice(0, top).forEach(([k,v]) => console.log((v/1000).toFixed(1).padStart(8), k));
