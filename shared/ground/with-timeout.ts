// A promise that rejects with `message` when `p` has not settled within `ms`. The timer never
// keeps the process alive and is cleared as soon as `p` settles; `p` itself runs on.

export function withTimeout<T>(p: Promise<T>, ms: number, message = `no answer within ${ms} ms`): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
    timer.unref();
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
