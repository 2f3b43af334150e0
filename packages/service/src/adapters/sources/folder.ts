import { createHash } from 'node:crypto';
import { createReadStream, type Dirent } from 'node:fs';
import { lstat, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { FetchedResource } from '../../domain/ports.js';
import { DocumentFailure, errors } from '../../errors.js';
import {
  FolderSettings,
  type ListedItem,
  type PreviousItem,
  type SourceAccess,
  type SourceConnector,
  SourceFailure,
} from '../../sources/model.js';

/** Most files one sync lists. */
const MAX_FILES = 100_000;

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

const within = (root: string, target: string) => target === root || target.startsWith(root + path.sep);

/**
 * A folder on the server (self-hosters), only under the roots the operator allows
 * (SOURCE_FOLDER_ROOTS); the real path is checked, so a symbolic link cannot lead out, and links
 * inside are not followed. A file is unchanged when its size and modification time are; when they
 * moved, its content hash decides (a file touched or copied back is not processed again).
 */
export class FolderConnector implements SourceConnector {
  constructor(private readonly options: { roots: string[]; maxBytes: number }) {}

  /** The folder's real path when it is under an allowed root; undefined otherwise. */
  private async resolve(folder: string): Promise<string | undefined> {
    if (!path.isAbsolute(folder)) return undefined;
    const real = await realpath(folder).catch(() => path.resolve(folder));
    for (const root of this.options.roots) {
      const realRoot = await realpath(root).catch(() => undefined);
      if (realRoot && within(realRoot, real)) return real;
    }
    return undefined;
  }

  async validate(settings: Record<string, unknown>): Promise<void> {
    const { path: folder } = FolderSettings.parse(settings);
    if (!(await this.resolve(folder))) throw errors.sourcePathForbidden(folder);
  }

  async list(
    source: SourceAccess,
    previous: ReadonlyMap<string, PreviousItem>,
    signal: AbortSignal,
  ): Promise<ListedItem[]> {
    const { path: folder } = FolderSettings.parse(source.settings);
    const root = await this.resolve(folder);
    if (!root)
      throw new SourceFailure(
        'source_forbidden',
        `"${folder}" is not under a folder in SOURCE_FOLDER_ROOTS.`,
      );
    const top = await lstat(root).catch(() => undefined);
    if (!top?.isDirectory()) throw new SourceFailure('source_missing', `There is no folder "${folder}".`);
    const items: ListedItem[] = [];
    const walk = async (dir: string): Promise<void> => {
      let entries: Dirent[];
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (err) {
        if (dir === root)
          throw new SourceFailure(
            'source_forbidden',
            `The folder cannot be read (${(err as { code?: string }).code}).`,
          );
        return;
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : 1));
      for (const entry of entries) {
        if (signal.aborted) throw signal.reason;
        if (items.length >= MAX_FILES || entry.name.startsWith('.')) continue;
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) await walk(full);
        else if (entry.isFile()) {
          const stat = await lstat(full).catch(() => undefined);
          if (!stat) continue;
          const key = path.relative(root, full).split(path.sep).join('/');
          const before = previous.get(key);
          const sizeBytes = stat.size;
          const mtimeMs = Math.floor(stat.mtimeMs);
          // Reading a file is what a sync of unchanged files must avoid: only when size or time moved.
          const same = before && before.sizeBytes === sizeBytes && before.mtimeMs === mtimeMs;
          const contentHash = same ? (before.contentHash ?? null) : await sha256Of(full).catch(() => null);
          items.push({
            key,
            filename: entry.name,
            url: null,
            fingerprint: { sizeBytes, mtimeMs, contentHash },
          });
        }
      }
    };
    await walk(root);
    return items;
  }

  async open(source: SourceAccess, key: string): Promise<FetchedResource> {
    const { path: folder } = FolderSettings.parse(source.settings);
    const root = await this.resolve(folder);
    const file = root && (await realpath(path.join(root, key)).catch(() => undefined));
    if (!root || !file || !within(root, file))
      throw new DocumentFailure('original_missing', `"${key}" is no longer in the folder.`);
    const stat = await lstat(file);
    if (stat.size > this.options.maxBytes)
      throw new DocumentFailure(
        'file_too_large',
        `"${key}" is ${stat.size} bytes; the limit is ${this.options.maxBytes}.`,
      );
    return {
      body: createReadStream(file),
      contentType: null,
      finalUrl: `file://${file}`,
      filename: path.basename(file),
    };
  }
}
