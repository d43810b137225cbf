// Regular expressions as upstream reads them: Go's RE2 syntax and semantics (re2js, a port of RE2).
// OpenAPI `pattern`s in CustomResourceDefinitions are written for Go: inline flags such as `(?i)`,
// `\z`, POSIX classes and `(?P<name>…)` are RE2 that JavaScript's engine refuses or reads
// otherwise, and RE2 runs in linear time, so a definition's pattern cannot stall the server on a
// crafted value the way a backtracking engine can.

import { RE2JS } from 're2js';

/** A compiled pattern: `test` is true when it matches anywhere in the string, as JSON Schema's `pattern`. */
export interface GoRegexp {
  test(s: string): boolean;
  /** Go's FindAllString: up to `limit` successive non-overlapping matches (all when negative). */
  findAll(s: string, limit: number): string[];
}

/** Compiles `pattern`; throws Error with Go's message ("error parsing regexp: …") when RE2 refuses it. */
export function compileGoRegexp(pattern: string): GoRegexp {
  const re = RE2JS.compile(pattern);
  const re2 = re.re2();
  return { test: (s) => re.matcher(s).find(), findAll: (s, limit) => (re2.findAll(s, limit) as string[] | null) ?? [] };
}

/** Go's message for a pattern RE2 refuses, or undefined when it compiles. */
export function goRegexpProblem(pattern: string): string | undefined {
  // Go 1.18 (upstream 1.24's) reads every `(?<` as unsupported Perl syntax; RE2's later named groups are not in it.
  const lookaround = /\(\?[<=!]/.exec(pattern);
  if (lookaround) return 'error parsing regexp: invalid or unsupported Perl syntax: `' + lookaround[0].slice(0, 3) + '`';
  try {
    RE2JS.compile(pattern);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * An ajv RegExp engine on RE2 (the `u` flag is moot: RE2 matches code points). ajv keys the
 * compiled patterns of a schema by their `toString()`, so each says its own source.
 */
export const goRegExpEngine = Object.assign((pattern: string) => ({ ...compileGoRegexp(pattern), toString: () => `/${pattern}/` }), { code: 'goRegExpEngine' });
