// A list's or deletecollection's `timeoutSeconds`: the request's deadline, and upstream's 504
// request timeout for work that has not finished by then (a wait for a resourceVersion, the
// deletions of a collection).

import { requestTimedOut } from '../../../shared/api/status.js';

/** The deadline (epoch ms) of a request given `timeoutSeconds`; none (Infinity) when unset or 0, upstream's "the server's default". */
export function requestDeadline(timeoutSeconds: number | undefined, now: number): number {
  return timeoutSeconds && timeoutSeconds > 0 ? now + timeoutSeconds * 1000 : Infinity;
}

/** What `work` gives, or upstream's 504 once `deadline` passes first (the work is then left to finish unheard). */
export async function beforeDeadline<T>(work: Promise<T>, deadline: number): Promise<T> {
  if (deadline === Infinity) return work;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(requestTimedOut()), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
