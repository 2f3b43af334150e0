import { randomBytes } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  fstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { type FileHandle, mkdir, open, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ObjectStore } from '../../domain/ports.js';

const KNOWN_FOLDERS = 1000;

/**
 * Objects up to this size are written and read with direct calls on the calling thread instead of
 * libuv's file pool. A small file's open, write, close and rename take microseconds in the page
 * cache, while each pool call costs two thread hand-offs and a callback: on 2 cores, bulk ingestion of
 * small files spent a fifth of its CPU in the pool's threads and their wake-ups (issue 25's profile),
 * and 5,000 writes of 1.5 KB took 3 times the CPU through the pool. The event loop is held for one
 * small file at a time, which is the same order as a request's own work.
 */
const DIRECT_BYTES = 256 * 1024;

/**
 * Temporary names: this process's random tag and a count, unique among the processes that share the
 * folder without a random draw per object (one was a fiftieth of bulk ingestion's main thread).
 */
const WRITER = randomBytes(6).toString('hex');
let written = 0;

/** Objects as files under one folder (embedded mode). Keys are `/`-separated relative paths. */
export class FsObjectStore implements ObjectStore {
  /** Folders made or used lately (see create). */
  private readonly folders = new Set<string>();

  constructor(private readonly root: string) {}

  private pathOf(key: string): string {
    if (!/^[\w.-]+(\/[\w.-]+)*$/.test(key) || key.split('/').some((p) => p === '..' || p === '.')) {
      throw new Error(`invalid object key: ${key}`);
    }
    return path.join(this.root, ...key.split('/'));
  }

  async put(key: string, body: Readable | Buffer | string): Promise<void> {
    const target = this.pathOf(key);
    // Write beside the target and rename, so a reader never sees a half-written object.
    const tmp = `${target}.${WRITER}.${(written++).toString(36)}.tmp`;
    // A string has at least as many bytes as characters: a long one is not encoded here only to be let go.
    const whole =
      typeof body === 'string'
        ? body.length <= DIRECT_BYTES
          ? Buffer.from(body)
          : undefined
        : body instanceof Readable
          ? undefined
          : body;
    if (whole && whole.length <= DIRECT_BYTES) return this.putDirect(tmp, target, whole);
    // A stream that fails while the file is being created fails the pipeline below, not the process.
    if (body instanceof Readable) body.on('error', () => {});
    try {
      const file = await this.create(tmp);
      if (body instanceof Readable) await pipeline(body, file.createWriteStream());
      else {
        try {
          await file.writeFile(body);
        } finally {
          await file.close();
        }
      }
      await rename(tmp, target);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }

  private putDirect(tmp: string, target: string, bytes: Buffer): void {
    try {
      const fd = this.createDirect(tmp);
      try {
        for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, target);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
  }

  /** As create, with direct calls. */
  private createDirect(file: string): number {
    const folder = path.dirname(file);
    if (!this.folders.has(folder)) this.makeFolderDirect(folder);
    try {
      return openSync(file, 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      this.makeFolderDirect(folder);
      return openSync(file, 'wx');
    }
  }

  private makeFolderDirect(folder: string): void {
    mkdirSync(folder, { recursive: true });
    this.remember(folder);
  }

  /**
   * Creates a file, its folder first unless this store made or used it lately: an upload's folder
   * (`raw/`) is then not made again for every file, a document's own (`derived/<id>/`) is made once.
   * A folder removed since is made again when the create fails for want of it.
   */
  private async create(file: string): Promise<FileHandle> {
    const folder = path.dirname(file);
    if (!this.folders.has(folder)) await this.makeFolder(folder);
    try {
      return await open(file, 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      await this.makeFolder(folder);
      return await open(file, 'wx');
    }
  }

  private async makeFolder(folder: string): Promise<void> {
    await mkdir(folder, { recursive: true });
    this.remember(folder);
  }

  private remember(folder: string): void {
    if (this.folders.size >= KNOWN_FOLDERS) this.folders.clear();
    this.folders.add(folder);
  }

  async get(key: string): Promise<Readable | undefined> {
    const p = this.pathOf(key);
    try {
      await stat(p);
    } catch {
      return undefined;
    }
    return createReadStream(p);
  }

  async getBuffer(key: string): Promise<Buffer | undefined> {
    const file = this.pathOf(key);
    try {
      const small = this.readDirect(file);
      // A larger object is read through the pool (see DIRECT_BYTES).
      return small ?? (await readFile(file));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async getRange(key: string, start: number, end: number): Promise<Buffer | undefined> {
    let file: FileHandle;
    try {
      file = await open(this.pathOf(key), 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    try {
      const bytes = Buffer.allocUnsafe(Math.max(0, end - start));
      let at = 0;
      while (at < bytes.length) {
        const { bytesRead } = await file.read(bytes, at, bytes.length - at, start + at);
        if (bytesRead === 0) break;
        at += bytesRead;
      }
      return bytes.subarray(0, at);
    } finally {
      await file.close();
    }
  }

  /** The file's bytes when it is small enough to read directly, else undefined. */
  private readDirect(file: string): Buffer | undefined {
    const fd = openSync(file, 'r');
    try {
      const size = fstatSync(fd).size;
      if (size > DIRECT_BYTES) return undefined;
      const bytes = Buffer.allocUnsafe(size);
      let at = 0;
      while (at < size) {
        const read = readSync(fd, bytes, at, size - at, at);
        if (read === 0) break; // shortened meanwhile: what is there
        at += read;
      }
      return at === size ? bytes : bytes.subarray(0, at);
    } finally {
      closeSync(fd);
    }
  }

  async delete(keys: string[]): Promise<void> {
    await Promise.all(
      keys.map(async (k) => {
        const file = this.pathOf(k);
        await rm(file, { force: true });
        // A folder below the top level is one object's (derived/<document>/…): none stays behind
        // empty. The top-level folders are shared, and a write may be creating a file in one.
        const parts = k.split('/');
        for (let depth = parts.length - 1; depth >= 2; depth--) {
          const folder = path.join(this.root, ...parts.slice(0, depth));
          const removed = await rmdir(folder).then(
            () => true,
            () => false, // not empty, or gone already
          );
          if (!removed) break;
          this.folders.delete(folder);
        }
      }),
    );
  }

  async check(): Promise<void> {
    await mkdir(this.root, { recursive: true });
    const probe = this.pathOf(`_health/${randomBytes(4).toString('hex')}`);
    await mkdir(path.dirname(probe), { recursive: true });
    await writeFile(probe, 'ok');
    await rm(probe, { force: true });
  }
}
