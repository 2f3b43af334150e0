import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { multipartBody, postHead, rawRequest } from '../support/raw-http.js';
import { type ServerProcess, startServerProcess } from '../support/server-process.js';

/**
 * The attacks of issue 15 against `docslurp server` as its own process, over real sockets: what the
 * process holds (descriptors, staged files) is counted before and after.
 */

let srv: ServerProcess;

beforeAll(async () => {
  srv = await startServerProcess();
});
afterAll(async () => {
  await srv?.stop();
});

/** Every file under DATA_DIR/objects: staged uploads, finished or not (`….tmp`). */
async function storedFiles(): Promise<string[]> {
  const root = path.join(srv.dataDir, 'objects');
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => e.name);
}

const json = (body: string) => JSON.parse(body) as { error: { code: string; message: string } };

describe('uploads that never finish', () => {
  it('ends every truncated or abandoned upload, keeping no staged file and no descriptor', async () => {
    const boundary = 'attack-boundary';
    const auth = {
      authorization: `Bearer ${srv.key}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
    };
    // Warm up: the database pool and the storage folders exist before counting.
    const warm = multipartBody(boundary, [{ name: 'files', filename: 'ok.txt', content: 'A whole file.' }]);
    await Promise.all(
      Array.from({ length: 4 }, () =>
        rawRequest(
          srv.port,
          Buffer.concat([
            Buffer.from(postHead('/v1/ingest/bulk', { ...auth, 'content-length': String(warm.length) })),
            warm,
          ]),
        ),
      ),
    );
    const filesBefore = await storedFiles();
    const descriptorsBefore = await srv.descriptors();

    const small = multipartBody(boundary, [{ name: 'files', filename: 'cut.txt', content: 'hello world' }]);
    const large = multipartBody(boundary, [
      { name: 'files', filename: 'big.bin', content: Buffer.alloc(512 * 1024, 'x') },
    ]);
    const truncated = (body: Buffer, at: number) => {
      const cut = body.subarray(0, at);
      return Buffer.concat([
        Buffer.from(postHead('/v1/ingest/bulk', { ...auth, 'content-length': String(cut.length) })),
        cut,
      ]);
    };
    for (let i = 0; i < 30; i++) {
      // The body is complete as sent, but ends inside a small file part: no closing boundary.
      const a = await rawRequest(srv.port, truncated(small, small.length - `--${boundary}--\r\n`.length - 2));
      expect(a.status).toBe(400);
      expect(json(a.body).error.code).toBe('upload_incomplete');
    }
    for (let i = 0; i < 10; i++) {
      // The same inside a large part.
      const a = await rawRequest(srv.port, truncated(large, 300 * 1024));
      expect(a.status).toBe(400);
      expect(json(a.body).error.code).toBe('upload_incomplete');
    }
    for (let i = 0; i < 10; i++) {
      // A client that announces the whole body, sends part of the file and goes away.
      const head = postHead('/v1/ingest/bulk', { ...auth, 'content-length': String(large.length) });
      await rawRequest(srv.port, Buffer.concat([Buffer.from(head), large.subarray(0, 200 * 1024)]), {
        abandon: true,
      });
    }

    await vi.waitFor(
      async () => {
        expect((await storedFiles()).filter((f) => !filesBefore.includes(f))).toEqual([]);
        // A little slack for the database pool, which may open a connection more under load.
        expect(await srv.descriptors()).toBeLessThanOrEqual(descriptorsBefore + 4);
      },
      { timeout: 10_000, interval: 250 },
    );
  });
});
