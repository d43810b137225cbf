// Static token file (`--token-auth-file`): CSV rows `token,user,uid[,"group1,group2"[,...]]`.
// Tokens are long-lived and read once at start-up; a change needs a restart, as upstream.
// The file is validated strictly: one bad row fails start-up with its line number, because a
// silently skipped row is an administrator locked out (or a token that still works) later.

import { createHash, timingSafeEqual } from 'node:crypto';
import type { UserInfo } from '../../../shared/api/types.js';
import { CsvError, parseCsv } from '../csv.js';
import { skip, type AuthnResult, type TokenAuthenticator } from '../types.js';
import { cloneJson } from '../../../shared/patch/json-value.js';

export interface StaticTokenEntry {
  token: string;
  user: UserInfo;
  /** Line of the file the entry came from, for error messages. */
  line: number;
}

export class TokenFileError extends Error {
  override name = 'TokenFileError';
}

/** Parses the file's text. Never puts a token value into an error message. */
export function parseTokenFile(text: string, source = 'token file'): StaticTokenEntry[] {
  let records;
  try {
    records = parseCsv(text);
  } catch (err) {
    if (err instanceof CsvError) throw new TokenFileError(`${source}: ${err.message}`);
    throw err;
  }
  const seen = new Map<string, number>();
  const entries: StaticTokenEntry[] = [];
  for (const { line, fields } of records) {
    const where = `${source}: line ${line}`;
    if (fields.length < 3) throw new TokenFileError(`${where}: expected at least 3 columns (token, user name, user uid), found ${fields.length}`);
    const [token, name, uid, groupsColumn] = fields as [string, string, string, string | undefined];
    if (token === '') throw new TokenFileError(`${where}: the token column is empty`);
    if (/\s/.test(token)) throw new TokenFileError(`${where}: the token contains whitespace`);
    if (name === '') throw new TokenFileError(`${where}: the user name column is empty`);
    const first = seen.get(token);
    if (first !== undefined) throw new TokenFileError(`${where}: duplicate token (first defined on line ${first})`);
    seen.set(token, line);
    const user: UserInfo = { username: name, groups: [] };
    if (uid !== '') user.uid = uid;
    if (groupsColumn !== undefined) {
      user.groups = groupsColumn
        .split(',')
        .map((g) => g.trim())
        .filter((g) => g !== '');
    }
    entries.push({ token, user, line });
  }
  return entries;
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/**
 * Compares SHA-256 digests with timingSafeEqual against every entry, without stopping at a
 * match, so neither the token's content nor its position in the file shows in the timing.
 */
export function createStaticTokenAuthenticator(entries: StaticTokenEntry[]): TokenAuthenticator {
  const table = entries.map((e) => ({ hash: digest(e.token), user: e.user }));
  return {
    name: 'token-file',
    authenticateToken(token: string): AuthnResult {
      const presented = digest(token);
      let found: UserInfo | undefined;
      for (const row of table) {
        if (timingSafeEqual(row.hash, presented) && !found) found = row.user;
      }
      if (!found) return skip;
      return { kind: 'ok', user: cloneJson(found) };
    },
  };
}
