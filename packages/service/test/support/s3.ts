import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { DUMMY_ACCOUNT } from 's3rver/lib/models/account.js';

export interface TestS3 {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Environment variables that point the service at this server. */
  env: Record<string, string>;
  dir: string;
  /** Every request the server received so far, in order (method and path with query). */
  requests: { method: string; url: string }[];
  close(): Promise<void>;
}

/**
 * A real S3 API server on loopback: s3rver with this repository's patches (patches/), which make
 * delimiter listings and `If-None-Match: *` behave as S3 does. Keys are generated per server and
 * signatures are checked, so wrong credentials fail as they would against MinIO.
 */
export async function startS3Server(
  options: {
    bucket?: string;
    createBucket?: boolean;
    /** Behave as a store that ignores `If-None-Match: *` (overwrites instead of answering 412). */
    ignoreConditionalWrites?: boolean;
  } = {},
): Promise<TestS3> {
  const bucket = options.bucket ?? 'service-files';
  const accessKeyId = `test${randomBytes(6).toString('hex')}`;
  const secretAccessKey = randomBytes(20).toString('hex');
  DUMMY_ACCOUNT.createKeyPair(accessKeyId, secretAccessKey);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'docslurp-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: !process.env.TEST_S3_LOG,
    directory: dir,
    configureBuckets: options.createBucket === false ? [] : [{ name: bucket }],
    ignoreConditionalWrites: options.ignoreConditionalWrites ?? false,
  });
  const { port } = await server.run();
  const requests: TestS3['requests'] = [];
  server.httpServer?.prependListener('request', (req) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '' });
  });
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    accessKeyId,
    secretAccessKey,
    dir,
    requests,
    env: {
      OBJECT_STORE: 's3',
      S3_ENDPOINT: endpoint,
      S3_BUCKET: bucket,
      S3_REGION: 'us-east-1',
      S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: accessKeyId,
      AWS_SECRET_ACCESS_KEY: secretAccessKey,
    },
    async close() {
      // LanceDB keeps pooled connections open; close() alone would wait for them to time out.
      server.httpServer?.closeAllConnections();
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
