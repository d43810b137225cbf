// Undo actions registered as things start, run newest first. Each step runs even if an earlier
// one fails, so a half-started cluster is torn down as completely as a fully started one.

export class Cleanup {
  private readonly steps: Array<{ what: string; fn: () => unknown }> = [];

  defer(what: string, fn: () => unknown): void {
    this.steps.push({ what, fn });
  }

  async run(): Promise<void> {
    while (this.steps.length) {
      const { what, fn } = this.steps.pop()!;
      try {
        await fn();
      } catch (err) {
        process.stderr.write(`cleanup: ${what} failed: ${err instanceof Error ? err.message : String(err)}\n`);
      }
    }
  }
}
