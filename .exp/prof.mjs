import fs from 'node:fs';
const p = JSON.parse(fs.readFileSync(process.argv[2]));
const byId = new Map(p.nodes.map(n => [n.id, n]));
const self = new Map(); const dt = p.timeDeltas; const total = dt.reduce((a,b)=>a+b,0);
p.samples.forEach((id, i) => { const n = byId.get(id); const k = `${n.callFrame.functionName||'(anon)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`; self.set(k, (self.get(k)||0) + dt[i]); });
console.log('total ms', (total/1000).toFixed(0));
[...self].sort((a,b)=>b[1]-a[1]).slice(0, +process.argv[3] || 25).forEach(([k,v]) => console.log((v/1000).toFixed(1).padStart(8), k));
