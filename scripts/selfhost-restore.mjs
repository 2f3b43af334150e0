#!/usr/bin/env node
// Restores a backup made by selfhost-backup.mjs onto a stack that has not served traffic, in this
// order (docs/selfhost.md):
//   1. put back .env.selfhost
//   2. start only the database and object storage; wait until the database accepts connections
//   3. restore the database (clean, if-exists)
//   4. create the bucket if missing and mirror the backup into it, then verify it
//   5. start everything with `up -d --build` (migrate runs first; workers resubmit documents that
//      were processing at backup time)
//
//   node scripts/selfhost-restore.mjs BACKUP_DIR [--env-path PATH] [--replace-env] [--direct]
//
// --direct restores with pg_restore and the CLI on this machine (steps 2 and 5 are then yours).
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  assertCopy,
  defaultEnvFile,
  envFileName,
  localFiles,
  parseListing,
  problemsOf,
  readEnvFile,
  run,
  SelfhostError,
  script,
  transport,
  verifyCopy,
} from './selfhost-lib.mjs';

async function until(what, fn, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > deadline)
        throw new SelfhostError(`${what} did not happen within ${timeoutMs / 1000} s: ${err.message}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

await script(async () => {
  const { values: opts, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      'env-path': { type: 'string', default: defaultEnvFile },
      'replace-env': { type: 'boolean', default: false },
      direct: { type: 'boolean', default: false },
    },
  });
  const [dir] = positionals;
  if (!dir)
    throw new SelfhostError(
      'usage: node scripts/selfhost-restore.mjs BACKUP_DIR [--env-path PATH] [--direct]',
    );
  const backup = path.resolve(dir);
  const say = (line) => process.stdout.write(`[restore] ${line}\n`);
  const dump = path.join(backup, 'service.dump');
  const savedEnv = path.join(backup, '.env.selfhost');
  const bucketDir = path.join(backup, 'bucket');
  for (const f of [dump, savedEnv, path.join(backup, 'backup.json')]) {
    if (!existsSync(f)) throw new SelfhostError(`${f} is missing: ${backup} is not a complete backup`);
  }
  const manifest = JSON.parse(readFileSync(path.join(backup, 'backup.json'), 'utf8'));
  const files = localFiles(bucketDir);
  const bytes = [...files.values()].reduce((a, b) => a + b, 0);
  if (files.size !== manifest.bucket.objects || bytes !== manifest.bucket.bytes) {
    throw new SelfhostError(
      `${bucketDir} holds ${files.size} objects (${bytes} bytes) but the backup recorded ` +
        `${manifest.bucket.objects} (${manifest.bucket.bytes} bytes): the backup is damaged`,
    );
  }

  // 1. The env file first: the database password and the storage keys come from it.
  const envFile = opts['env-path'];
  if (existsSync(envFile) && readFileSync(envFile, 'utf8') !== readFileSync(savedEnv, 'utf8')) {
    if (!opts['replace-env']) {
      throw new SelfhostError(
        `${envFileName(envFile)} exists and differs from the backup's. Restore onto a stack that has not ` +
          'served traffic: move the file away (or pass --replace-env to keep a copy and replace it)',
      );
    }
    copyFileSync(envFile, `${envFile}.before-restore`);
    say(`kept the replaced env file as ${envFileName(`${envFile}.before-restore`)}`);
  }
  copyFileSync(savedEnv, envFile);
  say(`put back ${envFileName(envFile)}`);
  const values = readEnvFile(envFile);
  const problems = problemsOf(values, envFile);
  if (problems.length) throw new SelfhostError(problems.join('\n'));
  const t = transport(opts.direct ? 'direct' : 'compose', envFile, values);

  // 2. Only the database and the object store.
  if (t.compose) {
    await run([...t.compose, 'up', '-d', 'postgres', 'minio']);
    say('started postgres and minio');
  }
  await until('the database accepting connections', () => t.databaseReady(), 120_000);
  say('the database accepts connections');

  // 3. The database, replacing whatever the dump holds.
  await t.restoreDatabase(dump);
  say(`restored the database from ${path.basename(dump)}`);

  // 4. The bucket, created if missing, made equal to the backup and checked.
  // Retried while the object store is still starting; the import is a mirror, so a retry is harmless.
  await until('the bucket import', () => t.bucket('import', bucketDir), 120_000);
  const inBucket = parseListing(await t.bucket('list'));
  assertCopy('the restored bucket', verifyCopy(files, files, inBucket));
  const extra = [...inBucket.keys()].filter((k) => !files.has(k));
  if (extra.length)
    throw new SelfhostError(`the restored bucket has ${extra.length} objects the backup does not have`);
  say(`bucket: ${files.size} objects (${bytes} bytes) in place and checked`);

  // 5. Everything.
  if (t.compose) {
    await run([...t.compose, 'up', '-d', '--build']);
    say('started the stack; check it with node scripts/selfhost-check.mjs --running');
  } else {
    say('start migrate, the server and the workers now');
  }
});
