import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3ObjectStore } from '../../src/adapters/objects/s3.js';
import { buildApp } from '../../src/app.js';
import { createDeps } from '../../src/deps.js';
import { createLogger } from '../../src/logger.js';
import { makePdf } from '../support/fixtures.js';
import { client } from '../support/http.js';
import { startS3Server, type TestS3 } from '../support/s3.js';
import { startTestService, type TestService } from '../support/service.js';

/** The stack's back ends in one process: S3 for objects and the index, Redis for rate limits. */
let s3: TestS3;
let svc: TestService;
let api: ReturnType<typeof client>;
let bucket: S3ObjectStore;
const redis = { REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' };

beforeAll(async () => {
  s3 = await startS3Server();
  svc = await startTestService({ env: { ...s3.env, ...redis } });
  api = client(svc.url, await svc.key());
  const objects = svc.config.objects;
  if (objects.kind !== 's3') throw new Error('expected the S3 object store');
  bucket = new S3ObjectStore(objects);
});
afterAll(async () => {
  await svc?.close();
  await bucket?.close();
  await s3?.close();
});

describe('service on S3 and Redis', () => {
  let workspaceId: string;
  let pdfId: string;
  const pdf = makePdf(['Cover page.', 'The on-call rotation changes every Tuesday at noon.']);

  it('stores uploads in the bucket, indexes them under lancedb/ and finds them', async () => {
    expect(svc.config.objects.kind).toBe('s3');
    const r = await api.upload([
      { name: 'oncall.pdf', content: pdf, type: 'application/pdf' },
      { name: 'notes.md', content: '# Notes\n\nThe fire drill is scheduled for the first Monday.\n' },
    ]);
    expect(r.status).toBe(202);
    workspaceId = r.body.workspace.id;
    pdfId = r.body.documents[0].id;
    const progress = await api.waitForRun(r.body.run.id, 60_000);
    expect(progress.counts).toMatchObject({ total: 2, ready: 2 });

    const found = await api.post('/v1/search', { workspaceId, q: 'when does the on-call rotation change' });
    expect(found.status).toBe(200);
    expect(found.body.results[0].text).toContain('every Tuesday at noon');
    expect(found.body.results[0].citation).toMatchObject({ filename: 'oncall.pdf', page: 2 });

    const keys: string[] = [];
    for await (const o of bucket.list()) keys.push(o.key);
    expect(keys).toContain(`raw/${pdfId}`);
    expect(keys).toContain(`derived/${pdfId}/text.md`);
    expect(keys.some((k) => k.startsWith(`lancedb/${workspaceId}.lance/`))).toBe(true);
  });

  it('serves the original bytes back from the bucket', async () => {
    const res = await fetch(`${svc.url}/v1/documents/${pdfId}/content`, {
      headers: { authorization: `Bearer ${await svc.key()}` },
    });
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(pdf)).toBe(true);
  });

  it('reports every back end ready, with latencies', async () => {
    const r = await api.get('/ready');
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('ready');
    for (const name of ['database', 'objectStore', 'searchIndex', 'jobEngine', 'cache']) {
      expect(r.body.checks[name]).toMatchObject({ ok: true });
      expect(typeof r.body.checks[name].latencyMs).toBe('number');
    }
  });
});

describe('readiness when a back end is wrong', () => {
  it('is 503 with the reason when the bucket does not exist', async () => {
    const broken = await startTestService({ env: { ...s3.env, S3_BUCKET: 'no-such-bucket' }, worker: false });
    try {
      const r = await client(broken.url).get('/ready');
      expect(r.status).toBe(503);
      expect(r.body.checks.objectStore.ok).toBe(false);
      expect(r.body.checks.objectStore.error).toContain('no bucket "no-such-bucket"');
    } finally {
      await broken.close();
    }
  });

  it('stays ready but degraded when Redis is unreachable (the cache is not critical)', async () => {
    const noRedis = await startTestService({
      env: { ...s3.env, REDIS_URL: 'redis://127.0.0.1:1' },
      worker: false,
    });
    try {
      const r = await client(noRedis.url).get('/ready');
      expect(r.status).toBe(200);
      expect(r.body.status).toBe('degraded');
      expect(r.body.checks.cache.ok).toBe(false);
      expect(r.body.checks.objectStore.ok).toBe(true);
    } finally {
      await noRedis.close();
    }
  });
});

describe('rate limits across server processes', () => {
  it('counts one key once across two servers sharing Redis', async () => {
    const limited = await startTestService({
      env: { ...s3.env, ...redis, RATE_LIMIT_PER_MINUTE: '4' },
      worker: false,
    });
    // A second server over the same database and Redis, as a scaled stack would run it.
    const deps2 = await createDeps(limited.config, createLogger('silent'), limited.dbs.urls);
    const app2 = await buildApp(deps2);
    await app2.listen({ host: '127.0.0.1', port: 0 });
    const address = app2.server.address();
    const url2 = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    try {
      const key = await limited.key();
      const one = client(limited.url, key);
      const two = client(url2, key);
      const path = `/v1/workspaces/ws_${randomBytes(4).toString('hex')}/documents`;
      const statuses = [];
      for (const c of [one, two, one, two]) statuses.push((await c.get(path)).status);
      expect(statuses).toEqual([404, 404, 404, 404]);
      const fifth = await one.get(path);
      expect(fifth.status).toBe(429);
      expect(Number(fifth.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect((await two.get(path)).status).toBe(429);
    } finally {
      await app2.close();
      await deps2.close();
      await limited.close();
    }
  });
});
