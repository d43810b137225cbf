// The JSON paths a schema's `x-kubernetes-validations[].fieldPath` and a version's
// `selectableFields[].jsonPath` name (`.spec.replicas`, `.spec['x.y']`): resolved against the
// structural schema, with the reasons upstream gives when one names no field.

import { isNode, own, type SchemaNode } from './schema-props.js';

export interface ResolvedPath {
  /** The path's segments as named (`['spec', 'replicas']`). */
  segments: string[];
  /** The schema of the field it names. */
  schema: SchemaNode;
}

/** Splits into `.`, `[` and `]` and the text between them; a quoted string inside brackets is one token. */
function tokenize(path: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < path.length) {
    const c = path[i]!;
    if (c === '.' || c === '[' || c === ']') {
      out.push(c);
      i++;
    } else if (c === "'") {
      let j = i + 1;
      while (j < path.length && !(path[j] === "'" && path[j - 1] !== '\\')) j++;
      out.push(path.slice(i, j + 1));
      i = j + 1;
    } else {
      let j = i;
      while (j < path.length && !'.[]'.includes(path[j]!)) j++;
      out.push(path.slice(i, j));
      i = j;
    }
  }
  return out;
}

function unescapeQuoted(s: string): string {
  return s.replace(/\\(.)/g, '$1');
}

/** Steps into `name`: a declared property, or any key of a map (additionalProperties). */
function step(schema: SchemaNode, name: string): SchemaNode | string {
  const props = own(schema, 'properties');
  if (isNode(props) && Object.keys(props).length > 0) {
    const next = own(props, name);
    return isNode(next) ? next : 'does not refer to a valid field';
  }
  const ap = own(schema, 'additionalProperties');
  if (ap !== undefined) return isNode(ap) ? ap : {};
  return 'does not refer to a valid field';
}

/**
 * The field a path names in `root`, or why it names none. `allowBrackets` false refuses the
 * `['key']` form (selectable fields).
 */
export function resolveFieldPath(path: string, root: SchemaNode, allowBrackets = true): ResolvedPath | string {
  const tokens = tokenize(path);
  let schema = root;
  const segments: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i]!;
    let name: string;
    if (tok === '[') {
      if (!allowBrackets) return 'array notation is not allowed';
      const quoted = tokens[++i];
      if (quoted === undefined) return 'unexpected end of JSON path';
      if (quoted.length < 2 || !quoted.startsWith("'") || !quoted.endsWith("'")) return `expected single quoted string but got ${quoted}`;
      name = unescapeQuoted(quoted.slice(1, -1));
      const close = tokens[++i];
      if (close === undefined) return 'unexpected end of JSON path';
      if (close !== ']') return `expected ] but got ${close}`;
    } else if (tok === '.') {
      const next = tokens[++i];
      if (next === undefined) return 'unexpected end of JSON path';
      name = next;
    } else {
      return `expected [ or . but got: ${tok}`;
    }
    const found = step(schema, name);
    if (typeof found === 'string') return found;
    schema = found;
    segments.push(name);
  }
  return { segments, schema };
}
