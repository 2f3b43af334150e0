import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { type FileHandle, mkdir, open, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ObjectStore } from '../../domain/ports.js';

const KNOWN_FOLDERS = 1000;

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
    const tmp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
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
    try {
      return await readFile(this.pathOf(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
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
