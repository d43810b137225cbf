// An append-only file rotated by size, as upstream's audit log (lumberjack) rotates it: past
// `maxSizeBytes` the file is renamed `<name>-<UTC time>.<ext>` (gzipped when asked) and a new one
// started; backups beyond `maxBackups`, or older than `maxAgeDays` by the time in their name, are
// removed. 0 turns each limit off. Writes are queued, so lines never interleave.

import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';

export interface RotationOptions {
  /** 0: never rotate. */
  maxSizeBytes: number;
  /** Rotated files kept; 0: all. */
  maxBackups: number;
  /** Days a rotated file is kept; 0: forever. */
  maxAgeDays: number;
  compress: boolean;
}

const DAY_MS = 24 * 60 * 60 * 1000;
// lumberjack's backup time layout: 2006-01-02T15-04-05.000
const STAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})$/;

export class RotatingFile {
  private tail: Promise<void> = Promise.resolve();
  private background: Promise<void> = Promise.resolve();
  private closed = false;

  private constructor(
    readonly file: string,
    private fh: FileHandle,
    private size: number,
    private readonly opts: RotationOptions,
  ) {}

  /** Opens (creating the directory and file, owner-only) and prunes old backups. */
  static async open(file: string, opts: RotationOptions): Promise<RotatingFile> {
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const fh = await open(file, 'a', 0o600);
    const f = new RotatingFile(file, fh, (await fh.stat()).size, opts);
    f.background = f.prune();
    return f;
  }

  /** Appends `text` (rotating first when it would pass the size limit). */
  write(text: string | Buffer): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`${this.file}: closed`));
    const buf = typeof text === 'string' ? Buffer.from(text) : text;
    const next = this.tail.then(() => this.append(buf));
    // A failed write must not wedge the ones after it.
    this.tail = next.catch(() => undefined);
    return next;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.tail;
    await this.fh.close();
    await this.background;
  }

  private async append(buf: Buffer): Promise<void> {
    const max = this.opts.maxSizeBytes;
    if (max > 0 && this.size > 0 && this.size + buf.length > max) await this.rotate();
    let off = 0;
    while (off < buf.length) {
      const { bytesWritten } = await this.fh.write(buf, off);
      off += bytesWritten;
    }
    this.size += buf.length;
  }

  private async rotate(): Promise<void> {
    await this.fh.close();
    const backup = await this.freeBackupName(new Date());
    await rename(this.file, backup);
    this.fh = await open(this.file, 'a', 0o600);
    this.size = 0;
    // Compression and pruning happen beside the writes, never before them.
    const previous = this.background;
    this.background = (async () => {
      await previous;
      if (this.opts.compress) await gzipAway(backup).catch(() => undefined);
      await this.prune();
    })();
  }

  private parts(): { dir: string; prefix: string; ext: string } {
    const ext = path.extname(this.file);
    return { dir: path.dirname(this.file), prefix: `${path.basename(this.file, ext)}-`, ext };
  }

  private async freeBackupName(at: Date): Promise<string> {
    const { dir, prefix, ext } = this.parts();
    for (let t = at.getTime(); ; t++) {
      const name = path.join(dir, `${prefix}${stamp(new Date(t))}${ext}`);
      const taken =
        (await stat(name).then(
          () => true,
          () => false,
        )) ||
        (await stat(`${name}.gz`).then(
          () => true,
          () => false,
        ));
      if (!taken) return name;
    }
  }

  /** The rotated files of this log, newest first. */
  async backups(): Promise<Array<{ file: string; time: number }>> {
    const { dir, prefix, ext } = this.parts();
    const out: Array<{ file: string; time: number }> = [];
    for (const name of await readdir(dir)) {
      if (!name.startsWith(prefix)) continue;
      const rest = name.slice(prefix.length);
      const core = rest.endsWith(`${ext}.gz`) ? rest.slice(0, -(ext.length + 3)) : rest.endsWith(ext) ? rest.slice(0, rest.length - ext.length) : null;
      const m = core === null ? null : STAMP.exec(core);
      if (!m) continue;
      out.push({ file: path.join(dir, name), time: Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!, +m[7]!) });
    }
    return out.sort((a, b) => b.time - a.time);
  }

  private async prune(): Promise<void> {
    const { maxBackups, maxAgeDays } = this.opts;
    if (!maxBackups && !maxAgeDays) return;
    const all = await this.backups().catch(() => []);
    const cutoff = Date.now() - maxAgeDays * DAY_MS;
    const doomed = all.filter((b, i) => (maxBackups > 0 && i >= maxBackups) || (maxAgeDays > 0 && b.time < cutoff));
    await Promise.all(doomed.map((b) => unlink(b.file).catch(() => undefined)));
  }
}

function stamp(d: Date): string {
  // 2024-05-01T10:00:00.123Z → 2024-05-01T10-00-00.123
  return d.toISOString().slice(0, -1).replace(/:/g, '-');
}

async function gzipAway(file: string): Promise<void> {
  await pipeline(createReadStream(file), createGzip(), createWriteStream(`${file}.gz`, { mode: 0o600 }));
  await unlink(file);
}
