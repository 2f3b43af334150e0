// Over 400 lines: an upload end to end (staging, the form, recording) against one folder store and the fake stores.
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UNLIMITED } from '../../src/accounts/quotas.js';
import { FsObjectStore } from '../../src/adapters/objects/fs.js';
import { DiskSpace, freeBytes, unmeasuredSpace } from '../../src/adapters/objects/space.js';
import type { Principal } from '../../src/domain/types.js';
import { AppError } from '../../src/errors.js';
import { type FormDeps, ingestForm, UploadFormError, type UploadPart } from '../../src/ingestion/form.js';
import { createUpload, Stager } from '../../src/ingestion/upload.js';
import { MemoryJobQueue } from '../support/fake-queue.js';
import { MemoryWorkspaceStore } from '../support/fake-workspaces.js';
import { NO_PEOPLE } from '../support/fakes.js';

const principal: Principal = {
  accountId: 'acc_a',
  scopes: new Set(['ingest']),
  keyId: 'key_a',
  userId: undefined,
  role: undefined,
  actor: 'dsk_test',
};
const limits = { maxFileBytes: 1000, maxFilesPerUpload: 5 };

let tmp: string;
let objects: FsObjectStore;
let workspaces: MemoryWorkspaceStore;
let jobs: MemoryJobQueue;
let deps: FormDeps;

beforeEach(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'upload-'));
  objects = new FsObjectStore(tmp);
  workspaces = new MemoryWorkspaceStore();
  jobs = new MemoryJobQueue();
  deps = {
    ...NO_PEOPLE,
    workspaces,
    objects,
    limits,
    jobs,
    space: unmeasuredSpace,
    quotaDefaults: UNLIMITED,
  };
});

/** The documents whose job was sent. */
const enqueued = () => jobs.sent('processDocument').map((job) => job.payload.documentId);

afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** The originals kept in object storage. */
async function stored(): Promise<string[]> {
  return readdir(path.join(tmp, 'raw')).catch(() => []);
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    if (err instanceof AppError) return `${err.status} ${err.code}`;
    throw err;
  }
}

const file = (filename: string, body: string, field = 'files'): UploadPart => ({
  kind: 'file',
  field,
  filename,
  mediaType: 'text/plain',
  stream: Readable.from([Buffer.from(body)]),
});
const field = (name: string, value: string, truncated = false): UploadPart => ({
  kind: 'field',
  name,
  value,
  truncated,
});

async function* parts(...list: (UploadPart | Error)[]): AsyncGenerator<UploadPart> {
  for (const p of list) {
    if (p instanceof Error) throw p;
    yield p;
  }
}

describe('recording an upload (createUpload)', () => {
  const staged = async (name = 'a.txt', body = 'hello') => {
    const stager = new Stager(objects, unmeasuredSpace);
    const f = await stager.stage({
      filename: name,
      mediaType: 'text/plain',
      stream: Readable.from([Buffer.from(body)]),
    });
    await stager.settled();
    return f;
  };

  it('creates the workspace, the run and its documents, and enqueues the documents', async () => {
    const f = await staged();
    const result = await createUpload(deps, principal, {
      workspaceId: undefined,
      idempotencyKey: undefined,
      metadata: { team: 'hr' },
      files: [f],
    });
    expect(result.replayed).toBe(false);
    expect(result.run).toMatchObject({ status: 'processing', counts: { total: 1, queued: 1 } });
    expect(result.documents.map((d) => [d.id, d.sha256, d.metadata])).toEqual([
      [f.documentId, createHash('sha256').update('hello').digest('hex'), { team: 'hr' }],
    ]);
    expect(enqueued()).toEqual([f.documentId]);
    expect(await stored()).toEqual([f.documentId]);
  });

  it('answers a replay with the first records and keeps none of the new copies', async () => {
    const request = { workspaceId: undefined, idempotencyKey: 'k1', metadata: {} };
    const first = await createUpload(deps, principal, { ...request, files: [await staged()] });
    const again = await createUpload(deps, principal, { ...request, files: [await staged()] });
    expect(again.replayed).toBe(true);
    expect(again.run.id).toBe(first.run.id);
    expect(again.documents.map((d) => d.id)).toEqual(first.documents.map((d) => d.id));
    expect(await stored()).toEqual(first.documents.map((d) => d.id));
    expect(enqueued()).toHaveLength(1);
  });

  it('refuses the same key with other content (409) and an unknown workspace (404), keeping nothing', async () => {
    const request = { workspaceId: undefined, idempotencyKey: 'k1', metadata: {} };
    const first = await createUpload(deps, principal, { ...request, files: [await staged()] });
    const other = createUpload(deps, principal, { ...request, files: [await staged('a.txt', 'changed')] });
    expect(await codeOf(other)).toBe('409 idempotency_conflict');
    const elsewhere = createUpload(deps, principal, {
      ...request,
      idempotencyKey: undefined,
      workspaceId: 'ws_nope',
      files: [await staged()],
    });
    expect(await codeOf(elsewhere)).toBe('404 workspace_not_found');
    expect(await stored()).toEqual(first.documents.map((d) => d.id));
  });

  it('keeps no staged file when the database fails, and refuses an upload without files', async () => {
    workspaces.failWith = new Error('connection terminated');
    const files = [await staged()];
    await expect(
      createUpload(deps, principal, {
        workspaceId: undefined,
        idempotencyKey: undefined,
        metadata: {},
        files,
      }),
    ).rejects.toThrow('connection terminated');
    expect(await stored()).toEqual([]);
    const none = createUpload(deps, principal, {
      workspaceId: undefined,
      idempotencyKey: undefined,
      metadata: {},
      files: [],
    });
    expect(await codeOf(none)).toBe('400 no_files');
  });

  it('still answers when enqueueing fails: the reconciler enqueues the documents later', async () => {
    jobs.failure = new Error('job engine down');
    const result = await createUpload(deps, principal, {
      workspaceId: undefined,
      idempotencyKey: undefined,
      metadata: {},
      files: [await staged()],
    });
    expect(result.replayed).toBe(false);
  });
});

describe('an upload form (ingestForm)', () => {
  it('streams each file to storage and records the fields', async () => {
    const result = await ingestForm(
      deps,
      principal,
      parts(field('metadata', '{"lang":"en"}'), file('a.txt', 'one'), file('b.txt', 'two', 'file')),
    );
    expect(result.documents.map((d) => [d.filename, d.sizeBytes, d.metadata])).toEqual([
      ['a.txt', 3, { lang: 'en' }],
      ['b.txt', 3, { lang: 'en' }],
    ]);
    expect((await stored()).sort()).toEqual(result.documents.map((d) => d.id).sort());
  });

  it('refuses a wrong workspace named before the files without storing any', async () => {
    const upload = ingestForm(deps, principal, parts(field('workspaceId', 'ws_nope'), file('a.txt', 'one')));
    expect(await codeOf(upload)).toBe('404 workspace_not_found');
    expect(await stored()).toEqual([]);
  });

  it('maps the form reader’s limits to their errors and removes what was staged', async () => {
    const cases: [UploadPart | Error, string][] = [
      [new UploadFormError('file_size', 'file too large'), '413 file_too_large'],
      [new UploadFormError('files', 'too many files'), '413 too_many_files'],
      [new UploadFormError('fields', 'too many fields'), '413 too_many_fields'],
      [new UploadFormError('malformed', 'Unexpected end of form'), '400 malformed_multipart'],
      [field('metadata', '{"lang":', true), '413 field_too_large'],
      [file('x.txt', 'x', 'attachment'), '400 invalid_request'],
    ];
    for (const [broken, expected] of cases) {
      expect(await codeOf(ingestForm(deps, principal, parts(file('a.txt', 'one'), broken))), expected).toBe(
        expected,
      );
      expect(await stored(), expected).toEqual([]);
    }
    const tooLarge = ingestForm(
      deps,
      principal,
      parts(file('big.pdf', 'one'), new UploadFormError('file_size', '')),
    );
    await expect(tooLarge).rejects.toThrow(
      `File "big.pdf" exceeds the limit of ${limits.maxFileBytes} bytes`,
    );
  });

  it('refuses the whole upload when a file cannot be read, naming each such file, and keeps nothing', async () => {
    const upload = ingestForm(
      deps,
      principal,
      parts(
        file('notes.txt', 'readable'),
        file('empty.txt', ''),
        file('photos.zip', '\u0050\u004b\u0005\u0006'.padEnd(22, '\u0000')),
        file('tool.exe', '\u0000\u0001\u0002binary'),
      ),
    );
    const err = await upload.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    const refused = err as AppError;
    expect([refused.status, refused.code]).toEqual([415, 'unsupported_file_format']);
    expect(refused.details.files).toEqual([
      { index: 1, filename: 'empty.txt', code: 'empty_document', reason: 'the file is empty' },
      {
        index: 2,
        filename: 'photos.zip',
        code: 'unsupported_media_type',
        reason: expect.stringMatching(/^a zip archive/),
      },
      {
        index: 3,
        filename: 'tool.exe',
        code: 'unsupported_media_type',
        reason: expect.stringMatching(/^binary content/),
      },
    ]);
    expect(refused.details.supportedFormats).toEqual(
      expect.arrayContaining(['PDF', 'Word (.docx)', 'Markdown']),
    );
    expect(refused.message).toMatch(
      /^3 of 4 files cannot be read, so nothing was uploaded: "empty\.txt": the file is empty;/,
    );
    expect(refused.message).toContain('Supported formats: PDF, Word (.docx)');
    expect(await stored()).toEqual([]);
    expect(workspaces.workspaces.size).toBe(0);
    expect(enqueued()).toEqual([]);
  });

  it('counts the refused files as a person reads it: "1 of 2 files", "2 of 3 files", "The file"', async () => {
    const messageOf = async (...files: UploadPart[]) =>
      ((await ingestForm(deps, principal, parts(...files)).catch((e: unknown) => e)) as AppError).message;
    expect(await messageOf(file('a.txt', 'one'), file('empty.txt', ''))).toMatch(
      /^1 of 2 files cannot be read, so nothing was uploaded: "empty\.txt": the file is empty\./,
    );
    expect(await messageOf(file('a.txt', 'one'), file('b.txt', ''), file('c.txt', ''))).toMatch(
      /^2 of 3 files cannot be read, so nothing was uploaded: "b\.txt": the file is empty; "c\.txt"/,
    );
    expect(await messageOf(file('empty.txt', ''))).toMatch(
      /^The file cannot be read, so nothing was uploaded: "empty\.txt": the file is empty\./,
    );
    expect(await stored()).toEqual([]);
  });

  it('names the workspace it creates, and refuses a name beside a workspace id', async () => {
    const named = await ingestForm(
      deps,
      principal,
      parts(field('workspaceName', ' Contracts '), file('a.txt', 'one')),
    );
    expect(named.workspace.name).toBe('Contracts');
    const both = ingestForm(
      deps,
      principal,
      parts(field('workspaceId', named.workspace.id), field('workspaceName', 'Other'), file('b.txt', 'two')),
    );
    expect(await codeOf(both)).toBe('400 invalid_request');
    const blank = ingestForm(deps, principal, parts(field('workspaceName', '  '), file('c.txt', 'three')));
    expect(await codeOf(blank)).toBe('400 invalid_request');
    expect((await stored()).sort()).toEqual(named.documents.map((d) => d.id));
  });

  it('refuses fields it cannot use after the files arrived, removing them', async () => {
    for (const [bad, expected] of [
      [field('metadata', '[1, 2]'), '400 invalid_request'],
      [field('idempotencyKey', 'k'.repeat(256)), '400 invalid_request'],
      [field('note', 'a\u0000b'), '400 invalid_characters'],
    ] as const) {
      expect(await codeOf(ingestForm(deps, principal, parts(file('a.txt', 'one'), bad))), expected).toBe(
        expected,
      );
      expect(await stored(), expected).toEqual([]);
    }
  });
});

describe('storing a form’s files (Stager)', () => {
  /** A store whose writes wait until released, counting how many are under way at once. */
  class HeldStore extends FsObjectStore {
    underWay = 0;
    most = 0;
    private releases: (() => void)[] = [];
    failFirst = false;
    override async put(key: string, body: Readable | Buffer | string) {
      this.underWay++;
      this.most = Math.max(this.most, this.underWay);
      await new Promise<void>((resolve) => this.releases.push(resolve));
      this.underWay--;
      if (this.failFirst) {
        this.failFirst = false;
        throw new Error('disk full');
      }
      return super.put(key, body);
    }
    release() {
      for (const r of this.releases.splice(0)) r();
    }
  }
  const sha = (body: string | Buffer) => createHash('sha256').update(body).digest('hex');

  it('reads the next small file while earlier ones are written, at most 16 at once', async () => {
    const store = new HeldStore(tmp);
    const stager = new Stager(store, unmeasuredSpace);
    const files = Array.from({ length: 20 }, (_, i) => `file ${i}`);
    const staging = (async () => {
      const out = [];
      for (const [i, body] of files.entries()) {
        out.push(
          await stager.stage({
            filename: `${i}.txt`,
            mediaType: null,
            stream: Readable.from([Buffer.from(body)]),
          }),
        );
      }
      return out;
    })();
    // Sixteen files read and none written yet: the seventeenth waits for a write to end.
    await vi.waitFor(() => expect(store.underWay).toBe(16));
    store.release();
    await vi.waitFor(() => expect(store.underWay).toBe(4));
    store.release();
    const staged = await staging;
    await stager.settled();
    expect(store.most).toBe(16);
    expect(staged.map((f) => f.sha256)).toEqual(files.map(sha));
    expect((await stored()).sort()).toEqual(staged.map((f) => f.documentId).sort());
  });

  it('streams a large file as it arrives, the bytes read first included', async () => {
    const big = Buffer.alloc(700 * 1024, 'abcdefghij');
    const stager = new Stager(objects, unmeasuredSpace);
    const f = await stager.stage({
      filename: 'big.txt',
      mediaType: 'text/plain',
      stream: Readable.from([
        big.subarray(0, 100_000),
        big.subarray(100_000, 400_000),
        big.subarray(400_000),
      ]),
    });
    await stager.settled();
    expect([f.sizeBytes, f.sha256]).toEqual([big.length, sha(big)]);
    expect((await objects.getBuffer(f.storageKey))?.equals(big)).toBe(true);
  });

  it('answers upload_incomplete for a file whose stream broke before it arrived', async () => {
    const closed = new Readable({ read() {} });
    closed.push(Buffer.from('half'));
    closed.destroy();
    const stager = new Stager(objects, unmeasuredSpace);
    expect(await codeOf(stager.stage({ filename: 'cut.txt', mediaType: null, stream: closed }))).toBe(
      '400 upload_incomplete',
    );
    await stager.settled();
    expect(await stored()).toEqual([]);
  });

  it('answers upload_incomplete for a file whose stream breaks, small or large', async () => {
    for (const size of [10, 400 * 1024]) {
      const broken = new Readable({ read() {} });
      broken.push(Buffer.alloc(size, 'a'));
      setImmediate(() => broken.destroy(new Error('client went away')));
      const stager = new Stager(objects, unmeasuredSpace);
      expect(
        await codeOf(stager.stage({ filename: 'cut.txt', mediaType: null, stream: broken })),
        `${size}`,
      ).toBe('400 upload_incomplete');
    }
  });

  it('fails the form on a write that fails after its file was read, and keeps none of its files', async () => {
    const store = new HeldStore(tmp);
    store.failFirst = true;
    const upload = ingestForm(
      { ...deps, objects: store },
      principal,
      parts(file('b.txt', 'two'), file('c.txt', 'three')),
    );
    // Both files are read before either is written.
    await vi.waitFor(() => expect(store.underWay).toBe(2));
    store.release();
    await expect(upload).rejects.toThrow('disk full');
    expect(await stored()).toEqual([]);
    expect(workspaces.workspaces.size).toBe(0);
  });
});

describe('the disk’s floor (STORAGE_MIN_FREE_MB)', () => {
  const MIB = 1024 * 1024;
  /** A disk with `free` bytes left that shrinks by what the store writes (read through statfs's stand-in). */
  const disk = (free: number) => {
    const state = { free, reads: 0, refusals: 0 };
    let now = 0;
    const space = new DiskSpace(
      tmp,
      100 * MIB,
      () => state.refusals++,
      async () => {
        state.reads++;
        return state.free;
      },
      () => now,
    );
    return { state, space, later: (ms: number) => (now += ms) };
  };

  it('measures the disk a store folder not made yet will be on (a fresh DATA_DIR before its first upload)', async () => {
    const missing = path.join(tmp, 'objects-not-made-yet', 'deeper');
    const [below, above] = [await freeBytes(missing), await freeBytes(tmp)];
    expect(below).toBeGreaterThan(0);
    // The same file system, read twice: only what other processes wrote in between differs.
    expect(Math.abs(below - above)).toBeLessThan(256 * 1024 * 1024);
  });

  it('refuses a form whose declared size would leave less than the floor, before it reads a byte', async () => {
    const { space, state } = disk(150 * MIB);
    let read = false;
    const body = (async function* (): AsyncGenerator<UploadPart> {
      read = true;
      yield* parts(file('a.txt', 'one'));
    })();
    expect(await codeOf(ingestForm({ ...deps, space }, principal, body, 60 * MIB))).toBe(
      '507 insufficient_storage',
    );
    expect(read).toBe(false);
    expect(state.refusals).toBe(1);
    expect(await stored()).toEqual([]);
  });

  it('stops a large file mid-stream when the disk reaches the floor, and keeps none of the form', async () => {
    const { space } = disk(100 * MIB + 900 * 1024);
    const chunk = Buffer.alloc(256 * 1024, 'x');
    const endless = Readable.from(
      (function* () {
        for (let i = 0; i < 40; i++) yield chunk;
      })(),
    );
    const form = async function* (): AsyncGenerator<UploadPart> {
      yield* parts(file('small.txt', 'kept only if all fits'));
      yield { kind: 'file', field: 'files', filename: 'big.bin', mediaType: null, stream: endless };
    };
    expect(await codeOf(ingestForm({ ...deps, space }, principal, form()))).toBe('507 insufficient_storage');
    // 900 KiB above the floor: the small file and three chunks at most were let through, then nothing.
    expect(endless.readableEnded).toBe(false);
    expect(await stored()).toEqual([]);
    expect((await readdir(tmp, { recursive: true })).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('reads the free space at most once a second, counting what it let through since', async () => {
    const { space, state, later } = disk(100 * MIB + 10 * MIB);
    for (let i = 0; i < 9; i++) await space.reserve(MIB);
    // Nine MiB counted on one reading: the next two would cross the floor, though statfs was not asked.
    expect(await codeOf(space.reserve(2 * MIB))).toBe('507 insufficient_storage');
    expect(state.reads).toBe(1);
    state.free = 100 * MIB + 10 * MIB; // space freed meanwhile
    later(1000);
    await space.reserve(2 * MIB);
    expect(state.reads).toBe(2);
    // ensure only looks: it counts nothing.
    for (let i = 0; i < 20; i++) await space.ensure(7 * MIB);
    await space.reserve(7 * MIB);
  });
});
