#!/usr/bin/env node
// `minio server DIR`: serves DIR over the S3 API on :9000 with the root credentials from the environment.
const S3rver = require('/opt/minio/node_modules/s3rver');
const { DUMMY_ACCOUNT } = require('/opt/minio/node_modules/s3rver/lib/models/account.js');

const [command, directory] = process.argv.slice(2);
if (command !== 'server' || !directory) {
  console.error('usage: minio server DIR');
  process.exit(2);
}
const user = process.env.MINIO_ROOT_USER;
const password = process.env.MINIO_ROOT_PASSWORD;
if (!user || !password) {
  console.error('MINIO_ROOT_USER and MINIO_ROOT_PASSWORD are required');
  process.exit(1);
}
DUMMY_ACCOUNT.createKeyPair(user, password);
// Path-style only: with virtual-host buckets on, the host name "minio" would be taken for a bucket.
const server = new S3rver({ address: '0.0.0.0', port: 9000, silent: true, directory, vhostBuckets: false });
server.run().then(
  () => console.log(`S3 API (s3rver stand-in for MinIO) on :9000, data in ${directory}`),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    server.httpServer?.closeAllConnections();
    server.close().finally(() => process.exit(0));
  });
}
