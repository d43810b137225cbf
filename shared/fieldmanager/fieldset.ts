// Sets of field paths, the unit of ownership in server-side apply, and their `FieldsV1` form in
// managedFields. A path is a list of elements: `f:<field>` (a struct field or map key),
// `k:<json>` (a list item by its key fields), `v:<json>` (a set item by value), `i:<n>` (an item of
// a list without keys). In FieldsV1 a member with nothing below it is `{}`; a member that also has
// members below it carries `".": {}`; a node without "." only leads to members.

export type PathElement = string;
export type Path = readonly PathElement[];

export class FieldSet {
  /** This path itself is in the set. */
  member = false;
  readonly children = new Map<PathElement, FieldSet>();

  child(e: PathElement): FieldSet {
    let c = this.children.get(e);
    if (!c) {
      c = new FieldSet();
      this.children.set(e, c);
    }
    return c;
  }

  insert(path: Path): void {
    let n: FieldSet = this;
    for (const e of path) n = n.child(e);
    n.member = true;
  }

  has(path: Path): boolean {
    let n: FieldSet | undefined = this;
    for (const e of path) {
      n = n.children.get(e);
      if (!n) return false;
    }
    return n.member;
  }

  isEmpty(): boolean {
    if (this.member) return false;
    for (const c of this.children.values()) if (!c.isEmpty()) return false;
    return true;
  }

  /** Every member path, parents before children. */
  paths(prefix: PathElement[] = [], out: PathElement[][] = []): PathElement[][] {
    if (this.member) out.push(prefix);
    for (const [e, c] of this.children) c.paths([...prefix, e], out);
    return out;
  }

  // The set operations walk both trees side by side (no path lists, no walks from the root per
  // member): field management runs them on every write. Their results hold exactly the nodes that
  // inserting the resulting members one by one would make.

  /** This set (as cloned) with every member of `other` inserted. */
  union(other: FieldSet): FieldSet {
    const out = this.clone();
    out.insertAll(other);
    return out;
  }

  /** Members of this set that are not in `other`. */
  difference(other: FieldSet): FieldSet {
    return this.filtered(other, false) ?? new FieldSet();
  }

  intersection(other: FieldSet): FieldSet {
    return this.filtered(other, true) ?? new FieldSet();
  }

  /** Inserts every member of `other` (and only the nodes leading to them). */
  insertAll(other: FieldSet): void {
    if (other.member) this.member = true;
    for (const [e, c] of other.children) if (!c.isEmpty()) this.child(e).insertAll(c);
  }

  /** The members of this set that `other` has (`keep`) or lacks; undefined when there are none. */
  private filtered(other: FieldSet | undefined, keep: boolean): FieldSet | undefined {
    let out: FieldSet | undefined;
    if (this.member && (other?.member ?? false) === keep) {
      out = new FieldSet();
      out.member = true;
    }
    for (const [e, c] of this.children) {
      const sub = c.filtered(other?.children.get(e), keep);
      if (sub) (out ??= new FieldSet()).children.set(e, sub);
    }
    return out;
  }

  clone(): FieldSet {
    const out = new FieldSet();
    out.member = this.member;
    for (const [e, c] of this.children) out.children.set(e, c.clone());
    return out;
  }

  /** The FieldsV1 JSON object of this set (empty children pruned). */
  toFieldsV1(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [e, c] of [...this.children].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (c.isEmpty()) continue;
      const below = c.toFieldsV1();
      if (c.member && Object.keys(below).length) out[e] = { '.': {}, ...below };
      else out[e] = below;
    }
    return out;
  }

  static fromFieldsV1(v: unknown): FieldSet {
    const out = new FieldSet();
    const walk = (node: FieldSet, json: unknown) => {
      if (!json || typeof json !== 'object' || Array.isArray(json)) return;
      const keys = Object.keys(json);
      if (keys.length === 0) node.member = true;
      for (const k of keys) {
        if (k === '.') node.member = true;
        else if (/^[fkvi]:/.test(k)) walk(node.child(k), (json as Record<string, unknown>)[k]);
      }
    };
    walk(out, v);
    out.member = false;
    return out;
  }
}

/** `.spec.containers[name="c"].image`, as conflicts name fields. */
export function pathString(path: Path): string {
  let s = '';
  for (const e of path) {
    const body = e.slice(2);
    switch (e[0]) {
      case 'f':
        s += `.${body}`;
        break;
      case 'k': {
        const keys = JSON.parse(body) as Record<string, unknown>;
        s += `[${Object.entries(keys)
          .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
          .join(',')}]`;
        break;
      }
      case 'v':
        s += `[=${body}]`;
        break;
      default:
        s += `[${body}]`;
    }
  }
  return s;
}
