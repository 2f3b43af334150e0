import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, rename, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refuseDataDirUnderRoots } from '../../src/adapters/sources/connectors.js';
import { FolderConnector } from '../../src/adapters/sources/folder.js';
import { loadConfig } from '../../src/config.js';
import { rootsFor } from '../../src/sources/grants.js';
import type { SourceAccess } from '../../src/sources/model.js';

/** The folder connector on a real file system: what it lists and opens, and what it refuses. */
let tmp: string;
let root: string;
const MAX = 1024 * 1024;
const connector = new FolderConnector({ maxBytes: MAX });
const access = (folder: string): SourceAccess => ({
  id: 'src_t',
  type: 'folder',
  settings: { path: folder },
  credentials: undefined,
  roots: [root],
});
const read = async (body: NodeJS.ReadableStream) => {
  const parts: Buffer[] = [];
  for await (const chunk of body) parts.push(chunk as Buffer);
  return Buffer.concat(parts).toString('utf8');
};

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'docslurp-folder-unit-'));
  root = path.join(tmp, 'root');
  await mkdir(path.join(root, 'docs', 'sub'), { recursive: true });
  await mkdir(path.join(tmp, 'outside'));
  await writeFile(path.join(tmp, 'outside', 'secret.md'), 'outside the root');
  await writeFile(path.join(root, 'docs', 'a.md'), '# A\n\nInside.\n');
  await writeFile(path.join(root, 'docs', 'sub', 'b.md'), '# B\n\nInside too.\n');
  await symlink(path.join(tmp, 'outside'), path.join(root, 'docs', 'linked'));
  await symlink(path.join(tmp, 'outside', 'secret.md'), path.join(root, 'docs', 'secret.md'));
});
afterAll(() => rm(tmp, { recursive: true, force: true }));

describe('a folder source', () => {
  it('lists files below the folder and follows no link', async () => {
    const items = await connector.list(
      access(path.join(root, 'docs')),
      new Map(),
      new AbortController().signal,
    );
    expect(items.map((i) => i.key).sort()).toEqual(['a.md', 'sub/b.md']);
  });

  it('lists a folder of many files in order, folders in their place, each file once with its fingerprint', async () => {
    const many = path.join(root, 'many');
    const names = Array.from({ length: 75 }, (_, i) => `f${String(i).padStart(3, '0')}.md`);
    await mkdir(many);
    for (const name of names) await writeFile(path.join(many, name), name);
    // Folders sort among the files, so that windows of files end at them.
    for (const sub of ['f010', 'f050']) {
      await mkdir(path.join(many, sub));
      await writeFile(path.join(many, sub, 'x.md'), `${sub}/x`);
    }
    const items = await connector.list(access(many), new Map(), new AbortController().signal);
    const expected = [...names, 'f010/x.md', 'f050/x.md'].sort((a, b) =>
      a.replace('/', '!') < b.replace('/', '!') ? -1 : 1,
    );
    expect(items.map((i) => i.key)).toEqual(expected);
    expect(items.find((i) => i.key === 'f074.md')!.fingerprint.sizeBytes).toBe('f074.md'.length);
  });

  it('opens a file through the folders above it, and no link on the way', async () => {
    const opened = await connector.open(access(path.join(root, 'docs')), 'sub/b.md');
    expect(await read(opened.body)).toContain('Inside too.');
    for (const key of ['secret.md', 'linked/secret.md', '../docs/a.md', 'sub/../a.md', 'sub//b.md'])
      await expect(connector.open(access(path.join(root, 'docs')), key), key).rejects.toMatchObject({
        code: 'original_missing',
      });
  });

  it('refuses a folder outside the roots granted to the account', async () => {
    await expect(connector.validate({ path: path.join(tmp, 'outside') }, [root])).rejects.toMatchObject({
      code: 'source_path_forbidden',
    });
    await expect(connector.validate({ path: path.join(root, 'docs') }, [])).rejects.toMatchObject({
      code: 'source_path_forbidden',
    });
    await expect(connector.validate({ path: path.join(root, 'docs') }, [root])).resolves.toBeUndefined();
    await expect(
      connector.list(
        { ...access(path.join(root, 'docs')), roots: [] },
        new Map(),
        new AbortController().signal,
      ),
    ).rejects.toMatchObject({ code: 'source_forbidden' });
  });

  it('does not block on a FIFO put where a listed file was, and reads nothing from it', async () => {
    const dir = path.join(root, 'fifo');
    await mkdir(dir);
    await writeFile(path.join(dir, 'note.md'), 'a note');
    const [listed] = await connector.list(access(dir), new Map(), new AbortController().signal);
    expect(listed?.key).toBe('note.md');
    // Swapped for a FIFO after the listing: a plain open() would wait for a writer forever.
    await rm(path.join(dir, 'note.md'));
    execFileSync('mkfifo', [path.join(dir, 'note.md')]);
    await expect(connector.open(access(dir), 'note.md')).rejects.toMatchObject({ code: 'original_missing' });
    // Nor does the listing.
    expect(await connector.list(access(dir), new Map(), new AbortController().signal)).toEqual([]);
  });

  it('counts bytes while reading: a file that grows past the limit after its stat is cut', async () => {
    const dir = path.join(root, 'grows');
    await mkdir(dir);
    // Over 128 KiB, so streamed (a smaller one is read whole when opened: see below).
    await writeFile(path.join(dir, 'log.md'), Buffer.alloc(200 * 1024, 'y'));
    const opened = await connector.open(access(dir), 'log.md');
    await appendFile(path.join(dir, 'log.md'), Buffer.alloc(3 * MAX, 'x'));
    await expect(read(opened.body)).rejects.toMatchObject({ code: 'file_too_large' });
    // A small file is read whole when opened: what is appended later is not part of it.
    await writeFile(path.join(dir, 'small.md'), 'small\n');
    const small = await connector.open(access(dir), 'small.md');
    await appendFile(path.join(dir, 'small.md'), Buffer.alloc(3 * MAX, 'x'));
    expect(await read(small.body)).toBe('small\n');
  });

  it("reads a batch's items with the folder opened once, holds it against a swap, and lets it go", async () => {
    const dir = path.join(root, 'batch');
    await mkdir(path.join(dir, 'sub'), { recursive: true });
    await writeFile(path.join(dir, 'a.md'), 'first');
    await writeFile(path.join(dir, 'b.md'), 'second');
    await writeFile(path.join(dir, 'sub', 'c.md'), 'third');
    const elsewhere = path.join(tmp, 'elsewhere');
    await mkdir(path.join(elsewhere, 'sub'), { recursive: true });
    for (const key of ['a.md', 'b.md', 'sub/c.md']) await writeFile(path.join(elsewhere, key), 'SECRET');
    const descriptors = () => readdirSync('/proc/self/fd').length;
    const before = descriptors();

    const reader = connector.reader(access(dir));
    expect(await read((await reader.open('a.md')).body)).toBe('first');
    // The folder is moved away and a link to a folder outside the roots put in its place.
    await rename(dir, `${dir}-moved`);
    await symlink(elsewhere, dir);
    expect(await read((await reader.open('b.md')).body)).toBe('second');
    expect(await read((await reader.open('sub/c.md')).body)).toBe('third');
    await expect(reader.open('../a.md')).rejects.toMatchObject({ code: 'original_missing' });
    // A read that opens the folder now finds the link, and refuses it.
    await expect(connector.open(access(dir), 'b.md')).rejects.toMatchObject({ code: 'original_missing' });
    await reader.close();
    expect(descriptors()).toBe(before);
  });

  it('does not read a file over the size limit while listing', async () => {
    const dir = path.join(root, 'sparse');
    await mkdir(dir);
    await writeFile(path.join(dir, 'huge.bin'), '');
    // 20 GB without a byte on disk: hashing it took a listing 87 s before the size was checked.
    await truncate(path.join(dir, 'huge.bin'), 20 * 1024 ** 3);
    const [item] = await connector.list(access(dir), new Map(), new AbortController().signal);
    // Skipped unread: no worker may read it, so it becomes no document.
    expect(item).toMatchObject({ key: 'huge.bin', fingerprint: { sizeBytes: 20 * 1024 ** 3 } });
    expect(item?.fingerprint.contentHash).toBeUndefined();
    expect(item?.skipReason).toBe(`larger than the limit of ${MAX} bytes`);
    await expect(connector.open(access(dir), 'huge.bin')).rejects.toMatchObject({ code: 'file_too_large' });
  });
});

describe('what no worker can read', () => {
  it('is listed with the reason it is skipped: an archive, binary content, an empty file, an image without OCR', async () => {
    const dir = path.join(root, 'unreadable');
    await mkdir(dir);
    await writeFile(
      path.join(dir, 'notes.md.gz'),
      gzipSync(Buffer.from('# Notes\n\nCompressed.\n'.repeat(100))),
    );
    await writeFile(path.join(dir, 'empty.md'), '');
    await writeFile(path.join(dir, 'scan.png'), Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'));
    await writeFile(path.join(dir, 'fine.md'), '# Fine\n\nReadable.\n');
    const noOcr = new FolderConnector({ maxBytes: MAX, imagesReadable: false });
    const items = await noOcr.list(access(dir), new Map(), new AbortController().signal);
    const reasons = Object.fromEntries(items.map((i) => [i.key, i.skipReason]));
    expect(reasons).toEqual({
      'empty.md': 'the file is empty',
      'fine.md': undefined,
      'notes.md.gz':
        'a gzip-compressed file: DocSlurp does not decompress files, upload or sync it uncompressed',
      'scan.png': 'an image: reading its text needs a worker with WORKER_PROFILE=full (OCR)',
    });
    // With a worker that reads images (the full profile), the image is a document.
    const withOcr = await connector.list(access(dir), new Map(), new AbortController().signal);
    expect(withOcr.find((i) => i.key === 'scan.png')?.skipReason).toBeUndefined();
  });
});

describe('folder grants and the data folder', () => {
  it('grants a bare path to the default account, name= to one account, *= to all', () => {
    const config = loadConfig({
      SOURCE_FOLDER_ROOTS: '/srv/handbook, team-b=/srv/b, *=/srv/public',
      DATA_DIR: '/var/x',
    });
    const grants = config.sources.folderRoots;
    expect(rootsFor(grants, { id: 'acc_default', name: 'default' })).toEqual([
      '/srv/handbook',
      '/srv/public',
    ]);
    expect(rootsFor(grants, { id: 'acc_b', name: 'team-b' })).toEqual(['/srv/b', '/srv/public']);
    expect(rootsFor(grants, { id: 'acc_c', name: 'team-c' })).toEqual(['/srv/public']);
    expect(rootsFor(grants, { id: 'acc_b', name: 'other' })).toEqual(['/srv/public']);
  });

  it('refuses a root that holds DATA_DIR or lies inside it', () => {
    expect(() => loadConfig({ SOURCE_FOLDER_ROOTS: '/srv', DATA_DIR: '/srv/docslurp/data' })).toThrow(
      /overlaps DATA_DIR/,
    );
    expect(() => loadConfig({ SOURCE_FOLDER_ROOTS: '/srv/data/objects', DATA_DIR: '/srv/data' })).toThrow(
      /overlaps DATA_DIR/,
    );
    expect(() =>
      loadConfig({ SOURCE_FOLDER_ROOTS: '/srv/data-sources', DATA_DIR: '/srv/data' }),
    ).not.toThrow();
  });

  it('refuses a root that reaches DATA_DIR through a symbolic link, at start', async () => {
    const data = path.join(tmp, 'service', 'data');
    await mkdir(data, { recursive: true });
    await symlink(path.join(tmp, 'service'), path.join(tmp, 'innocent-looking'));
    await expect(
      refuseDataDirUnderRoots(data, [{ account: 'default', path: path.join(tmp, 'innocent-looking') }]),
    ).rejects.toThrow(/overlaps DATA_DIR/);
    await expect(
      refuseDataDirUnderRoots(data, [{ account: 'default', path: root }]),
    ).resolves.toBeUndefined();
  });
});
