#!/usr/bin/env node
// Backs up the three things that hold a self-hosted stack's data (docs/selfhost.md):
//   service.dump   the service database, in PostgreSQL's custom format (the job database is not
//                  included: documents processing at backup time are resubmitted after a restore)
//   bucket/        a copy of the whole bucket, lancedb/ included, verified against a listing
//   .env.selfhost  the keys that read the rest
//
//   node scripts/selfhost-backup.mjs [--out DIR] [--env-path PATH] [--direct]
//
// By default the commands run inside the compose stack (SELFHOST_COMPOSE overrides the compose
// command). --direct runs pg_dump and the bucket copy on this machine with the env file's settings,
// for a service whose database and object store are reachable from here.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
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
  repoRoot,
  SelfhostError,
  script,
  transport,
  verifyCopy,
} from './selfhost-lib.mjs';

await script(async () => {
  const { values: opts } = parseArgs({
    options: {
      out: { type: 'string' },
      'env-path': { type: 'string', default: defaultEnvFile },
      direct: { type: 'boolean', default: false },
    },
  });
  const envFile = opts['env-path'];
  const values = readEnvFile(envFile);
  const problems = problemsOf(values, envFile);
  if (problems.length) throw new SelfhostError(problems.join('\n'));
  const t = transport(opts.direct ? 'direct' : 'compose', envFile, values);
  await t.checkDumpVersion();
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const out = path.resolve(opts.out ?? path.join(repoRoot, 'backups', stamp));
  if (existsSync(out) && readdirSync(out).length)
    throw new SelfhostError(`${out} is not empty: choose a new folder`);
  mkdirSync(out, { recursive: true, mode: 0o700 });
  const say = (line) => process.stdout.write(`[backup] ${line}\n`);

  say(`writing to ${out}`);
  const dump = path.join(out, 'service.dump');
  await t.dumpDatabase(dump);
  const toc = await t.listDump(dump);
  const tables = toc.split('\n').filter((l) => / TABLE DATA /.test(l)).length;
  if (tables === 0) throw new SelfhostError(`the database dump ${dump} holds no table data`);
  say(`database: service.dump, ${statSync(dump).size} bytes, ${tables} tables`);

  const before = parseListing(await t.bucket('list'));
  await t.bucket('export', path.join(out, 'bucket'));
  const after = parseListing(await t.bucket('list'));
  const local = localFiles(path.join(out, 'bucket'));
  assertCopy(
    `the bucket copy in ${out}/bucket (do not rely on this backup)`,
    verifyCopy(before, after, local),
  );
  const bytes = [...local.values()].reduce((a, b) => a + b, 0);
  say(`bucket: ${local.size} objects, ${bytes} bytes, checked against the bucket's listing`);

  // The env file holds the encryption keys: owner-only, like the original (copyFile would follow the umask).
  writeFileSync(path.join(out, '.env.selfhost'), readFileSync(envFile), { mode: 0o600 });
  say(`env file: copied ${envFileName(envFile)}`);
  writeFileSync(
    path.join(out, 'backup.json'),
    `${JSON.stringify(
      {
        createdAt: new Date().toISOString(),
        host: os.hostname(),
        database: { file: 'service.dump', format: 'custom', tables },
        bucket: { folder: 'bucket', objects: local.size, bytes },
        envFile: '.env.selfhost',
      },
      null,
      2,
    )}\n`,
    { mode: 0o600 },
  );
  say(`done: restore with node scripts/selfhost-restore.mjs ${path.relative(process.cwd(), out) || out}`);
});
