// Development tool: writes proto/k8s/wire.json, the protobuf wire contract of every built-in
// kind (message and field numbers are what upstream clients put on the wire), from a checkout of
// the upstream API definitions. Not run by the server or the tests; rerun it when a type is added:
//
//   npx tsx scripts/gen-proto.ts <k8s.io/api git dir> <k8s.io/apimachinery git dir> <k8s.io/kube-aggregator git dir> <k8s.io/apiextensions-apiserver git dir>
//
// Both are read at RELEASE (a recent release: its messages are a superset of what kubectl 1.32 and
// its client-go send), except the beta versions removed upstream since the spec's reference release
// (1.24), which are read at that release.
// For each message it keeps only what the codec needs: field name, number, type, repeated/map,
// and from the Go struct tags the JSON name and whether the field is a pointer or `omitempty`
// (which decide whether a zero value read off the wire appears in the JSON object). Packages are
// renamed to short names (`core.v1`, `meta.v1`, `runtime`, …); nothing else is carried over.

import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

const [apiDir, machineryDir, aggregatorDir, extensionsDir] = process.argv.slice(2);
if (!apiDir || !machineryDir || !aggregatorDir || !extensionsDir) {
  console.error('usage: gen-proto.ts <k8s.io/api git dir> <k8s.io/apimachinery git dir> <k8s.io/kube-aggregator git dir> <k8s.io/apiextensions-apiserver git dir>');
  process.exit(2);
}

interface Source {
  repo: string;
  rev: string;
  dir: string;
  /** Short package name the messages get. */
  pkg: string;
  /** Upstream proto package. */
  upstream: string;
  /** Only these messages (and what they reach) from this source; all when absent. */
  only?: string[];
}

const RELEASE = 'v0.34.2';

const api = (dir: string, rev = RELEASE, only?: string[]): Source => ({ repo: apiDir, rev, dir, pkg: dir.replace('/', '.'), upstream: `k8s.io.api.${dir.replace('/', '.')}`, only });
const machinery = (dir: string, pkg: string, upstream: string): Source => ({ repo: machineryDir, rev: RELEASE, dir, pkg, upstream });
// APIService lives in the aggregator's own module, not in k8s.io/api.
const aggregator = (dir: string, pkg: string): Source => ({ repo: aggregatorDir, rev: RELEASE, dir, pkg, upstream: `k8s.io.kube_aggregator.${dir.replaceAll('/', '.')}` });
// CustomResourceDefinition lives in the apiextensions-apiserver's module.
const extensions = (dir: string, pkg: string): Source => ({ repo: extensionsDir, rev: RELEASE, dir, pkg, upstream: `k8s.io.apiextensions_apiserver.${dir.replaceAll('/', '.')}` });

// The spec's reference release (1.24): the beta versions it still served, removed upstream since.
const REFERENCE = 'v0.24.17';

const SOURCES: Source[] = [
  machinery('pkg/apis/meta/v1', 'meta.v1', 'k8s.io.apimachinery.pkg.apis.meta.v1'),
  machinery('pkg/runtime', 'runtime', 'k8s.io.apimachinery.pkg.runtime'),
  machinery('pkg/runtime/schema', 'schema', 'k8s.io.apimachinery.pkg.runtime.schema'),
  machinery('pkg/api/resource', 'resource', 'k8s.io.apimachinery.pkg.api.resource'),
  machinery('pkg/util/intstr', 'intstr', 'k8s.io.apimachinery.pkg.util.intstr'),
  api('core/v1'),
  api('apps/v1'),
  api('batch/v1'),
  api('autoscaling/v1'),
  api('autoscaling/v2'),
  api('autoscaling/v2beta1', REFERENCE),
  api('autoscaling/v2beta2', REFERENCE),
  api('batch/v1beta1', REFERENCE, ['CronJob', 'CronJobList']),
  api('discovery/v1'),
  api('discovery/v1beta1', REFERENCE),
  api('events/v1beta1', REFERENCE),
  api('flowcontrol/v1beta1', REFERENCE),
  api('flowcontrol/v1beta2', REFERENCE),
  api('node/v1beta1', REFERENCE, ['RuntimeClass', 'RuntimeClassList']),
  api('storage/v1beta1', REFERENCE, ['CSIStorageCapacity', 'CSIStorageCapacityList']),
  api('rbac/v1'),
  api('networking/v1'),
  api('policy/v1'),
  // PodDisruptionBudget as its stable twin has it today; PodSecurityPolicy from before its removal.
  api('policy/v1beta1', RELEASE, ['PodDisruptionBudget', 'PodDisruptionBudgetList']),
  api('policy/v1beta1', REFERENCE, ['PodSecurityPolicy', 'PodSecurityPolicyList']),
  api('storage/v1'),
  api('coordination/v1'),
  api('certificates/v1'),
  api('events/v1'),
  api('node/v1'),
  api('scheduling/v1'),
  api('admissionregistration/v1'),
  api('admissionregistration/v1beta1'),
  api('authentication/v1'),
  api('authentication/v1beta1'),
  api('authorization/v1'),
  aggregator('pkg/apis/apiregistration/v1', 'apiregistration.v1'),
  extensions('pkg/apis/apiextensions/v1', 'apiextensions.v1'),
];

/** Messages every kind shares, kept even when no kind reaches them (options, envelope, watch). */
const ROOTS_META = [
  'meta.v1.Status',
  'meta.v1.DeleteOptions',
  'meta.v1.CreateOptions',
  'meta.v1.UpdateOptions',
  'meta.v1.PatchOptions',
  'meta.v1.WatchEvent',
  'meta.v1.PartialObjectMetadata',
  'meta.v1.PartialObjectMetadataList',
  'runtime.Unknown',
];

function git(repo: string, rev: string, file: string): string {
  return execFileSync('git', ['--git-dir', repo, 'show', `${rev}:${file}`], { encoding: 'utf8', maxBuffer: 64 << 20 });
}
function gitFiles(repo: string, rev: string, dir: string): string[] {
  return execFileSync('git', ['--git-dir', repo, 'ls-tree', '--name-only', `${rev}:${dir}`], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
}

interface GoField {
  json: string;
  omitempty: boolean;
  pointer: boolean;
  /** An embedded struct whose fields JSON writes into the parent (`json:",inline"`). */
  inline: boolean;
}

/** Go struct tags of a package: struct name → protobuf field number → JSON facts. */
function goFields(src: Source): Map<string, Map<number, GoField>> {
  const out = new Map<string, Map<number, GoField>>();
  for (const f of gitFiles(src.repo, src.rev, src.dir)) {
    if (!f.endsWith('.go') || f.endsWith('_test.go') || f.startsWith('zz_') || f === 'generated.pb.go') continue;
    const text = git(src.repo, src.rev, `${src.dir}/${f}`);
    const structRe = /^type (\w+) struct \{\n([\s\S]*?)^\}/gm;
    for (const m of text.matchAll(structRe)) {
      const fields = new Map<number, GoField>();
      for (const line of m[2]!.split('\n')) {
        // `Name Type `tags`` or an embedded `Type `tags``.
        const fm = /^\s+(?:\w+\s+)?(\S+)\s+`([^`]*)`/.exec(line);
        if (!fm) continue;
        const tag = fm[2]!;
        const pb = /protobuf:"([^"]*)"/.exec(tag);
        const js = /json:"([^"]*)"/.exec(tag);
        if (!pb || !js) continue;
        // The tag's second element is the field number (`bytes,1,opt,name=x`; embedded ones may lack the name).
        const id = Number(pb[1]!.split(',')[1]);
        const [jsonName, ...opts] = js[1]!.split(',');
        if (!Number.isInteger(id)) continue;
        const inline = jsonName === '' && opts.includes('inline');
        fields.set(id, { json: jsonName!, omitempty: opts.includes('omitempty'), pointer: fm[1]!.startsWith('*'), inline });
      }
      if (fields.size) out.set(m[1]!, fields);
    }
  }
  return out;
}

const root = new protobuf.Root();
const goInfo = new Map<string, Map<number, GoField>>(); // short message name → fields
const rename = new Map<string, string>(); // upstream package → short package
for (const src of SOURCES) {
  rename.set(src.upstream, src.pkg);
  const proto = git(src.repo, src.rev, `${src.dir}/generated.proto`);
  const parsed = protobuf.parse(proto, new protobuf.Root(), { keepCase: true });
  const ns = parsed.root.lookup(src.upstream) as protobuf.Namespace;
  // Move the package under its short name in the combined root. A package read at two revisions
  // takes each message from the first source listing it.
  const target = root.define(src.pkg);
  for (const nested of [...ns.nestedArray]) {
    if (target.get(nested.name)) continue;
    ns.remove(nested);
    target.add(nested);
  }
  for (const [struct, fields] of goFields(src)) if (!goInfo.has(`${src.pkg}.${struct}`)) goInfo.set(`${src.pkg}.${struct}`, fields);
}

function shortName(upstreamRef: string): string {
  const ref = upstreamRef.replace(/^\./, '');
  let best = '';
  for (const up of rename.keys()) if (ref.startsWith(up + '.') && up.length > best.length) best = up;
  return best ? `${rename.get(best)}${ref.slice(best.length)}` : ref;
}

const SCALARS = new Set(['double', 'float', 'int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64', 'fixed32', 'fixed64', 'sfixed32', 'sfixed64', 'bool', 'string', 'bytes']);

/** Fields as [protoName, number, type, flags, jsonName?]; flags: r repeated, m map (the type is the
 *  value type, keys are strings), p pointer, o omitempty, i inline (the message's fields are the
 *  parent's in JSON). The JSON name is given when it differs. */
type Message = Array<[string, number, string, string, string?]>;

const messages: Record<string, Message> = {};
const lists: string[] = [];
const enums: Set<string> = new Set();
const queue: string[] = [];

function want(name: string): void {
  if (!(name in messages) && !queue.includes(name)) queue.push(name);
}

function typeRef(field: protobuf.Field, owner: string): string {
  if (SCALARS.has(field.type)) return field.type;
  const absolute = field.type.startsWith('.') || [...rename.keys()].some((up) => field.type.startsWith(up + '.'));
  return absolute ? shortName(field.type) : `${owner.slice(0, owner.lastIndexOf('.'))}.${field.type}`;
}

// Seed: every message of the API packages, plus the shared roots; meta and runtime messages are
// kept only when reached.
for (const src of SOURCES) {
  if (src.repo === machineryDir) continue;
  for (const n of (root.lookup(src.pkg) as protobuf.Namespace).nestedArray) {
    if (n instanceof protobuf.Type && (!src.only || src.only.includes(n.name))) want(`${src.pkg}.${n.name}`);
  }
}
for (const r of ROOTS_META) want(r);

while (queue.length) {
  const name = queue.shift()!;
  const t = root.lookup(name);
  if (t instanceof protobuf.Enum) {
    enums.add(name);
    continue;
  }
  if (!(t instanceof protobuf.Type)) throw new Error(`unresolved message ${name}`);
  const go = goInfo.get(name);
  const out: Message = [];
  for (const f of t.fieldsArray) {
    const isMap = f instanceof protobuf.MapField;
    const type = typeRef(f, name);
    if (!SCALARS.has(type)) want(type);
    const g = go?.get(f.id);
    let flags = '';
    if (f.repeated) flags += 'r';
    if (isMap) flags += 'm';
    if (g?.pointer) flags += 'p';
    if (g ? g.omitempty : true) flags += 'o';
    if (g?.inline) flags += 'i';
    const entry: [string, number, string, string, string?] = [f.name, f.id, type, flags];
    if (g && !g.inline && g.json !== f.name) entry.push(g.json);
    out.push(entry);
  }
  messages[name] = out;
  // A named Go slice (`type ExtraValue []string`) is a message of one repeated `items` field whose
  // JSON form is the bare list.
  if (!go && out.length === 1 && out[0]![0] === 'items' && out[0]![3].includes('r')) lists.push(name);
}
if (enums.size) throw new Error(`enums are not expected in the API protos: ${[...enums].join(', ')}`);

const sorted = Object.fromEntries(
  Object.keys(messages)
    .sort()
    .map((k) => [k, messages[k]]),
);
const here = path.dirname(fileURLToPath(import.meta.url));
const file = path.join(here, '..', 'proto', 'k8s', 'wire.json');
writeFileSync(file, JSON.stringify({ generatedBy: 'scripts/gen-proto.ts', lists: lists.sort(), messages: sorted }, null, 0).replace(/\],"/g, '],\n"') + '\n');
console.log(`${Object.keys(sorted).length} messages → ${path.relative(process.cwd(), file)}`);
