import { readdir } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeBytes } from '../../src/adapters/objects/space.js';
import { client } from '../support/http.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * Issue 44, finding 7: an upload may not fill the disk the database, the index and every account
 * share. The floor (STORAGE_MIN_FREE_MB) is set from the disk's free space when each test starts, so
 * the test does not need to fill a disk to reach it.
 */
const MIB = 1024 * 1024;
let svc: TestService;
let key: string;
let api: ReturnType<typeof client>;

/** Starts a service whose floor leaves `roomMb` of the disk's free space to uploads (its DATA_DIR is in the temporary folder). */
async function withRoom(roomMb: number): Promise<TestService> {
  const free = await freeBytes(os.tmpdir());
  return startTestService({
    env: { STORAGE_MIN_FREE_MB: String(Math.max(0, Math.floor(free / MIB) - roomMb)) },
  });
}

/** The originals kept in object storage. */
const originals = (s: TestService) => readdir(path.join(s.dataDir, 'objects', 'raw')).catch(() => []);

describe('a disk with room left', () => {
  beforeAll(async () => {
    svc = await withRoom(300);
    key = await svc.key();
    api = client(svc.url, key);
  });
  afterAll(() => svc?.close());

  it('takes an upload that fits', async () => {
    const up = await api.upload([{ name: 'fits.md', content: '# Fits\n\nA small file fits.' }]);
    expect(up.status).toBe(202);
  });

  it('refuses, before reading it, an upload whose declared size would go under the floor', async () => {
    const before = (await originals(svc)).length;
    // 1 GiB declared, a few bytes sent: the answer comes without the rest of the body.
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(`${svc.url}/v1/ingest/bulk`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'multipart/form-data; boundary=x',
          'content-length': String(1024 * MIB),
        },
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (c) => {
          body += c;
        });
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body });
          req.destroy();
        });
      });
      req.on('error', reject);
      req.write('--x\r\nContent-Disposition: form-data; name="files"; filename="big.bin"\r\n\r\n');
    });
    expect(answer.status).toBe(507);
    expect(JSON.parse(answer.body).error.code).toBe('insufficient_storage');
    expect((await originals(svc)).length).toBe(before);
    expect((await client(svc.url).get('/health')).status).toBe(200);
  });
});

describe('a disk at its floor', () => {
  let full: TestService;
  beforeAll(async () => {
    full = await withRoom(-100_000);
  });
  afterAll(() => full?.close());

  it('refuses uploads and URL ingestion with 507, stores nothing, and serves everything else', async () => {
    const api = client(full.url, await full.key());
    const up = await api.upload([{ name: 'a.md', content: '# A\n\nNo room for this.' }]);
    expect([up.status, up.body.error.code]).toEqual([507, 'insufficient_storage']);
    const urls = await api.post('/v1/ingest/urls', { urls: ['https://example.com/'] });
    expect([urls.status, urls.body.error.code]).toEqual([507, 'insufficient_storage']);
    expect(await originals(full)).toEqual([]);
    const made = await api.post('/v1/workspaces', { name: 'Still works' });
    expect(made.status).toBe(201);
    expect((await api.get('/v1/workspaces')).status).toBe(200);
  });
});
