import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { hasCommand, skipWithout } from '../support/tools.js';

const repo = path.resolve(packageRoot(), '..', '..');
const run = async (script: string, args: string[], env: Record<string, string> = {}) => {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [path.join(repo, 'scripts', script), ...args],
      {
        env: { PATH: process.env.PATH ?? '', ...env },
      },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'docslurp-selfhost-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const envLine = (text: string, key: string) => new RegExp(`^${key}=(.*)$`, 'm').exec(text)?.[1];

describe('selfhost-init.mjs', () => {
  it('writes every value as fresh hex keys, readable only by the owner', async () => {
    const file = path.join(dir, 'a.env');
    const r = await run('selfhost-init.mjs', ['--env-path', file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Wrote');
    const text = await readFile(file, 'utf8');
    for (const key of [
      'DB_PASSWORD',
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'METRICS_SECRET',
      'ENCRYPTION_KEY',
    ]) {
      expect(envLine(text, key), key).toMatch(/^[0-9a-f]{20,}$/);
    }
    expect(envLine(text, 'SERVICE_BOOTSTRAP_API_KEY')).toMatch(/^dsk_[0-9a-f]{40}$/);
    // The service reads ENCRYPTION_KEY as 32 bytes in hex, and creates the console user from these two.
    expect(envLine(text, 'ENCRYPTION_KEY')).toMatch(/^[0-9a-f]{64}$/);
    expect(envLine(text, 'CONSOLE_ADMIN_EMAIL')).toBe('admin@docslurp.local');
    expect(envLine(text, 'CONSOLE_ADMIN_PASSWORD')).toMatch(/^[0-9a-f]{24}$/);
    expect(envLine(text, 'DATABASE_URL')).toBe(
      `postgres://service:${envLine(text, 'DB_PASSWORD')}@postgres:5432/service`,
    );
    expect(envLine(text, 'SELFHOST_URL')).toBe('http://localhost:8080');
    expect(envLine(text, 'WORKER_DOC_CONCURRENCY')).toBe('1');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const other = path.join(dir, 'b.env');
    await run('selfhost-init.mjs', ['--env-path', other]);
    expect(envLine(await readFile(other, 'utf8'), 'DB_PASSWORD')).not.toBe(envLine(text, 'DB_PASSWORD'));
  });

  it('never overwrites an existing file, and says so', async () => {
    const file = path.join(dir, 'keep.env');
    await run('selfhost-init.mjs', ['--env-path', file]);
    const before = await readFile(file, 'utf8');
    const r = await run('selfhost-init.mjs', ['--env-path', file, '--url', 'https://other.example.com']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('already exists; keeping its credentials (init never overwrites it)');
    expect(await readFile(file, 'utf8')).toBe(before);
  });
});

describe('selfhost-check.mjs', () => {
  const check = (file: string) => run('selfhost-check.mjs', ['--env-path', file]);
  const fresh = async (name: string, edit: (text: string) => string = (t) => t) => {
    const file = path.join(dir, name);
    await run('selfhost-init.mjs', ['--env-path', file]);
    await writeFile(file, edit(await readFile(file, 'utf8')));
    return file;
  };

  it('accepts a freshly initialised file', async () => {
    const r = await check(await fresh('ok.env'));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('has every required value');
  });

  const noCompose = skipWithout(
    hasCommand('docker-compose') ||
      spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' }).status === 0
      ? undefined
      : 'neither docker-compose nor "docker compose" found (apt-get install docker-compose)',
    'selfhost-check against an unreachable container engine',
  );
  it.skipIf(noCompose)(
    "says when the container engine is not reachable, instead of the compose tool's traceback",
    async () => {
      // docker-compose (installed by .ci/run) against a socket nothing listens on.
      const socket = `unix://${path.join(dir, 'no-engine.sock')}`;
      const r = await run('selfhost-check.mjs', ['--running', '--env-path', await fresh('engine.env')], {
        DOCKER_HOST: socket,
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`the container engine is not reachable (DOCKER_HOST=${socket})`);
      expect(r.stderr).toContain('"docker info"');
      expect(r.stderr).not.toMatch(/Traceback|File "|DockerException/);
    },
  );

  it('says the file is missing and how to create it', async () => {
    const r = await check(path.join(dir, 'nope.env'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('is missing: run node scripts/selfhost-init.mjs from the repository root');
  });

  it('lists the required values that are blank', async () => {
    const file = await fresh('blank.env', (t) =>
      t.replace(/^DB_PASSWORD=.*$/m, 'DB_PASSWORD=').replace(/^METRICS_SECRET=.*$/m, ''),
    );
    const r = await check(file);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /missing self-host values in .*blank\.env: DB_PASSWORD, METRICS_SECRET\. Fill them in, or regenerate/,
    );
  });

  it('requires HTTPS for a non-local SELFHOST_URL, and allows plain http on this machine', async () => {
    const remote = await fresh('http.env', (t) =>
      t.replace(/^SELFHOST_URL=.*$/m, 'SELFHOST_URL=http://docs.example.com'),
    );
    const r = await check(remote);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'SELFHOST_URL must use HTTPS for a non-local host (got http://docs.example.com): put a TLS proxy in front',
    );
    for (const local of ['http://127.0.0.1:8080', 'http://localhost', 'http://[::1]:8080']) {
      const f = await fresh(`local-${local.length}.env`, (t) =>
        t.replace(/^SELFHOST_URL=.*$/m, `SELFHOST_URL=${local}`),
      );
      expect((await check(f)).code, local).toBe(0);
    }
    const tls = await fresh('https.env', (t) =>
      t.replace(/^SELFHOST_URL=.*$/m, 'SELFHOST_URL=https://docs.example.com'),
    );
    expect((await check(tls)).code).toBe(0);
  });

  it('explains a password with reserved characters that is not URL-encoded, and a password mismatch', async () => {
    const raw = 'p@ss/w#rd';
    const unencoded = await fresh('raw.env', (t) =>
      t
        .replace(/^DB_PASSWORD=.*$/m, `DB_PASSWORD=${raw}`)
        .replace(/^DATABASE_URL=.*$/m, `DATABASE_URL=postgres://service:${raw}@postgres:5432/service`),
    );
    const r = await check(unencoded);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('must be URL-encoded');
    const encoded = await fresh('encoded.env', (t) =>
      t
        .replace(/^DB_PASSWORD=.*$/m, `DB_PASSWORD=${raw}`)
        .replace(
          /^DATABASE_URL=.*$/m,
          `DATABASE_URL=postgres://service:${encodeURIComponent(raw)}@postgres:5432/service`,
        ),
    );
    expect((await check(encoded)).code).toBe(0);
    const mismatch = await fresh('mismatch.env', (t) =>
      t.replace(/^DB_PASSWORD=.*$/m, 'DB_PASSWORD=changed-only-here'),
    );
    const m = await check(mismatch);
    expect(m.code).toBe(1);
    expect(m.stderr).toContain('the password in DATABASE_URL differs from DB_PASSWORD');
  });
});

describe('compose commands', () => {
  it('run without the shell variables the compose file substitutes, which compose would prefer to .env.selfhost', async () => {
    const code = `import('${path.join(repo, 'scripts', 'selfhost-lib.mjs')}').then((m) => {
      process.stdout.write(JSON.stringify(m.composeEnv({ DATABASE_URL: 'postgres://elsewhere/db', METRICS_SECRET: 's', PATH: '/bin', HOME: '/root' })));
    })`;
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', code]);
    expect(JSON.parse(stdout)).toEqual({ PATH: '/bin', HOME: '/root' });
  });
});

describe('backup verification', () => {
  // The rule behind it: a copy tool can report success without writing anything.
  const verify = async (
    before: [string, number][],
    after: [string, number][],
    copied: [string, number][],
  ) => {
    const code = `import('${path.join(repo, 'scripts', 'selfhost-lib.mjs')}').then((m) => {
      const r = m.verifyCopy(new Map(${JSON.stringify(before)}), new Map(${JSON.stringify(after)}), new Map(${JSON.stringify(copied)}));
      process.stdout.write(JSON.stringify(r));
    })`;
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', code]);
    return JSON.parse(stdout) as { missing: string[]; wrongSize: string[] };
  };
  const listing: [string, number][] = [
    ['raw/doc_1', 10],
    ['lancedb/ws.lance/_versions/1.manifest', 300],
  ];

  it('finds a copy that wrote nothing, or wrote a truncated file', async () => {
    expect((await verify(listing, listing, [])).missing).toEqual(listing.map(([k]) => k));
    expect(
      (
        await verify(listing, listing, [
          ['raw/doc_1', 10],
          ['lancedb/ws.lance/_versions/1.manifest', 12],
        ])
      ).wrongSize,
    ).toHaveLength(1);
  });

  it('accepts a complete copy, and objects deleted from the source during the copy', async () => {
    expect(await verify(listing, listing, listing)).toEqual({ missing: [], wrongSize: [] });
    expect(await verify(listing, [listing[0]!], [listing[0]!])).toEqual({ missing: [], wrongSize: [] });
  });
});
