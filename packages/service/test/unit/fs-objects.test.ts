import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsObjectStore } from '../../src/adapters/objects/fs.js';

let root: string;
let store: FsObjectStore;
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'objects-'));
  store = new FsObjectStore(path.join(root, 'data'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

const text = async (key: string) => (await store.getBuffer(key))?.toString();

describe('objects as files (FsObjectStore)', () => {
  it('writes buffers, strings and streams, creating folders as needed and replacing what was there', async () => {
    await store.put('raw/doc_1', Buffer.from('one'));
    await store.put('derived/doc_1/text.md', 'text');
    await store.put('raw/doc_2', Readable.from([Buffer.from('str'), Buffer.from('eam')]));
    await store.put('raw/doc_1', 'again');
    expect([await text('raw/doc_1'), await text('derived/doc_1/text.md'), await text('raw/doc_2')]).toEqual([
      'again',
      'text',
      'stream',
    ]);
    // A folder removed behind the store's back is made again.
    await rm(path.join(root, 'data', 'raw'), { recursive: true });
    await store.put('raw/doc_3', 'three');
    expect(await text('raw/doc_3')).toBe('three');
    expect((await readdir(path.join(root, 'data', 'raw'))).sort()).toEqual(['doc_3']);
    // A document's own folder goes with its last object, and comes back with its next.
    await store.delete(['derived/doc_1/text.md']);
    expect(await readdir(path.join(root, 'data', 'derived'))).toEqual([]);
    await store.put('derived/doc_1/text.md', 'again');
    expect(await text('derived/doc_1/text.md')).toBe('again');
  });

  it('leaves nothing behind, and the old object whole, when a stream breaks', async () => {
    await store.put('raw/doc_1', 'kept');
    const broken = new Readable({ read() {} });
    broken.push(Buffer.from('half'));
    setImmediate(() => broken.destroy(new Error('gone')));
    await expect(store.put('raw/doc_1', broken)).rejects.toThrow('gone');
    expect(await text('raw/doc_1')).toBe('kept');
    expect(await readdir(path.join(root, 'data', 'raw'))).toEqual(['doc_1']);
  });

  it('reads and writes small objects directly and large ones through the pool, alike', async () => {
    // 256 KiB is where the store stops calling the file system directly (DIRECT_BYTES).
    for (const size of [0, 1500, 256 * 1024, 256 * 1024 + 1, 3 * 2 ** 20]) {
      const bytes = Buffer.alloc(size, size % 251);
      await store.put(`raw/size_${size}`, bytes);
      expect((await store.getBuffer(`raw/size_${size}`))?.equals(bytes)).toBe(true);
    }
    // Strings by their bytes: 'é' is two, so 200,000 of them are over the limit in fewer characters.
    for (const [i, body] of ['x'.repeat(300 * 1024), 'é'.repeat(100_000), 'é'.repeat(200_000)].entries()) {
      await store.put(`derived/doc_${i}/text.md`, body);
      expect(await text(`derived/doc_${i}/text.md`)).toBe(body);
    }
    expect(await store.getBuffer('raw/missing')).toBeUndefined();
    expect(await store.getBuffer('derived/missing/text.md')).toBeUndefined();
  });

  it('rejects a write it cannot finish, small or large, and leaves no partial file', async () => {
    // The target is a folder: the write itself succeeds, the rename into place does not.
    await mkdir(path.join(root, 'data', 'derived', 'doc_1', 'text.md'), { recursive: true });
    for (const body of ['small', Buffer.alloc(300 * 1024, 1)]) {
      await expect(store.put('derived/doc_1/text.md', body)).rejects.toThrow();
      expect(await readdir(path.join(root, 'data', 'derived', 'doc_1'))).toEqual(['text.md']);
    }
  });
});
