import { constants, existsSync } from 'node:fs';
import { type FileHandle, open, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import type { FetchedResource } from '../../domain/ports.js';
import { DocumentFailure, errors } from '../../errors.js';
import type { FileSample } from '../../parsing/upload-check.js';
import { itemFilter } from '../../sources/globs.js';
import {
  FolderSettings,
  type ListedItem,
  type PreviousItem,
  type SourceAccess,
  type SourceConnector,
  SourceFailure,
  type SourceReader,
} from '../../sources/model.js';
import { tooLarge, unreadableReason } from '../../sources/readable.js';

/** Most files one sync lists. */
const MAX_FILES = 100_000;
/** Deepest folder nesting followed (each level holds a descriptor while it is listed). */
const MAX_DEPTH = 64;
/** Files of one folder opened and stat'ed at once while listing. */
const LIST_WINDOW = 32;

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;
/**
 * On Linux a path under /proc/self/fd/N is resolved from the directory that descriptor N holds, not
 * from the path it was opened by: the service's equivalent of openat(2), which Node lacks.
 */
const PROC_FD = '/proc/self/fd';
const procFd = existsSync(PROC_FD);

const within = (root: string, target: string) => target === root || target.startsWith(root + path.sep);

/** A directory held open; what lies below it is opened from the handle, one name at a time. */
interface HeldDir {
  handle: FileHandle;
  /** The path it was opened by: for messages, and where /proc is missing (see `child`). */
  path: string;
  dev: number;
}

/**
 * The path that opens `name` inside `dir`: through the descriptor on Linux, so that renaming or
 * swapping any folder above for a symbolic link after `dir` was opened changes nothing. Elsewhere
 * the path string, which narrows the race (every component is opened without following links) but
 * cannot close it: the guarantee is Linux's (docs/security.md).
 */
const child = (dir: HeldDir, name: string) =>
  procFd ? `${PROC_FD}/${dir.handle.fd}/${name}` : path.join(dir.path, name);

/** A name that stays inside its folder: no separators, no `.` or `..`, no NUL. */
const plainName = (name: string) =>
  name.length > 0 && name !== '.' && name !== '..' && !name.includes('/') && !name.includes('\0');

async function openDir(dir: HeldDir, name: string): Promise<HeldDir> {
  const handle = await open(child(dir, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  try {
    const stat = await handle.stat();
    return { handle, path: path.join(dir.path, name), dev: stat.dev };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/**
 * Opens a file below `dir` without following links and without blocking (a FIFO swapped in would
 * block a plain open until someone writes to it), then checks what was opened: a regular file on
 * the folder's device. Undefined when it is anything else.
 */
async function openFile(
  dir: HeldDir,
  name: string,
): Promise<{ handle: FileHandle; size: number; mtimeMs: number } | undefined> {
  const handle = await open(child(dir, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  try {
    const stat = await handle.stat();
    if (stat.isFile() && stat.dev === dir.dev) return { handle, size: stat.size, mtimeMs: stat.mtimeMs };
  } catch (err) {
    await handle.close();
    throw err;
  }
  await handle.close();
  return undefined;
}

/** The first bytes of a file read at listing: enough to tell text, binary and known formats apart. */
const SAMPLE_BYTES = 16 * 1024;
/** A zip's end record, which says whether it is an archive or a document, lies in its last 64 KiB + 22 bytes. */
const ZIP_TAIL_BYTES = 65_557;
/** Files up to this size are read whole into memory when opened, not streamed: most of a folder's items. */
const WHOLE_BYTES = 128 * 1024;

/** Up to `length` bytes of an open file from `position` (fewer at its end). */
async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  // Not zeroed: only the bytes read are handed out.
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/**
 * A bounded sample of a file whose size or time moved, from which a worker's ability to read it is
 * judged at listing (an empty file, an archive, binary content are skipped, not made documents): its
 * first bytes and, for a zip, its end. The whole file is read once, by the worker that processes it.
 */
async function sampleOf(handle: FileHandle, size: number): Promise<FileSample> {
  const head = await readAt(handle, 0, Math.min(size, SAMPLE_BYTES));
  // All of it (or all that is left of a file that shrank since its stat).
  if (head.length < SAMPLE_BYTES) return { head, tail: head, size: head.length };
  const zip = head[0] === 0x50 && head[1] === 0x4b;
  const tailBytes = zip ? Math.min(size, ZIP_TAIL_BYTES) : 0;
  return { head, tail: await readAt(handle, size - tailBytes, tailBytes), size };
}

/**
 * A folder on the server (self-hosters), only under the roots the operator granted to the source's
 * account (SOURCE_FOLDER_ROOTS). Nothing is opened by a path string that another user of the
 * machine could change under it: the root is opened by its real path (the operator's), then every
 * folder and file below it one name at a time from the handle of the folder above, without following
 * symbolic links (Linux), and what was opened is checked before it is read (a regular file on the
 * folder's device, within the size limit). A file is unchanged when its size and modification time
 * are; when they moved, only a bounded sample is read here, and the worker that reads the whole file
 * compares its hash with the indexed version's (a file touched or copied back is not processed again).
 */
export class FolderConnector implements SourceConnector {
  constructor(
    private readonly options: {
      maxBytes: number;
      /** Whether some worker reads images' text (WORKER_PROFILE=full); else images are skipped. */
      imagesReadable?: boolean;
    },
  ) {}

  /** The folder's real path and the root it lies under, when it is under one of `roots`. */
  private async resolve(
    folder: string,
    roots: string[],
  ): Promise<{ root: string; real: string } | undefined> {
    if (!path.isAbsolute(folder)) return undefined;
    const real = await realpath(folder).catch(() => path.resolve(folder));
    for (const root of roots) {
      const realRoot = await realpath(root).catch(() => undefined);
      if (realRoot && within(realRoot, real)) return { root: realRoot, real };
    }
    return undefined;
  }

  async validate(settings: Record<string, unknown>, roots: string[]): Promise<void> {
    const { path: folder } = FolderSettings.parse(settings);
    if (!(await this.resolve(folder, roots))) throw errors.sourcePathForbidden(folder);
  }

  /**
   * The source's folder, held open: the root by its real path, then each folder below it by name
   * without following links. A folder that became a link since it was resolved is refused.
   */
  private async openFolder(source: SourceAccess): Promise<HeldDir> {
    const { path: folder } = FolderSettings.parse(source.settings);
    const resolved = await this.resolve(folder, source.roots);
    if (!resolved)
      throw new SourceFailure(
        'source_forbidden',
        `"${folder}" is not under a folder that SOURCE_FOLDER_ROOTS grants to this account.`,
      );
    let dir: HeldDir;
    try {
      const handle = await open(resolved.root, O_RDONLY | O_DIRECTORY);
      dir = { handle, path: resolved.root, dev: (await handle.stat()).dev };
    } catch {
      throw new SourceFailure('source_missing', `There is no folder "${folder}".`);
    }
    try {
      for (const name of path.relative(resolved.root, resolved.real).split(path.sep).filter(Boolean)) {
        const next = await openDir(dir, name).finally(() => dir.handle.close());
        dir = next;
      }
    } catch (err) {
      const code = (err as { code?: string }).code;
      throw new SourceFailure(
        code === 'ENOENT' ? 'source_missing' : 'source_forbidden',
        code === 'ENOENT'
          ? `There is no folder "${folder}".`
          : `"${folder}" cannot be opened as a folder without following a link (${code}).`,
      );
    }
    return dir;
  }

  async list(
    source: SourceAccess,
    previous: ReadonlyMap<string, PreviousItem>,
    signal: AbortSignal,
  ): Promise<ListedItem[]> {
    const top = await this.openFolder(source);
    const { include, exclude } = FolderSettings.parse(source.settings);
    const wanted = itemFilter(include, exclude);
    const items: ListedItem[] = [];
    const walk = async (dir: HeldDir, prefix: string, depth: number): Promise<void> => {
      let entries: { name: string; dir: boolean; file: boolean }[];
      try {
        entries = (await readdir(procFd ? `${PROC_FD}/${dir.handle.fd}` : dir.path, { withFileTypes: true }))
          .map((e) => ({ name: e.name, dir: e.isDirectory(), file: e.isFile() }))
          .sort((a, b) => (a.name < b.name ? -1 : 1));
      } catch (err) {
        if (depth === 0)
          throw new SourceFailure(
            'source_forbidden',
            `The folder cannot be read (${(err as { code?: string }).code}).`,
          );
        return;
      }
      // A folder's files are opened and stat'ed a window at a time: one after the other, each of
      // the three calls waited for its turn on the thread pool (about 0.4 ms a file).
      let window: string[] = [];
      const flush = async () => {
        const names = window.slice(0, Math.max(0, MAX_FILES - items.length));
        window = [];
        const listed = await Promise.all(names.map((name) => listFile(dir, prefix + name, name)));
        for (const item of listed) if (item) items.push(item);
      };
      for (const entry of entries) {
        if (signal.aborted) throw signal.reason;
        if (items.length + window.length >= MAX_FILES) break;
        // Hidden files are skipped; so is whatever is neither a folder nor a file (links, FIFOs,
        // sockets, devices) when listed, and when opened, whatever became one since.
        if (entry.name.startsWith('.') || !plainName(entry.name)) continue;
        const key = prefix + entry.name;
        if (entry.dir) {
          if (depth + 1 >= MAX_DEPTH) continue;
          await flush();
          const sub = await openDir(dir, entry.name).catch(() => undefined);
          // Another file system mounted inside the folder is not the folder's.
          if (!sub) continue;
          try {
            if (sub.dev === dir.dev) await walk(sub, `${key}/`, depth + 1);
          } finally {
            await sub.handle.close();
          }
        } else if (entry.file && wanted(key)) {
          window.push(entry.name);
          if (window.length === LIST_WINDOW) await flush();
        }
      }
      await flush();
    };
    const listFile = async (dir: HeldDir, key: string, name: string): Promise<ListedItem | undefined> => {
      const file = await openFile(dir, name).catch(() => undefined);
      if (!file) return undefined;
      try {
        const before = previous.get(key);
        const sizeBytes = file.size;
        const mtimeMs = Math.floor(file.mtimeMs);
        const item: ListedItem = { key, filename: name, url: null, fingerprint: { sizeBytes, mtimeMs } };
        // A file's content is read by the worker that processes it, never here: only a sample,
        // when size or time moved (the item was found readable before), and never of one over
        // the size limit, which is skipped unread.
        const same = before && before.sizeBytes === sizeBytes && before.mtimeMs === mtimeMs;
        if (same) item.fingerprint.contentHash = before.contentHash ?? null;
        else if (sizeBytes > this.options.maxBytes) item.skipReason = tooLarge(this.options.maxBytes);
        else {
          const sample = await sampleOf(file.handle, sizeBytes).catch(() => undefined);
          if (sample)
            item.skipReason = unreadableReason(sample, name, null, {
              imagesReadable: this.options.imagesReadable ?? true,
            });
        }
        return item;
      } finally {
        await file.handle.close();
      }
    };
    try {
      await walk(top, '', 0);
    } finally {
      await top.handle.close();
    }
    return items;
  }

  async open(source: SourceAccess, key: string): Promise<FetchedResource> {
    const reader = this.reader(source);
    try {
      return await reader.open(key);
    } finally {
      await reader.close();
    }
  }

  /**
   * Reads a batch's items of one source with its folder opened once, at the first item, and held until
   * `close`: a folder swapped or renamed meanwhile changes nothing for the batch, as for one item
   * between its folder's open and its own. Resolving and opening the folder again for each item was
   * most of what reading a small item cost (0.7 ms of CPU against 0.15 ms for the file itself).
   */
  // A folder's reads do not wait on anything a signal could stop: its reader takes none.
  reader(source: SourceAccess): SourceReader & { open(key: string): Promise<FetchedResource> } {
    let folder: Promise<HeldDir> | undefined;
    return {
      open: async (key) => {
        const missing = () => new DocumentFailure('original_missing', `"${key}" is no longer in the folder.`);
        const names = key.split('/');
        if (!names.every(plainName)) throw missing();
        if (!folder) {
          folder = this.openFolder(source);
          folder.catch(() => {});
        }
        let top: HeldDir;
        try {
          top = await folder;
        } catch (err) {
          if (err instanceof SourceFailure) throw new DocumentFailure('original_missing', err.message);
          throw err;
        }
        return this.openItem(top, names, key, missing);
      },
      close: async () => {
        const held = await folder?.catch(() => undefined);
        await held?.handle.close();
      },
    };
  }

  /** An item below the held folder `top`, by the names of its path; the folders opened on the way are closed. */
  private async openItem(
    top: HeldDir,
    names: string[],
    key: string,
    missing: () => DocumentFailure,
    whole = true,
  ): Promise<FetchedResource> {
    let dir = top;
    let file: Awaited<ReturnType<typeof openFile>>;
    try {
      for (const name of names.slice(0, -1)) {
        const next = await openDir(dir, name);
        const sameDevice = next.dev === dir.dev;
        if (dir !== top) await dir.handle.close();
        dir = next;
        if (!sameDevice) throw missing();
      }
      file = await openFile(dir, names[names.length - 1]!);
    } catch (err) {
      if (err instanceof DocumentFailure) throw err;
      // A link where a folder or the file was (ELOOP, ENOTDIR), or nothing there any more.
      throw missing();
    } finally {
      if (dir !== top) await dir.handle.close();
    }
    if (!file) throw missing();
    const max = this.options.maxBytes;
    if (file.size > max) {
      await file.handle.close();
      throw new DocumentFailure('file_too_large', `"${key}" is ${file.size} bytes; the limit is ${max}.`);
    }
    const finalUrl = `file://${path.join(dir.path, names[names.length - 1]!)}`;
    const filename = names[names.length - 1]!;
    if (whole && file.size <= WHOLE_BYTES) {
      // Read whole: its size and one byte more, which tells whether it grew since its stat. A buffer
      // of the bound for every file cost more than the read (a 128 KiB allocation per small file).
      let bytes: Buffer;
      try {
        bytes = await readAt(file.handle, 0, file.size + 1);
      } finally {
        await file.handle.close();
      }
      if (bytes.length <= file.size)
        return { body: Readable.from([bytes]), contentType: null, finalUrl, filename };
      // Grew since its stat: read as a large one, from a fresh open, counted against the limit.
      return this.openItem(top, names, key, missing, false);
    }
    // The file may grow after its stat: the bytes are counted as they are read.
    let seen = 0;
    const limit = new Transform({
      transform(chunk: Buffer, _enc, done) {
        seen += chunk.length;
        if (seen > max)
          done(new DocumentFailure('file_too_large', `"${key}" grew beyond the limit of ${max} bytes.`));
        else done(null, chunk);
      },
    });
    const stream = file.handle.createReadStream({ start: 0 });
    stream.on('error', (err) => limit.destroy(err));
    // Stopped at the limit or by the reader: the file's descriptor goes with it.
    limit.on('close', () => stream.destroy());
    return { body: stream.pipe(limit), contentType: null, finalUrl, filename };
  }
}
