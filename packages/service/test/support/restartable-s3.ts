import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { DUMMY_ACCOUNT } from 's3rver/lib/models/account.js';

/**
 * The loopback S3 server of test/support/s3.ts, but one that can go away and come back on the same
 * port with the same keys and contents, as an object store does when it restarts.
 */
export interface RestartableS3 {
  env: Record<string, string>;
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

export async function startRestartableS3(bucket = 'service-files'): Promise<RestartableS3> {
  const accessKeyId = `test${randomBytes(6).toString('hex')}`;
  const secretAccessKey = randomBytes(20).toString('hex');
  DUMMY_ACCOUNT.createKeyPair(accessKeyId, secretAccessKey);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'docslurp-s3-'));
  let port = 0;
  let server: S3rver | undefined;

  const start = async () => {
    const s = new S3rver({
      address: '127.0.0.1',
      port,
      silent: !process.env.TEST_S3_LOG,
      directory: dir,
      configureBuckets: [{ name: bucket }],
    });
    port = (await s.run()).port;
    server = s;
  };
  const stop = async () => {
    const s = server;
    server = undefined;
    if (!s) return;
    // Open keep-alive connections would keep it answering; an outage drops them too.
    s.httpServer?.closeAllConnections();
    await s.close();
  };

  await start();
  return {
    env: {
      OBJECT_STORE: 's3',
      S3_ENDPOINT: `http://127.0.0.1:${port}`,
      S3_BUCKET: bucket,
      S3_REGION: 'us-east-1',
      S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: accessKeyId,
      AWS_SECRET_ACCESS_KEY: secretAccessKey,
    },
    stop,
    start,
    async destroy() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
