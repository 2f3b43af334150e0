import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LanceSearchIndex } from '../../src/adapters/index/lancedb.js';
import { S3ObjectStore } from '../../src/adapters/objects/s3.js';
import { loadConfig } from '../../src/config.js';
import { lanceStorageOptions } from '../../src/deps.js';
import type { IndexRow } from '../../src/domain/ports.js';
import { startS3Server, type TestS3 } from '../support/s3.js';

let s3: TestS3;
let store: S3ObjectStore;

const storeFor = (over: Partial<ConstructorParameters<typeof S3ObjectStore>[0]> = {}) =>
  new S3ObjectStore({
    bucket: s3.bucket,
    region: 'us-east-1',
    endpoint: s3.endpoint,
    forcePathStyle: true,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
    ...over,
  });

beforeAll(async () => {
  s3 = await startS3Server();
  store = storeFor();
});
afterAll(async () => {
  await store?.close();
  await s3?.close();
});

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

describe('S3 object store', () => {
  it('round-trips buffers and strings, and reports a missing key as undefined', async () => {
    await store.put('derived/doc_1/text.md', '# Title\n\nBody', 'text/markdown; charset=utf-8');
    await store.put('raw/doc_1', Buffer.from([0, 1, 2, 255]));
    expect((await store.getBuffer('derived/doc_1/text.md'))?.toString()).toBe('# Title\n\nBody');
    expect([...((await store.getBuffer('raw/doc_1')) ?? [])]).toEqual([0, 1, 2, 255]);
    expect(await store.get('raw/nope')).toBeUndefined();
    expect(await store.getBuffer('raw/nope')).toBeUndefined();
  });

  it('streams a body larger than one upload part (multipart) and reads it back intact', async () => {
    const size = 20 * 1024 * 1024 + 123;
    const payload = randomBytes(size);
    // Handed over in 64 KiB slices, as an HTTP upload arrives.
    const chunks = function* () {
      for (let i = 0; i < payload.length; i += 65536) yield payload.subarray(i, i + 65536);
    };
    await store.put('raw/big', Readable.from(chunks()), 'application/octet-stream');
    const listed = [];
    for await (const o of store.list('raw/big')) listed.push(o);
    expect(listed).toEqual([{ key: 'raw/big', size }]);
    const back = await readAll((await store.get('raw/big'))!);
    expect(sha(back)).toBe(sha(payload));
  });

  it('rejects with the source stream error when the upload stream fails, leaving no object', async () => {
    const failing = new Readable({
      read() {
        this.push(randomBytes(1024));
        this.destroy(new Error('client went away'));
      },
    });
    await expect(store.put('raw/broken', failing)).rejects.toThrow('client went away');
    expect(await store.get('raw/broken')).toBeUndefined();
  });

  it('deletes in batches and ignores keys that are already gone', async () => {
    const keys = Array.from({ length: 5 }, (_, i) => `tmp/del-${i}`);
    for (const k of keys) await store.put(k, k);
    await store.delete([...keys, 'tmp/never-existed']);
    const left = [];
    for await (const o of store.list('tmp/')) left.push(o.key);
    expect(left).toEqual([]);
  });

  it('lists every key in key order across pages', async () => {
    // More than one page of 1000, written in an order unrelated to key order.
    const keys = Array.from({ length: 1030 }, (_, i) => `many/${String((i * 7919) % 1030).padStart(4, '0')}`);
    for (let i = 0; i < keys.length; i += 50)
      await Promise.all(keys.slice(i, i + 50).map((k) => store.put(k, 'x')));
    const listed = [];
    for await (const o of store.list('many/')) listed.push(o.key);
    expect(listed).toEqual([...keys].sort());
  });

  it('passes its check, and explains unknown credentials and a missing bucket', async () => {
    await expect(store.check()).resolves.toBeUndefined();
    // s3rver does not verify SigV4 signatures, so only an unknown key id can be shown here.
    const wrongKey = storeFor({ accessKeyId: 'nobody' });
    await expect(wrongKey.check()).rejects.toThrow(/refused the credentials \(InvalidAccessKeyId\)/);
    const noBucket = storeFor({ bucket: 'not-created-yet' });
    await expect(noBucket.check()).rejects.toThrow(
      'object storage has no bucket "not-created-yet" (run migrate',
    );
    for (const s of [wrongKey, noBucket]) await s.close();
  });

  it('creates a missing bucket once, and is idempotent when several processes race', async () => {
    const fresh = storeFor({ bucket: 'created-by-migrate' });
    const racers = [
      fresh,
      storeFor({ bucket: 'created-by-migrate' }),
      storeFor({ bucket: 'created-by-migrate' }),
    ];
    // s3rver, unlike MinIO, may answer "created" to more than one racer; none may fail.
    const created = await Promise.all(racers.map((r) => r.ensureBucket()));
    expect(created).toContain(true);
    await expect(fresh.check()).resolves.toBeUndefined();
    expect(await fresh.ensureBucket()).toBe(false);
    for (const r of racers) await r.close();
  });
});

describe('the patched S3 server behaves as S3 where LanceDB depends on it', () => {
  it('lists a folder that holds only sub-folders as a common prefix', async () => {
    await store.put('tree/table.lance/_versions/1.manifest', 'm');
    await store.put('tree/table.lance/data/a.lance', 'd');
    await store.put('tree/loose.txt', 'l');
    const out = await store.client.send(
      new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'tree/', Delimiter: '/' }),
    );
    expect(out.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['tree/table.lance/']);
    expect(out.Contents?.map((c) => c.Key)).toEqual(['tree/loose.txt']);
  });

  it('refuses a create-only PUT (If-None-Match: *) of an existing key with 412', async () => {
    const put = (body: string) =>
      store.client.send(
        new PutObjectCommand({ Bucket: s3.bucket, Key: 'cond/manifest', Body: body, IfNoneMatch: '*' }),
      );
    await put('first');
    await expect(put('second')).rejects.toMatchObject({
      name: 'PreconditionFailed',
      $metadata: { httpStatusCode: 412 },
    });
    expect((await store.getBuffer('cond/manifest'))?.toString()).toBe('first');
  });

  it('lets exactly one of many concurrent create-only PUTs of one key win', async () => {
    const bodies = Array.from({ length: 12 }, (_, i) => `writer-${i}-${'x'.repeat(20_000)}`);
    const results = await Promise.allSettled(
      bodies.map((Body) =>
        store.client.send(
          new PutObjectCommand({ Bucket: s3.bucket, Key: 'cond/race', Body, IfNoneMatch: '*' }),
        ),
      ),
    );
    const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
    expect(won).toHaveLength(1);
    expect(
      results.filter((r) => r.status === 'rejected').every((r) => r.reason.name === 'PreconditionFailed'),
    ).toBe(true);
    expect((await store.getBuffer('cond/race'))?.toString()).toBe(bodies[won[0]!]);
  });
});

describe('LanceDB indexes in the bucket', () => {
  const rowsFor = (documentId: string, n: number): IndexRow[] =>
    Array.from({ length: n }, (_, i) => ({
      id: `${documentId}:${i}`,
      documentId,
      ordinal: i,
      text: `Document ${documentId} passage ${i} mentions the keyword zephyr${documentId.slice(-2)}.`,
      heading: '',
      headingPath: [],
      filename: `${documentId}.txt`,
      sourceUrl: null,
      mediaType: 'text/plain',
      pageStart: null,
      pageEnd: null,
      charStart: i * 10,
      charEnd: i * 10 + 9,
    }));

  it('keeps every commit of several writers (separate connections) racing on one table', async () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://unused/service', ...s3.env });
    expect(config.index.uri).toBe('s3://service-files/lancedb');
    const writers = Array.from(
      { length: 4 },
      () => new LanceSearchIndex(config.index.uri, lanceStorageOptions(config)),
    );
    const workspace = 'ws_race';
    // Every writer starts before the table exists: creation races too.
    await Promise.all(
      writers.map(async (index, w) => {
        for (let d = 0; d < 5; d++) {
          const documentId = `doc_w${w}d${d}`;
          await index.replaceDocument(workspace, documentId, rowsFor(documentId, 3));
        }
      }),
    );
    const reader = new LanceSearchIndex(config.index.uri, lanceStorageOptions(config));
    for (let w = 0; w < 4; w++) {
      for (let d = 0; d < 5; d++) expect(await reader.countDocumentRows(workspace, `doc_w${w}d${d}`)).toBe(3);
    }
    const hits = await reader.search(workspace, { text: 'zephyrd4', limit: 50 });
    expect(new Set(hits.map((h) => h.row.documentId))).toEqual(
      new Set(['doc_w0d4', 'doc_w1d4', 'doc_w2d4', 'doc_w3d4']),
    );
    // The index lives under lancedb/ in the same bucket as the artifacts.
    const keys = [];
    for await (const o of store.list('lancedb/')) keys.push(o.key);
    expect(keys.some((k) => k.startsWith('lancedb/ws_race.lance/_versions/'))).toBe(true);
    await reader.check();
    for (const index of [...writers, reader]) await index.close();
  });
});
