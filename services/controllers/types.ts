// The contract of one controller of the controllers service.

export interface Controller {
  /** Upstream's controller name (`--controllers` names it). */
  readonly name: string;
  /** Starts watching; resolves once its caches are synced. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Resolves when nothing is queued (tests). */
  idle?(): Promise<void>;
}

/** What most controllers are: informers (started and synced in order) feeding one work queue. */
export function queueController(
  name: string,
  informers: ReadonlyArray<{ start(): unknown; synced: Promise<void>; stop(): Promise<void> }>,
  queue: { shutDown(): void; idle(): Promise<void> },
  afterSync?: () => void | Promise<void>,
): Controller {
  return {
    name,
    async start() {
      for (const i of informers) {
        i.start();
        await i.synced;
      }
      await afterSync?.();
    },
    async stop() {
      queue.shutDown();
      await Promise.all(informers.map((i) => i.stop()));
    },
    idle: () => queue.idle(),
  };
}
