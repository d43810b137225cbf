// The YAML decoder of request bodies (decode.ts): a JSON body sent as YAML takes the JSON scanner;
// anything else is bounded in depth before the yaml library parses it, then walked once (exact
// depth, duplicate keys, numbers, the size aliases and merge keys expand to) before its value is
// built.

import { Composer, isAlias, isMap, isPair, isScalar, isSeq, LineCounter, Parser, type Document, type Node as YamlNode } from 'yaml';
import { badRequest } from './status.js';
import { cloneJson, setOwn } from './own-keys.js';
import { fieldName, numberError, shortLiteral } from './decode-numbers.js';
import { depthError, scanJson } from './json-scan.js';
import { estimateYamlDepth } from './yaml-depth.js';

/**
 * How many nodes aliases and merge keys may add to a YAML document when it is expanded: the larger
 * of this and the document's own node count. Counted over the composed document before anything
 * is expanded (each anchored node's expanded size once), so "billion laughs" and chained merge
 * keys, whose expansion doubles per line, are refused in time linear in the text. Upstream bounds
 * the same thing: a budget of expansions relative to the document's size.
 */
export const MAX_YAML_ALIAS_EXPANSION = 10_000;

/**
 * What a pass over a composed document needs. Aliases are resolved by anchor name in document
 * order (the last anchor of that name before the alias, as YAML says), with one map kept during
 * the pass: the library's own resolution scans every anchor and alias for each alias, which is
 * quadratic in their number.
 */
interface YamlWalk {
  maxDepth: number;
  dups: string[];
  /** Height and expanded node count of the last node anchored under each name, once walked. */
  anchored: Map<string, Extent>;
  aliases: number;
  /** Nodes written in the text (an alias counts one). */
  nodes: number;
  lines: LineCounter;
  text: string;
}

interface Extent {
  height: number;
  /** Nodes once every alias and merge key under it is expanded. */
  size: number;
  /** A scalar's property name, for an alias used as a mapping key. */
  key?: string;
}

/** An anchor whose node is still being walked: an alias to it would contain itself. */
const OPEN: Extent = { height: 0, size: 0 };

function yamlError(w: { lines: LineCounter }, offset: number, detail: string): Error {
  const { line, col } = w.lines.linePos(offset);
  return badRequest(`the YAML request body is malformed: ${detail} at line ${line}, column ${col}`);
}

function offsetOf(node: unknown): number {
  return (node as YamlNode | null)?.range?.[0] ?? 0;
}

/** A plain `<<` key (the composer resolves it to a symbol when merge keys are on). */
function isMergeKey(key: unknown): boolean {
  return isScalar(key) && typeof key.value === 'symbol' && key.value.description === '<<';
}

/** The JS property name of a scalar key, as the library's own conversion names it. */
function keyName(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
}

function resolveAnchor<T>(w: { lines: LineCounter }, anchors: Map<string, T>, alias: YamlNode & { source: string }, open: T): T {
  const found = anchors.get(alias.source);
  if (found === undefined) throw yamlError(w, offsetOf(alias), `the alias *${alias.source} names no anchor before it`);
  if (found === open) throw yamlError(w, offsetOf(alias), `the alias *${alias.source} is inside the node it names`);
  return found;
}

/**
 * Exact depth check, duplicate keys and value checks over the composed document (its depth is
 * already bounded by the estimate, so recursion is safe). Returns the node's height and expanded
 * size; an alias counts as the node it names, so anchoring deep data cannot dodge the depth
 * limit, and a merge key's alias counts the whole merged map. Linear in the text: nothing is
 * expanded here.
 */
function walkYaml(w: YamlWalk, node: unknown, depth: number, path: string): Extent {
  w.nodes++;
  if (isAlias(node)) {
    w.aliases++;
    const e = resolveAnchor(w, w.anchored, node, OPEN);
    if (depth + e.height - 1 > w.maxDepth) throw depthError(w.text, offsetOf(node), w.maxDepth, 'YAML');
    return e;
  }
  const anchor = (node as YamlNode | null)?.anchor;
  if (anchor) w.anchored.set(anchor, OPEN);
  let h = 0;
  let size = 1;
  if (isMap(node) || isSeq(node)) {
    if (depth > w.maxDepth) throw depthError(w.text, offsetOf(node), w.maxDepth, 'YAML');
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const k = pair.key;
        let key: string;
        if (k == null) key = '';
        else if (isScalar(k)) {
          key = keyName(k.value);
          if (k.anchor) w.anchored.set(k.anchor, { height: 0, size: 1, key });
        } else if (isAlias(k)) {
          const t = resolveAnchor(w, w.anchored, k, OPEN).key;
          if (t === undefined) throw yamlError(w, offsetOf(k), 'mapping keys must be scalars');
          key = t;
        } else {
          throw yamlError(w, offsetOf(k), 'mapping keys must be scalars');
        }
        if (!isMergeKey(k)) {
          if (seen.has(key)) w.dups.push(`${path}.${key}`);
          else seen.add(key);
        }
        w.nodes++; // the key
        const e = walkYaml(w, pair.value, depth + 1, `${path}.${key}`);
        h = Math.max(h, e.height);
        size += 1 + e.size;
      }
    } else {
      node.items.forEach((item, idx) => {
        const e = walkYaml(w, item, depth + 1, `${path}[${idx}]`);
        h = Math.max(h, e.height);
        size += e.size;
      });
    }
    h += 1;
  } else if (isScalar(node) && typeof node.value === 'number') {
    checkYamlNumber(w, node.value, node.source, node.format, offsetOf(node), path);
  }
  const e: Extent = { height: h, size };
  if (isScalar(node)) e.key = keyName(node.value);
  if (anchor) w.anchored.set(anchor, e);
  return e;
}

/** An anchored node and the value built for it. */
interface Built {
  node: YamlNode;
  value: unknown;
}

/**
 * Builds the JSON value of a walked document. Every alias gets its own copy of the value it
 * names, so changing one place later (defaulting, patching) never shows in another; merge keys
 * follow YAML's merge type (a key already in the map, or from an earlier source, wins). The walk
 * bounded the expanded size, and the work here is linear in it.
 */
class YamlBuilder {
  private readonly anchors = new Map<string, Built>();
  private readonly open: Built = { node: null as unknown as YamlNode, value: undefined };

  constructor(private readonly w: { lines: LineCounter }) {}

  value(node: unknown): unknown {
    if (node == null) return null;
    if (isAlias(node)) return cloneJson(resolveAnchor(this.w, this.anchors, node, this.open).value);
    const anchor = (node as YamlNode).anchor;
    if (anchor) this.anchors.set(anchor, this.open);
    let v: unknown;
    if (isMap(node)) v = this.map(node.items);
    else if (isSeq(node)) v = node.items.map((item) => this.value(item));
    else if (isScalar(node)) v = node.value;
    else throw yamlError(this.w, offsetOf(node), 'unsupported node');
    if (anchor) this.anchors.set(anchor, { node: node as YamlNode, value: v });
    return v;
  }

  private map(pairs: unknown[]): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const pair of pairs) {
      if (!isPair(pair)) continue;
      if (isMergeKey(pair.key)) {
        for (const source of this.mergeSources(pair.value)) {
          for (const [k, v] of Object.entries(source)) if (!Object.hasOwn(out, k)) setOwn(out, k, cloneJson(v));
        }
        continue;
      }
      setOwn(out, this.key(pair.key), this.value(pair.value));
    }
    return out;
  }

  private key(k: unknown): string {
    if (isAlias(k)) return keyName(this.value(k));
    if (isScalar(k)) {
      const name = keyName(k.value);
      if (k.anchor) this.anchors.set(k.anchor, { node: k, value: k.value });
      return name;
    }
    return '';
  }

  /** The maps a merge key's value names: a map, an alias of one, or a sequence of those. */
  private mergeSources(value: unknown): Record<string, unknown>[] {
    const target = isAlias(value) ? resolveAnchor(this.w, this.anchors, value, this.open) : undefined;
    const node = target ? target.node : value;
    if (isSeq(node)) return node.items.map((item) => this.mergeSource(item));
    return [target && isMap(target.node) ? (target.value as Record<string, unknown>) : this.mergeSource(value)];
  }

  private mergeSource(item: unknown): Record<string, unknown> {
    const target = isAlias(item) ? resolveAnchor(this.w, this.anchors, item, this.open) : undefined;
    const node = target ? target.node : item;
    if (!isMap(node)) throw yamlError(this.w, offsetOf(item), 'merge sources must be maps or aliases of maps');
    return (target ? target.value : this.value(item)) as Record<string, unknown>;
  }
}

/**
 * A YAML number must be what the JSON it stands for would hold: finite (no `.inf`, `.nan` or
 * overflow) and, for integers, exact. A decimal integer with a leading zero is refused as well:
 * upstream's YAML 1.1 decoder reads `017` as octal 15, YAML 1.2 (this library) as 17, and the
 * writer's intent cannot be known.
 */
function checkYamlNumber(w: YamlWalk, value: number, source: unknown, format: string | undefined, offset: number, path: string): void {
  const lit = typeof source === 'string' ? source : String(value);
  const where = (): string => {
    const { line, col } = w.lines.linePos(offset);
    return `line ${line}, column ${col}`;
  };
  if (Number.isNaN(value) || (!Number.isFinite(value) && /^[-+]?\./.test(lit))) throw numberError('YAML', `${lit} at ${fieldName(path)} is not a valid JSON number`, where());
  if (!Number.isFinite(value)) throw numberError('YAML', `the number ${shortLiteral(lit)} at ${fieldName(path)} is out of the range of a 64-bit float`, where());
  const decimalInt = /^[-+]?[0-9]+$/.test(lit);
  if (decimalInt && /^[-+]?0[0-9]/.test(lit)) {
    throw numberError('YAML', `the integer ${lit} at ${fieldName(path)} is ambiguous (octal in YAML 1.1, decimal in YAML 1.2); write it without leading zeros, as 0o… for octal, or quote it`, where());
  }
  if ((decimalInt || format === 'HEX' || format === 'OCT') && !Number.isSafeInteger(value)) {
    throw numberError('YAML', `the integer ${shortLiteral(lit)} at ${fieldName(path)} cannot be represented exactly; integers must lie within ±${Number.MAX_SAFE_INTEGER}`, where());
  }
}

function firstNonSpace(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return c;
  }
  return -1;
}

/** A YAML body's value and duplicate fields (decode.ts's DecodedValue). */
export function decodeYaml(text: string, maxDepth: number): { value: unknown; duplicateFields: string[] } {
  // JSON is YAML, and clients (client-go's apply among them) send JSON as apply-patch+yaml. The
  // JSON path is two orders of magnitude faster than the yaml library on large bodies.
  const c0 = firstNonSpace(text);
  if (c0 === 0x7b || c0 === 0x5b) {
    let dups: string[] | undefined;
    try {
      dups = scanJson(text, maxDepth);
    } catch {
      // Not JSON (e.g. a flow mapping `{a: 1}`): the YAML path decides, with its own errors.
    }
    if (dups) return { value: JSON.parse(text), duplicateFields: dups };
  }
  // A generous bound here (the estimate may overshoot by up to 2x); the exact limit follows.
  const est = estimateYamlDepth(text, 2 * maxDepth + 16);
  if (est.depth > 2 * maxDepth + 16) throw depthError(text, est.at, maxDepth, 'YAML');
  const lines = new LineCounter();
  const docs: Document.Parsed[] = [];
  try {
    const tokens = new Parser(lines.addNewLine).parse(text);
    const composer = new Composer({ uniqueKeys: false, merge: true, prettyErrors: false, strict: true });
    for (const d of composer.compose(tokens, true, text.length)) docs.push(d as Document.Parsed);
  } catch (err) {
    // The library recursing past the stack on a layout the pre-scan did not count: the client's
    // body, not the server, is at fault.
    if (err instanceof RangeError) throw badRequest(`the YAML request body nests too deeply to decode (${err.message})`);
    throw err;
  }

  // A trailing `---` leaves an empty document behind: that is not a second object.
  const nonEmpty = docs.filter((d) => d.errors.length > 0 || !(d.contents === null || (isScalar(d.contents) && d.contents.value === null)));
  for (const d of nonEmpty) {
    const e = d.errors[0];
    if (e) throw yamlError({ lines }, e.pos[0], e.message);
  }
  if (nonEmpty.length > 1) throw badRequest(`the YAML request body holds ${nonEmpty.length} documents; exactly one is allowed`);
  const doc = nonEmpty[0];
  if (!doc) return { value: null, duplicateFields: [] };

  const w: YamlWalk = { maxDepth, dups: [], anchored: new Map(), aliases: 0, nodes: 0, lines, text };
  const { size } = walkYaml(w, doc.contents, 1, '');
  const allowed = w.nodes + Math.max(MAX_YAML_ALIAS_EXPANSION, w.nodes);
  if (size > allowed) {
    const expanded = Number.isFinite(size) && size < 1e15 ? String(size) : 'more than 10^15';
    throw badRequest(`the YAML request body uses aliases or merge keys that expand its ${w.nodes} nodes to ${expanded}; at most ${allowed} are allowed`);
  }
  return { value: new YamlBuilder(w).value(doc.contents), duplicateFields: w.dups };
}
