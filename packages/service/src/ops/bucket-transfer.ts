import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** What the bucket copy needs from an object store (S3ObjectStore provides it). */
export interface TransferStore {
  list(prefix?: string): AsyncIterable<{ key: string; size: number }>;
  get(key: string): Promise<Readable | undefined>;
  put(key: string, body: Readable): Promise<void>;
  delete(keys: string[]): Promise<void>;
  ensureBucket(): Promise<boolean>;
}

export interface TransferReport {
  objects: number;
  bytes: number;
  /** Listed at the start, deleted before they could be copied (index clean-up while the stack runs). */
  vanished: string[];
  /** Export: folder markers (keys ending in `/`), which hold no data. Import: removed extra objects. */
  skipped: string[];
}

/** Maps an object key to a path under `root`, refusing keys that would leave it. */
export function keyPath(root: string, key: string): string {
  const parts = key.split('/');
  if (key.startsWith('/') || key.includes('\0') || parts.some((p) => p === '' || p === '.' || p === '..')) {
    throw new Error(`object key cannot be stored as a file: ${JSON.stringify(key)}`);
  }
  return path.join(root, ...parts);
}

async function isEmptyOrMissing(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).length === 0;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw err;
  }
}

/** Every file under `root` as `{key, size}`, keys `/`-separated relative paths, in key order. */
export async function listFolder(root: string): Promise<{ key: string; size: number }[]> {
  const out: { key: string; size: number }[] = [];
  const walk = async (dir: string, prefix: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full, `${prefix}${entry.name}/`);
      else if (entry.isFile()) out.push({ key: `${prefix}${entry.name}`, size: (await stat(full)).size });
    }
  };
  await walk(root, '');
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** Runs `fn` over `items` with at most `limit` in flight. */
async function eachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const run = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, run));
}

/**
 * Copies every object of the bucket into the empty folder `dir` (one file per key). Each file is
 * written beside its final name and renamed, so an interrupted copy leaves no truncated object.
 */
export async function exportBucket(
  store: TransferStore,
  dir: string,
  progress: (line: string) => void = () => {},
): Promise<TransferReport> {
  if (!(await isEmptyOrMissing(dir))) throw new Error(`${dir} is not empty: export into a new folder`);
  await mkdir(dir, { recursive: true });
  const listed: { key: string; size: number }[] = [];
  for await (const o of store.list()) listed.push(o);
  const report: TransferReport = { objects: 0, bytes: 0, vanished: [], skipped: [] };
  const files = listed.filter((o) => {
    if (!o.key.endsWith('/')) return true;
    report.skipped.push(o.key);
    return false;
  });
  await eachLimited(files, 4, async (o) => {
    const target = keyPath(dir, o.key);
    const body = await store.get(o.key);
    if (!body) {
      report.vanished.push(o.key);
      return;
    }
    await mkdir(path.dirname(target), { recursive: true });
    const tmp = `${target}.part`;
    await pipeline(body, createWriteStream(tmp));
    await rename(tmp, target);
    report.objects += 1;
    report.bytes += (await stat(target)).size;
    if (report.objects % 500 === 0) progress(`copied ${report.objects} of ${files.length} objects`);
  });
  report.vanished.sort();
  return report;
}

/**
 * Makes the bucket an exact copy of the folder `dir`: creates the bucket when missing, uploads every
 * file and removes objects the folder does not have.
 */
export async function importBucket(
  store: TransferStore,
  dir: string,
  progress: (line: string) => void = () => {},
): Promise<TransferReport> {
  const files = await listFolder(dir);
  for (const f of files) keyPath(dir, f.key);
  if (await store.ensureBucket()) progress('created the bucket');
  const report: TransferReport = { objects: 0, bytes: 0, vanished: [], skipped: [] };
  await eachLimited(files, 4, async (f) => {
    await store.put(f.key, createReadStream(keyPath(dir, f.key)));
    report.objects += 1;
    report.bytes += f.size;
    if (report.objects % 500 === 0) progress(`uploaded ${report.objects} of ${files.length} objects`);
  });
  const wanted = new Set(files.map((f) => f.key));
  const extra: string[] = [];
  for await (const o of store.list()) if (!wanted.has(o.key)) extra.push(o.key);
  if (extra.length) await store.delete(extra);
  report.skipped = extra;
  return report;
}
