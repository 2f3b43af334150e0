import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/http.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * Issue 26, findings 6 and 13: a bucket on loopback that answers as S3 does, but sends one object
 * without a Content-Length (chunked, three times the size limit) and another a few bytes at a time
 * for ever. Both must stop at the limits. And a source without keys must be anonymous: the AWS
 * SDK's default credential chain (the environment, files, the container endpoint, the instance
 * metadata at 169.254.169.254) must never run; here the container endpoint points at this server.
 */

const MIB = 1024 * 1024;
const seen: { path: string; authorization: string | undefined }[] = [];
let server: http.Server;
let endpoint: string;
const saved = {
  uri: process.env.AWS_CONTAINER_CREDENTIALS_FULL_URI,
  imds: process.env.AWS_EC2_METADATA_DISABLED,
};

const listing = (keys: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">` +
  `<Name>drop</Name><Prefix></Prefix><KeyCount>${keys.length}</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated>` +
  keys
    .map(
      (k) =>
        `<Contents><Key>${k}</Key><LastModified>2026-01-01T00:00:00.000Z</LastModified><ETag>"${k}"</ETag><Size>100</Size><StorageClass>STANDARD</StorageClass></Contents>`,
    )
    .join('') +
  '</ListBucketResult>';

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    seen.push({ path: url.pathname, authorization: req.headers.authorization });
    if (url.pathname === '/creds') {
      // The container credential endpoint: the default chain asking here is the bug.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          AccessKeyId: 'AKIASERVER',
          SecretAccessKey: 'server-secret',
          Token: 't',
          Expiration: new Date(Date.now() + 3600_000).toISOString(),
        }),
      );
      return;
    }
    if (
      (url.pathname === '/drop' || url.pathname === '/drop/') &&
      url.searchParams.get('list-type') === '2'
    ) {
      res
        .writeHead(200, { 'content-type': 'application/xml' })
        .end(listing(['big.md', 'slow.md', 'fine.md']));
      return;
    }
    if (url.pathname === '/drop/fine.md') {
      res.writeHead(200, { 'content-type': 'text/markdown', 'content-length': '40' });
      res.end('# Fine\n\nThe fine object is small enough.\n'.padEnd(40, ' '));
      return;
    }
    if (url.pathname === '/drop/big.md') {
      // No Content-Length: chunked, 3 MiB against a 1 MiB limit.
      res.writeHead(200, { 'content-type': 'text/markdown' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let sent = 0;
      const pump = () => {
        while (sent < 3 * MIB) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
      return;
    }
    if (url.pathname === '/drop/slow.md') {
      res.writeHead(200, { 'content-type': 'text/markdown' });
      const timer = setInterval(() => res.write('# '), 200);
      res.on('close', () => clearInterval(timer));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.env.AWS_CONTAINER_CREDENTIALS_FULL_URI = `${endpoint}/creds`;
  // Never the real instance metadata address, whatever the code under test does.
  process.env.AWS_EC2_METADATA_DISABLED = 'true';
});
afterAll(async () => {
  process.env.AWS_CONTAINER_CREDENTIALS_FULL_URI = saved.uri;
  process.env.AWS_EC2_METADATA_DISABLED = saved.imds;
  if (saved.uri === undefined) delete process.env.AWS_CONTAINER_CREDENTIALS_FULL_URI;
  if (saved.imds === undefined) delete process.env.AWS_EC2_METADATA_DISABLED;
  await new Promise<void>((r) => server.close(() => r()));
});

describe('a bucket source at its limits', () => {
  let svc: TestService;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    svc = await startTestService({
      env: {
        URL_FETCH_ALLOW_HOSTS: '127.0.0.1/32',
        UPLOAD_MAX_FILE_BYTES: String(MIB),
        URL_FETCH_TIMEOUT_SECONDS: '3',
      },
    });
    api = client(svc.url, await svc.key());
  });
  afterAll(() => svc?.close());

  it('is anonymous without keys, and stops an object without length at the size limit and a slow one at the time limit', async () => {
    const workspaceId = (await api.post('/v1/workspaces', { name: 'limits' })).body.id as string;
    const created = await api.post(`/v1/workspaces/${workspaceId}/sources`, {
      type: 's3',
      settings: { endpoint, bucket: 'drop' },
    });
    expect(created.status).toBe(201);
    const started = await api.post(`/v1/workspaces/${workspaceId}/sources/${created.body.id}/sync`, {});
    const run = await api.waitForRun(started.body.run.id, 60_000);
    expect(run.error).toBeNull();
    const failures = new Map(
      (run.failures as { filename: string; code: string }[]).map((f) => [f.filename, f.code]),
    );
    expect(failures.get('big.md')).toBe('file_too_large');
    expect(failures.get('slow.md')).toBe('fetch_timeout');
    expect(run.counts).toMatchObject({ total: 3, ready: 1 });
    // Nothing of the big object was kept beyond the limit.
    const docs = (await api.get(`/v1/workspaces/${workspaceId}/documents`)).body.documents as {
      filename: string;
      sizeBytes: number | null;
    }[];
    for (const d of docs) expect(d.sizeBytes ?? 0).toBeLessThanOrEqual(MIB);
    // Anonymous: no request signed, and the credential chain never asked for the server's keys.
    expect(seen.filter((r) => r.path === '/creds')).toEqual([]);
    expect(seen.filter((r) => r.authorization !== undefined)).toEqual([]);
    expect(seen.some((r) => r.path === '/drop/fine.md')).toBe(true);
  });
});

describe("a bucket source and the server's own AWS identity", () => {
  it('is refused unless the operator lends it (SOURCE_S3_SERVER_CREDENTIALS), and used only when asked for', async () => {
    const plain = await startTestService({ env: { URL_FETCH_ALLOW_HOSTS: '127.0.0.1/32' }, worker: false });
    try {
      const api = client(plain.url, await plain.key());
      const ws = (await api.post('/v1/workspaces', { name: 'refused' })).body.id as string;
      const refused = await api.post(`/v1/workspaces/${ws}/sources`, {
        type: 's3',
        settings: { endpoint, bucket: 'drop', serverCredentials: true },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toContain('SOURCE_S3_SERVER_CREDENTIALS');
    } finally {
      await plain.close();
    }

    const lending = await startTestService({
      env: {
        URL_FETCH_ALLOW_HOSTS: '127.0.0.1/32',
        SOURCE_S3_SERVER_CREDENTIALS: 'true',
        UPLOAD_MAX_FILE_BYTES: String(MIB),
      },
    });
    try {
      const api = client(lending.url, await lending.key());
      const ws = (await api.post('/v1/workspaces', { name: 'lent' })).body.id as string;
      seen.length = 0;
      const created = await api.post(`/v1/workspaces/${ws}/sources`, {
        type: 's3',
        settings: { endpoint, bucket: 'drop', serverCredentials: true, include: ['fine.md'] },
      });
      expect(created.status).toBe(201);
      const run = await api.waitForRun(created.body.syncRunId, 60_000);
      expect(run).toMatchObject({ status: 'completed', counts: { ready: 1 } });
      // The default chain asked the container endpoint, and the bucket's requests were signed with its keys.
      expect(seen.some((r) => r.path === '/creds')).toBe(true);
      const signed = seen.filter((r) => r.path.startsWith('/drop'));
      expect(signed.length).toBeGreaterThan(0);
      for (const r of signed) expect(r.authorization).toContain('AKIASERVER');
    } finally {
      await lending.close();
    }
  });
});
