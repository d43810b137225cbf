// The soak's watchers (bench/soak.ts): HTTP watches of the config maps spread over the gateways,
// each resuming from the last resourceVersion it saw and relisting after 410, as informers do.

import http from 'node:http';

export interface Watchers {
  /** Events received so far, over every watcher. */
  events(): number;
  stop(): void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `n` watchers of `path`, watcher i on gateway `ports[i % 2]`. */
export function startWatchers(n: number, at: { ports: number[]; token: string; path: string }): Watchers {
  let events = 0;
  let stop = false;
  const reqs = new Set<http.ClientRequest>();
  for (let i = 0; i < n; i++) {
    void (async () => {
      let rv = '0';
      while (!stop) {
        await new Promise<void>((resolve) => {
          const req = http.get(
            {
              host: '127.0.0.1',
              port: at.ports[i % 2],
              path: `${at.path}?watch=1&allowWatchBookmarks=true&resourceVersion=${rv}&timeoutSeconds=300`,
              headers: { authorization: `Bearer ${at.token}` },
            },
            (res) => {
              let buf = '';
              res.on('data', (d: Buffer) => {
                buf += d.toString();
                for (let j; (j = buf.indexOf('\n')) >= 0;) {
                  const e = JSON.parse(buf.slice(0, j));
                  buf = buf.slice(j + 1);
                  if (e.type === 'ERROR') rv = '0';
                  else {
                    rv = e.object.metadata.resourceVersion;
                    events++;
                  }
                }
              });
              res.on('end', resolve);
              res.on('error', () => resolve());
            },
          );
          reqs.add(req);
          req.on('error', () => resolve());
          req.on('close', () => {
            reqs.delete(req);
            resolve();
          });
        });
        if (!stop) await sleep(500);
      }
    })();
  }
  return {
    events: () => events,
    stop: () => {
      stop = true;
      for (const r of reqs) r.destroy();
    },
  };
}
