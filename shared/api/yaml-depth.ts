// A cheap bound on the nesting depth of a YAML text, taken before the yaml library sees it (see
// estimateYamlDepth).

/**
 * An upper bound (within about a factor of two) on the nesting depth of a YAML text, computed
 * character by character. The yaml library's lexer and parser recurse on compact nesting
 * (`- - - …`) and slow down sharply on deep flow nesting, so hostile depth has to be refused
 * before the library sees the text; the exact limit is enforced on the composed document after.
 * Lines are followed with an indentation stack; each line adds its leading indicators
 * (`- `, `? `, `: `) and a mapping key, flow collections add their bracket depth; quoted scalars,
 * comments and block scalar bodies are skipped.
 */
// eslint-disable-next-line max-lines-per-function -- one character loop whose quote, flow and block-scalar state carries across lines; split further, every step would take and return all of it
export function estimateYamlDepth(text: string, limit: number): { depth: number; at: number } {
  const n = text.length;
  // Indentation stack of block lines: a line nests in the nearest less-indented line's depth.
  const lines: BlockLine[] = [];
  let max = 0;
  let i = 0;
  let flow = 0;
  let flowBase = 0;
  // Indicators at the start of a token inside flow collections (`- `, which YAML forbids there, and
  // `? `, `: ` with no scalar between them) and node properties: the library rejects a run of them
  // only after recursing, or rescanning, once each, so a run counts as levels until a scalar or a
  // comma ends it (across lines, and until the outermost flow collection closes).
  let flowRun = 0;
  // Implicit keys' `: ` within one flow entry (`[a: b: c: …]`): a flow entry holds one pair, yet
  // the library recurses once per key; only a comma (or the close) ends the entry.
  let flowKeys = 0;
  // Block entries (`- `) inside flow collections, which YAML forbids there: counted whatever comes
  // between them, until the outermost flow collection closes (`[\n- x\n- x\n…` too).
  let flowDashes = 0;
  let quote = 0; // 0x22 / 0x27 while inside a quoted scalar
  let scalarParent = -1; // >= 0 while inside a block scalar: the indentation of its header line
  let scalarIndent = -1; // the block scalar's content indentation, once known
  while (i < n) {
    let indent = 0;
    while (i + indent < n && text.charCodeAt(i + indent) === 0x20) indent++;
    let j = i + indent;
    const c0 = j < n ? text.charCodeAt(j) : 0x0a;
    const blank = c0 === 0x0a || c0 === 0x0d;
    if (scalarParent >= 0) {
      if (scalarIndent < 0 && !blank && indent > scalarParent) scalarIndent = indent;
      if (blank || (scalarIndent >= 0 && indent >= scalarIndent)) {
        i = lineEnd(text, i) + 1;
        continue;
      }
      scalarParent = scalarIndent = -1;
    }
    let lineDepth: number;
    if (quote === 0 && flow === 0) {
      if (blank || c0 === 0x23) {
        i = lineEnd(text, i) + 1;
        continue;
      }
      ({ j, lineDepth } = blockLine(text, lines, indent, j));
    } else {
      j = i;
      lineDepth = flowBase;
    }
    // Levels this line opens after its leading indicators: a mapping key's `: `, and compact
    // block indicators that follow one (`x: - - - y`, `a: b: c`), which the library rejects
    // only after recursing once per indicator.
    let inline = 0;
    let tokenStart = true;
    let afterIndicator = false;
    for (; j < n; j++) {
      const c = text.charCodeAt(j);
      if (c === 0x0a) break;
      if (quote !== 0) {
        if (quote === 0x22 && c === 0x5c) j++;
        else if (c === quote) {
          if (quote === 0x27 && text.charCodeAt(j + 1) === 0x27) j++;
          else quote = 0;
        }
        tokenStart = false;
        continue;
      }
      if (c === 0x20 || c === 0x09) {
        tokenStart = true;
        continue;
      }
      if (c === 0x23 && tokenStart) break; // comment
      if ((c === 0x22 || c === 0x27) && (tokenStart || flow > 0)) {
        quote = c;
        afterIndicator = false;
        continue;
      }
      if ((c === 0x5b || c === 0x7b) && (flow > 0 || tokenStart)) {
        if (flow === 0) flowBase = lineDepth + inline;
        flow++;
        if (flowBase + flow > max) max = flowBase + flow;
        if (max > limit) return { depth: max, at: j };
        tokenStart = true;
        continue;
      }
      // Node properties (`&anchor`, `!tag`): a node has at most one of each, yet the library
      // rescans a run of them once per property; they leave a compact indicator's run going.
      if ((c === 0x26 || c === 0x21) && tokenStart) {
        j = propertyEnd(text, j, flow > 0) - 1;
        if (flow > 0) flowRun++;
        else inline++;
        const d = flow > 0 ? flowBase + flow + flowRun + flowKeys + flowDashes : lineDepth + inline;
        if (d > limit) return { depth: d, at: j };
        tokenStart = false;
        continue;
      }
      if ((c === 0x5d || c === 0x7d) && flow > 0) {
        flow--;
        flowKeys = 0;
        if (flow === 0) flowRun = flowDashes = 0;
      } else if ((c === 0x2d || c === 0x3f || c === 0x3a) && flow > 0 && (tokenStart || c === 0x3a) && isYamlBreak(text, j + 1)) {
        if (!tokenStart) flowKeys++;
        else if (c === 0x2d) flowDashes++;
        else flowRun++;
        const d = flowBase + flow + flowRun + flowKeys + flowDashes;
        if (d > limit) return { depth: d, at: j };
        tokenStart = true;
        continue;
      } else if (c === 0x2c && flow > 0) {
        flowRun = flowKeys = 0;
        tokenStart = true;
        continue;
      } else if (c === 0x3a && flow === 0 && isYamlBreak(text, j + 1)) {
        inline++;
        if (lineDepth + inline > limit) return { depth: lineDepth + inline, at: j };
        tokenStart = afterIndicator = true;
        continue;
      } else if ((c === 0x2d || c === 0x3f) && flow === 0 && tokenStart && afterIndicator && isYamlBreak(text, j + 1)) {
        inline++;
        if (lineDepth + inline > limit) return { depth: lineDepth + inline, at: j };
        tokenStart = true;
        continue;
      } else if ((c === 0x7c || c === 0x3e) && tokenStart && flow === 0 && isBlockScalarHeader(text, j + 1)) {
        scalarParent = indent;
        scalarIndent = -1;
        j = lineEnd(text, j);
        break;
      }
      tokenStart = false;
      afterIndicator = false;
      flowRun = 0;
    }
    const depth = lineDepth + inline;
    if (quote === 0 && flow === 0 && lines.length && lines[lines.length - 1]!.indent === indent) lines[lines.length - 1]!.depth = depth;
    if (depth > max) max = depth;
    if (max > limit) return { depth: max, at: i };
    i = j + 1;
  }
  return { depth: max, at: n };
}

/** A block line on the indentation stack: its indentation, the depth it starts at and reaches. */
interface BlockLine {
  indent: number;
  base: number;
  depth: number;
  dash: boolean;
}

/**
 * Where a block line (its content from `j`, indented by `indent`) sits: pops the stack to its
 * parent, counts its leading indicators and pushes it. Returns the depth it reaches and the index
 * after its leading indicators.
 */
function blockLine(text: string, lines: BlockLine[], indent: number, j: number): { j: number; lineDepth: number } {
  const n = text.length;
  if (indent === 0 && (text.startsWith('---', j) || text.startsWith('...', j))) {
    lines.length = 0;
    j += 3;
  }
  while (lines.length && lines[lines.length - 1]!.indent > indent) lines.pop();
  let k = j;
  while (k < n && text.charCodeAt(k) === 0x20) k++;
  const dash = text.charCodeAt(k) === 0x2d && isYamlBreak(text, k + 1);
  let base = 0;
  const top = lines[lines.length - 1];
  if (top && top.indent === indent) {
    lines.pop();
    // A sibling; or a sequence written at its parent key's indentation, one level deeper.
    base = top.base + (dash && !top.dash ? 1 : 0);
  } else if (top) {
    base = top.depth;
  }
  let lineDepth = base;
  // Leading indicators: `- `, `? `, `: ` (compact nesting counts one level each).
  for (;;) {
    while (j < n && text.charCodeAt(j) === 0x20) j++;
    const c = text.charCodeAt(j);
    if ((c === 0x2d || c === 0x3f || c === 0x3a) && isYamlBreak(text, j + 1)) {
      lineDepth++;
      j++;
    } else break;
  }
  lines.push({ indent, base, depth: lineDepth, dash });
  return { j, lineDepth };
}

/** The end of a node property (anchor or tag) starting at `i`: the next space or line break, or in flow a flow indicator. */
function propertyEnd(text: string, i: number, inFlow: boolean): number {
  const n = text.length;
  let j = i + 1;
  for (; j < n; j++) {
    const c = text.charCodeAt(j);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) break;
    if (inFlow && (c === 0x2c || c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d)) break;
  }
  return j;
}

function isYamlBreak(text: string, i: number): boolean {
  if (i >= text.length) return true;
  const c = text.charCodeAt(i);
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** After `|` or `>`: indentation/chomping indicators, then only spaces and an optional comment. */
function isBlockScalarHeader(text: string, i: number): boolean {
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x2b || c === 0x2d || (c >= 0x31 && c <= 0x39)) i++;
    else break;
  }
  while (i < n && (text.charCodeAt(i) === 0x20 || text.charCodeAt(i) === 0x09)) i++;
  return i >= n || text.charCodeAt(i) === 0x0a || text.charCodeAt(i) === 0x0d || text.charCodeAt(i) === 0x23;
}

function lineEnd(text: string, from: number): number {
  const e = text.indexOf('\n', from);
  return e < 0 ? text.length : e;
}
