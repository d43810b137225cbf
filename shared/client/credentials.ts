// The Authorization header of a client configuration's user: a token, a token file re-read as it
// rotates (a briefly missing file keeps the last good token, as upstream's cached token source), or
// basic auth. Shared by the API client and every webhook client of the server, as is the one reader
// of token files (the webhook readers also read theirs once at start-up).

import { readFile } from 'node:fs/promises';

/** A token file is re-read at most this often. */
export const TOKEN_FILE_REREAD_MS = 60_000;

export interface StaticCredentials {
  token?: string;
  /** Absolute path; re-read as it rotates. */
  tokenFile?: string;
  basicAuth?: { username: string; password: string };
}

/** A token file's token, trimmed. Errors name the file, never what it holds. */
export async function readTokenFile(file: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new Error(`tokenFile: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const token = text.trim();
  if (!token) throw new Error(`tokenFile ${file} is empty`);
  return token;
}

/** The header value of each request (undefined: send none); a token file's errors are the caller's. */
export function authorizationSource(c: StaticCredentials): () => Promise<string | undefined> {
  if (c.token) {
    const value = `Bearer ${c.token}`;
    return async () => value;
  }
  if (c.tokenFile) {
    const file = c.tokenFile;
    let cached: { token: string; readAt: number } | undefined;
    return async () => {
      if (!cached || Date.now() - cached.readAt >= TOKEN_FILE_REREAD_MS) {
        try {
          cached = { token: await readTokenFile(file), readAt: Date.now() };
        } catch (err) {
          if (!cached) throw err;
          cached.readAt = Date.now();
        }
      }
      return `Bearer ${cached.token}`;
    };
  }
  if (c.basicAuth) {
    const value = `Basic ${Buffer.from(`${c.basicAuth.username}:${c.basicAuth.password}`).toString('base64')}`;
    return async () => value;
  }
  return async () => undefined;
}
