import { statfs } from 'node:fs/promises';
import path from 'node:path';
import type { StorageSpace } from '../../domain/ports.js';
import { errors } from '../../errors.js';

/**
 * Free bytes of the file system holding `dir`, as an unprivileged process may use them. The store
 * makes its folder at the first write, so before the first upload `dir` may not exist yet: the
 * nearest folder above it that does is on the file system it will be made on.
 */
export async function freeBytes(dir: string): Promise<number> {
  for (let at = path.resolve(dir); ; ) {
    try {
      const s = await statfs(at);
      return s.bavail * s.bsize;
    } catch (err) {
      const parent = path.dirname(at);
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || parent === at) throw err;
      at = parent;
    }
  }
}

/** How long one reading of the free space stands (less the bytes let through since). */
const READING_MS = 1000;

/**
 * The floor on the disk of the local object store (embedded mode, `objects/` under DATA_DIR). The
 * free space is read at most once a second and what was let through since is taken off it, so a
 * form of thousands of small files costs a handful of statfs calls, and a burst of writes between
 * two readings still counts.
 */
export class DiskSpace implements StorageSpace {
  private reading: { at: number; free: number; since: number } | undefined;

  constructor(
    private readonly dir: string,
    private readonly floorBytes: number,
    private readonly onRefusal: (free: number, floor: number) => void,
    private readonly free: (dir: string) => Promise<number> = freeBytes,
    private readonly now: () => number = Date.now,
  ) {}

  async ensure(bytes: number): Promise<void> {
    await this.check(bytes);
  }

  async reserve(bytes: number): Promise<void> {
    (await this.check(bytes)).since += bytes;
  }

  private async check(bytes: number) {
    const now = this.now();
    if (!this.reading || now - this.reading.at >= READING_MS)
      this.reading = { at: now, free: await this.free(this.dir), since: 0 };
    const free = this.reading.free - this.reading.since;
    if (free - bytes < this.floorBytes) {
      this.onRefusal(free, this.floorBytes);
      throw errors.insufficientStorage();
    }
    return this.reading;
  }
}

/** Object storage that is not a local disk (S3, MinIO): its server refuses writes when it is full. */
export const unmeasuredSpace: StorageSpace = { ensure: async () => {}, reserve: async () => {} };
