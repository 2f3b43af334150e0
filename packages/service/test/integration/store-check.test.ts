import { randomBytes } from 'node:crypto';
import { S3Client } from '@aws-sdk/client-s3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LanceSearchIndex } from '../../src/adapters/index/lancedb.js';
import { guardIndexWrites } from '../../src/adapters/objects/commit-guard.js';
import {
  ConditionalWriteCheck,
  probeConditionalWrites,
} from '../../src/adapters/objects/conditional-writes.js';
import { S3ObjectStore } from '../../src/adapters/objects/s3.js';
import { quoteIdent } from '../../src/adapters/postgres/db.js';
import { client } from '../support/http.js';
import {
  baseEnv,
  freePort,
  type RunningProcess,
  runCli,
  startCli,
  waitForHealth,
} from '../support/processes.js';
import { startS3Server, type TestS3 } from '../support/s3.js';

/**
 * LanceDB's commits rely on the store refusing a second create-only PUT of one key. The same S3 test
 * server honouring `If-None-Match: *` and ignoring it (patches/: `ignoreConditionalWrites`).
 */
let honouring: TestS3;
let ignoring: TestS3;

function s3Client(s3: TestS3): S3Client {
  return new S3Client({
    region: 'us-east-1',
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  });
}

async function keys(s3: TestS3): Promise<string[]> {
  const store = new S3ObjectStore({
    bucket: s3.bucket,
    region: 'us-east-1',
    endpoint: s3.endpoint,
    forcePathStyle: true,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
  });
  const out: string[] = [];
  for await (const o of store.list()) out.push(o.key);
  await store.close();
  return out;
}

beforeAll(async () => {
  honouring = await startS3Server();
  ignoring = await startS3Server({ ignoreConditionalWrites: true });
});

afterAll(async () => {
  await honouring?.close();
  await ignoring?.close();
});

describe('the conditional-write probe', () => {
  it('passes on a store that refuses the second create-only PUT, and leaves no key behind', async () => {
    const c = s3Client(honouring);
    await expect(probeConditionalWrites(c, honouring.bucket, 'lancedb')).resolves.toBeUndefined();
    expect(await keys(honouring)).toEqual([]);
    c.destroy();
  });

  it('fails on a store that ignores If-None-Match, saying what is wrong and what to do', async () => {
    const c = s3Client(ignoring);
    const err = await probeConditionalWrites(c, ignoring.bucket, 'lancedb').then(
      () => undefined,
      (e: unknown) => e as Error & { dependency?: string },
    );
    expect(err?.dependency).toBe('objectStorage');
    expect(err?.message).toMatch(
      /^object storage ignores conditional writes at s3:\/\/service-files\/lancedb\//,
    );
    expect(err?.message).toContain('answered 200 instead of 412');
    expect(err?.message).toContain('refuses to write the index');
    expect(err?.message).toContain('If-None-Match: *');
    expect(err?.message).toContain('INDEX_URI=s3+ddb://');
    expect(await keys(ignoring)).toEqual([]);
    c.destroy();
  });

  it('keeps the index from committing to a store that ignores it; reads still work', async () => {
    const check = new ConditionalWriteCheck(() =>
      probeConditionalWrites(s3Client(ignoring), ignoring.bucket, 'lancedb'),
    );
    const options = {
      aws_region: 'us-east-1',
      aws_endpoint: ignoring.endpoint,
      allow_http: 'true',
      aws_access_key_id: ignoring.accessKeyId,
      aws_secret_access_key: ignoring.secretAccessKey,
    };
    const lance = new LanceSearchIndex(`s3://${ignoring.bucket}/lancedb`, options);
    const index = guardIndexWrites(lance, check);
    const row = {
      id: 'chk_1',
      documentId: 'doc_1',
      ordinal: 0,
      text: 'hello',
      headingPath: [],
      heading: '',
      filename: 'a.md',
      sourceUrl: null,
      mediaType: 'text/markdown',
      pageStart: null,
      pageEnd: null,
      charStart: 0,
      charEnd: 5,
      wordCodes: new Uint32Array(),
    };
    await expect(index.replaceDocuments('ws_1', [{ documentId: 'doc_1', rows: [row] }])).rejects.toThrow(
      /ignores conditional writes/,
    );
    await expect(index.deleteDocument('ws_1', 'doc_1')).rejects.toThrow(/ignores conditional writes/);
    await expect(index.optimize('ws_1')).rejects.toThrow(/ignores conditional writes/);
    expect(await index.countRows('ws_1')).toBe(0);
    expect((await keys(ignoring)).filter((k) => k.includes('ws_1'))).toEqual([]);
    await lance.close();
  });

  it('probes again before a write once its last answer is old, so a store that changes is caught', async () => {
    let now = 0;
    let calls = 0;
    let honours = true;
    const check = new ConditionalWriteCheck(
      async () => {
        calls++;
        if (!honours) throw new Error('ignored');
      },
      60_000,
      () => now,
    );
    await check.assertWritable();
    await check.assertWritable();
    expect(calls).toBe(1);
    honours = false;
    now = 59_999;
    await check.assertWritable();
    expect(calls).toBe(1);
    now = 60_000;
    await expect(check.assertWritable()).rejects.toThrow('ignored');
    // A failed answer is never trusted: every write asks again until the store honours the header.
    await expect(check.assertWritable()).rejects.toThrow('ignored');
    expect(calls).toBe(3);
    honours = true;
    await check.assertWritable();
    expect(calls).toBe(4);
  });
});

describe('a worker and a server on a store that ignores conditional writes', () => {
  const dbName = `sc_${randomBytes(5).toString('hex')}`;
  const adminUrl = () => inject('testPg').adminUrl;
  const processes: RunningProcess[] = [];
  let env: Record<string, string>;
  let serverUrl: string;
  let workerUrl: string;
  const metricsSecret = randomBytes(12).toString('hex');
  const bootstrapKey = `dsk_${randomBytes(20).toString('hex')}`;

  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: adminUrl() });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };

  beforeAll(async () => {
    await admin(`CREATE DATABASE ${quoteIdent(dbName)}`);
    const db = new URL(adminUrl());
    db.pathname = `/${dbName}`;
    const [serverPort, workerPort] = [await freePort(), await freePort()];
    serverUrl = `http://127.0.0.1:${serverPort}`;
    workerUrl = `http://127.0.0.1:${workerPort}`;
    env = {
      ...baseEnv(),
      ...ignoring.env,
      NODE_ENV: 'production',
      WORKFLOW_NAMESPACE: 'service',
      DATABASE_URL: db.toString(),
      SERVER_BIND_ADDRESS: '127.0.0.1',
      SERVER_PORT: String(serverPort),
      WORKER_HTTP_PORT: String(workerPort),
      METRICS_SECRET: metricsSecret,
      SERVICE_BOOTSTRAP_API_KEY: bootstrapKey,
      LOG_LEVEL: 'info',
    };
    const migrated = await runCli(['migrate'], env);
    expect(migrated.code, migrated.output).toBe(0);
  });

  afterAll(async () => {
    for (const p of processes) await p.stop();
    await admin(`DROP DATABASE IF EXISTS ${quoteIdent(dbName)} WITH (FORCE)`);
    await admin(`DROP DATABASE IF EXISTS ${quoteIdent(`${dbName}_workflow`)} WITH (FORCE)`);
  });

  it("the worker takes no document, says why, and its /ready and the server's name the store", async () => {
    const worker = startCli('worker', ['worker'], env);
    const server = startCli('server', ['server'], env);
    processes.push(worker, server);
    const waiting = await worker.waitFor(/the worker is waiting for object storage/, 30_000);
    expect(waiting).toContain('object storage ignores conditional writes');
    expect(worker.output()).not.toContain('"msg":"worker started"');

    await waitForHealth(workerUrl);
    const ready = await client(workerUrl).get('/ready');
    expect(ready.status).toBe(503);
    expect(ready.body.status).toBe('unavailable');
    expect(ready.body.checks.conditionalWrites).toMatchObject({ ok: false, critical: true });
    expect(ready.body.checks.conditionalWrites.error).toContain('ignores conditional writes');
    // The rest of the worker's dependencies are fine, the sandbox included.
    for (const name of ['database', 'objectStore', 'searchIndex', 'jobEngine', 'parserSandbox'])
      expect(ready.body.checks[name], name).toMatchObject({ ok: true });
    expect(ready.body.checks.cache).toBeUndefined();

    await waitForHealth(serverUrl);
    const serverReady = await client(serverUrl).get('/ready');
    expect(serverReady.status).toBe(503);
    expect(serverReady.body.checks.conditionalWrites.ok).toBe(false);

    // An upload is accepted (originals are plain objects), but nothing is indexed meanwhile.
    const api = client(serverUrl, bootstrapKey);
    const up = await api.upload([{ name: 'a.md', content: '# A\n\nAlpha.\n' }]);
    expect(up.status).toBe(202);
    await new Promise((r) => setTimeout(r, 3000));
    const doc = await api.get(`/v1/documents/${up.body.documents[0].id}`);
    expect(doc.body.status).toBe('queued');
    expect(worker.output()).not.toContain('"msg":"worker started"');
  });
});
