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
