import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { makePdf } from '../support/fixtures.js';
import { client } from '../support/http.js';
import {
  embeddedDataDir,
  runCli,
  type ServeProcess,
  spawnServe,
  stopLeftoverPostgres,
} from '../support/spawn.js';
import { missingFile, skipWithout } from '../support/tools.js';

const repoRoot = path.resolve(packageRoot(), '..', '..');

describe('embedded mode (docslurp serve)', () => {
  let dataDir: string;
  let serve: ServeProcess;

  beforeAll(async () => {
    dataDir = await embeddedDataDir();
    serve = await spawnServe(dataDir);
  });
  afterAll(async () => {
    await serve?.stop();
    stopLeftoverPostgres(dataDir);
    await rm(dataDir, { recursive: true, force: true });
  });

  it('starts with an embedded PostgreSQL and prints the URL and how to get a key', async () => {
    await serve.waitForOutput(/npm run keys/);
    expect(serve.output()).toContain(`DocSlurp is running at ${serve.url}`);
    expect(serve.output()).toContain('npm run keys -- create --scopes ingest,search,artifacts');
    console.info(`embedded serve: healthy ${serve.startMs} ms after spawn (cold data folder)`);
  });

  const noJemalloc = skipWithout(
    missingFile(
      `/usr/lib/${process.arch === 'arm64' ? 'aarch64' : 'x86_64'}-linux-gnu/libjemalloc.so.2`,
      'libjemalloc2',
    ),
    'npm start on jemalloc',
  );
  it.skipIf(noJemalloc)(
    'runs on jemalloc as npm start does when it is installed (CI installs it), PostgreSQL on its own',
    async () => {
      const maps = (pid: number) => readFileSync(`/proc/${pid}/maps`, 'utf8');
      expect(maps(serve.child.pid!)).toMatch(/libjemalloc/);
      const postgresPid = Number(
        readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0],
      );
      expect(maps(postgresPid)).not.toMatch(/libjemalloc/);
      const start = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).scripts
        .start as string;
      expect(start).toContain('sh scripts/with-jemalloc.sh node packages/service/dist/cli.js serve');
    },
  );

  it('creates, lists and revokes keys from the CLI while the server runs', async () => {
    const created = await runCli(dataDir, [
      'keys',
      'create',
      '--scopes',
      'ingest,search',
      '--name',
      'ci',
      '--json',
    ]);
    const { key, id } = JSON.parse(created.stdout) as { key: string; id: string };
    expect(key).toMatch(/^dsk_/);
    const api = client(serve.url, key);
    const up = await api.upload([{ name: 'hello.txt', content: 'Hello from the embedded mode.' }]);
    expect(up.status).toBe(202);
    await api.waitForRun(up.body.run.id);
    expect(
      (await api.post('/v1/search', { workspaceId: up.body.workspace.id, q: 'embedded mode' })).body.results,
    ).toHaveLength(1);

    const listed = await runCli(dataDir, ['keys', 'list']);
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).not.toContain(key);

    const revoked = await runCli(dataDir, ['keys', 'revoke', id]);
    expect(revoked.stdout).toContain(`Revoked ${id}`);
    expect((await api.get(`/v1/runs/${up.body.run.id}`)).status).toBe(401);
  });

  it('answers /health within a second throughout the processing of a 30 MB text', async () => {
    // What froze the API for minutes (issue 44): plain prose, one line of Chinese without a full
    // stop, one 6 MB "word" and mixed scripts, in one text file. Parsing runs in the sandbox; its
    // chunking and index rows must not run on the event loop that answers /health.
    const mb = 2 ** 20;
    const prose = 'The quick brown fox jumps over the lazy dog near the river bank. ';
    const text = [
      prose.repeat((12 * mb) / prose.length),
      '中文文本测试没有换行的很长的一行'.repeat((4 * mb) / 16),
      'a'.repeat(6 * mb),
      'word 中文 слово كلمة 日本語 '.repeat((8 * mb) / 23),
    ].join('\n\n');
    expect(Buffer.byteLength(text)).toBeGreaterThan(30 * mb);
    const { stdout } = await runCli(dataDir, ['keys', 'create', '--scopes', 'ingest,artifacts', '--json']);
    const api = client(serve.url, (JSON.parse(stdout) as { key: string }).key);

    // Probed from a process of its own: this one's event loop is busy with the upload's body.
    const probe = spawn(
      process.execPath,
      [
        '-e',
        `let slowest = 0, probes = 0, done = false;
         process.stdin.on('end', () => (done = true)).resume();
         (async () => {
           while (!done) {
             const t0 = performance.now();
             const res = await fetch(process.argv[1] + '/health', { signal: AbortSignal.timeout(30000) });
             if (res.status !== 200) throw new Error('health ' + res.status);
             slowest = Math.max(slowest, performance.now() - t0);
             probes++;
             await new Promise((r) => setTimeout(r, 50));
           }
           process.stdout.write(JSON.stringify({ slowest, probes }));
         })();`,
        serve.url,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    let report = '';
    probe.stdout.on('data', (d) => (report += d));
    const probed = new Promise((resolve) => probe.on('exit', resolve));
    try {
      const up = await api.upload([{ name: 'large.txt', content: Buffer.from(text) }]);
      expect(up.status).toBe(202);
      const run = await api.waitForRun(up.body.run.id, 240_000);
      expect(run.status).toBe('completed');
      const doc = await api.get(`/v1/documents/${up.body.documents[0].id}`);
      expect(doc.body).toMatchObject({ status: 'ready' });
      expect(doc.body.chunkCount).toBeGreaterThan(10_000);
    } finally {
      probe.stdin.end();
      expect(await probed).toBe(0);
    }
    const { slowest, probes } = JSON.parse(report) as { slowest: number; probes: number };
    console.info(`30 MB text: ${probes} probes of /health, the slowest ${Math.round(slowest)} ms`);
    expect(slowest).toBeLessThan(1000);
  }, 300_000);

  it('explains that server and worker alone need DATABASE_URL', async () => {
    const err = await runCli(dataDir, ['server']).catch((e: { code: number; stderr: string }) => e);
    expect((err as { code: number }).code).toBe(1);
    expect((err as { stderr: string }).stderr).toMatch(
      /"server" runs as a separate process of the stack and needs DATABASE_URL/,
    );
  });

  it('creates a console user from the CLI, who can then sign in', async () => {
    const out = await runCli(dataDir, [
      'users',
      'create',
      '--email',
      'cli@example.com',
      '--password',
      'a long enough password',
    ]);
    // Without --role the user owns the account, as every console user did before roles.
    expect(out.stdout).toMatch(/Created user cli@example\.com \(usr_\w+, owner\)/);
    const res = await fetch(`${serve.url}/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'cli@example.com', password: 'a long enough password' }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { user: { role: string } }).user.role).toBe('owner');
    await runCli(dataDir, ['groups', 'create', 'Readers']);
    const reader = await runCli(dataDir, [
      'users',
      'create',
      '--email',
      'reader@example.com',
      '--password',
      'a long enough password',
      '--role',
      'reader',
      '--group',
      'Readers',
    ]);
    expect(reader.stdout).toMatch(/\(usr_\w+, reader\)/);
    const signedIn = await fetch(`${serve.url}/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'reader@example.com', password: 'a long enough password' }),
    });
    expect(((await signedIn.json()) as { user: unknown }).user).toMatchObject({
      role: 'reader',
      groups: [{ name: 'Readers' }],
    });
    const listed = await runCli(dataDir, ['groups', 'list']);
    expect(listed.stdout).toMatch(/grp_\w+ {2}Readers {2}1 members/);
    // What the commands changed is in the account's audit log, as the same changes through the API.
    const cookie = res.headers.getSetCookie()[0]!.split(';')[0]!;
    const logged = (await (await fetch(`${serve.url}/v1/audit`, { headers: { cookie } })).json()) as {
      events: { action: string; actor: string; details: Record<string, unknown> }[];
    };
    // The keys made and revoked by the test before are the command line's too.
    const byCli = logged.events.filter((e) => e.actor.startsWith('command line ('));
    expect(
      byCli
        .map((e) => e.action)
        .filter((a) => !a.startsWith('key.'))
        .sort(),
    ).toEqual(['group.created', 'user.created', 'user.created']);
    expect(byCli.map((e) => e.action)).toEqual(expect.arrayContaining(['key.created', 'key.revoked']));
    expect(byCli.find((e) => e.details.email === 'reader@example.com')?.details).toMatchObject({
      role: 'reader',
    });
    const short = await runCli(dataDir, [
      'users',
      'create',
      '--email',
      'x@example.com',
      '--password',
      'short',
    ]).catch((e: { code: number; stderr: string }) => e);
    expect((short as { stderr: string }).stderr).toContain('at least 10 characters');
  });

  it('refuses a second server on the same data folder', async () => {
    await expect(spawnServe(dataDir)).rejects.toThrow(/already running with DATA_DIR/);
  });

  it('ensures SERVICE_BOOTSTRAP_API_KEY exists with every scope', async () => {
    const other = await embeddedDataDir();
    const bootstrapKey = 'bootstrap-key-0123456789abcdef';
    const s = await spawnServe(other, { SERVICE_BOOTSTRAP_API_KEY: bootstrapKey });
    try {
      const api = client(s.url, bootstrapKey);
      const up = await api.upload([{ name: 'b.txt', content: 'bootstrap' }]);
      expect(up.status).toBe(202);
      expect((await api.get(`/v1/documents/${up.body.documents[0].id}`)).status).toBe(200);
      expect(
        (await api.post('/v1/search', { workspaceId: up.body.workspace.id, q: 'bootstrap' })).status,
      ).toBe(200);
    } finally {
      await s.stop();
      await rm(other, { recursive: true, force: true });
    }
  });
});

describe('recovery after kill -9', () => {
  let dataDir: string;
  let serve: ServeProcess | undefined;

  beforeAll(async () => {
    dataDir = await embeddedDataDir();
  });
  afterAll(async () => {
    await serve?.stop();
    stopLeftoverPostgres(dataDir);
    await rm(dataDir, { recursive: true, force: true });
  });

  it('completes the run on restart with every document indexed exactly once', async () => {
    const key = 'kill-nine-test-key-0123456789';
    // Small batches, so that documents finish a few at a time and the kill lands between them.
    serve = await spawnServe(dataDir, { SERVICE_BOOTSTRAP_API_KEY: key, WORKER_BATCH_DOCUMENTS: '4' });
    const api = client(serve.url, key);
    const files = Array.from({ length: 40 }, (_, i) => ({
      name: `report-${i}.pdf`,
      content: makePdf(
        Array.from(
          { length: 6 },
          (_, p) => `Report ${i} page ${p + 1}. ${'Quarterly figures and commentary. '.repeat(40)}`,
        ),
      ),
      type: 'application/pdf',
    }));
    const up = await api.upload(files);
    const runId = up.body.run.id;
    const workspaceId = up.body.workspace.id;

    // Kill the whole service while some documents are done and others are still waiting.
    let progress: { counts: { ready: number; queued: number; processing: number } } | undefined;
    for (let i = 0; i < 600; i++) {
      progress = (await api.get(`/v1/runs/${runId}/progress`)).body;
      if (progress!.counts.ready >= 3) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    serve.child.kill('SIGKILL');
    await new Promise((r) => serve!.child.once('exit', r));
    const atKill = progress!.counts;
    expect(atKill.ready).toBeGreaterThanOrEqual(3);
    expect(atKill.queued + atKill.processing).toBeGreaterThan(5);

    // Same data folder: the PostgreSQL orphaned by the kill is stopped and restarted cleanly.
    serve = await spawnServe(dataDir, { SERVICE_BOOTSTRAP_API_KEY: key });
    const api2 = client(serve.url, key);
    const done = await api2.waitForRun(runId, 120_000);
    expect(done.status).toBe('completed');
    expect(done.counts).toMatchObject({ total: 40, ready: 40, failed: 0 });

    const docs = (await api2.get(`/v1/workspaces/${workspaceId}/documents`)).body.documents as {
      id: string;
      chunkCount: number;
    }[];
    const db = await lancedb.connect(path.join(dataDir, 'index'));
    const table = await db.openTable(workspaceId);
    let expected = 0;
    for (const d of docs) {
      expect(d.chunkCount).toBeGreaterThan(0);
      expect(await table.countRows(`document_id = '${d.id}'`)).toBe(d.chunkCount);
      expected += d.chunkCount;
    }
    expect(await table.countRows()).toBe(expected);
    table.close();
    db.close();
  });
});

// Root's home is mode 0700: a clone there is out of reach of the postgres user PostgreSQL runs as.
describe.skipIf(process.getuid?.() !== 0)('as root, a DATA_DIR the postgres user cannot enter', () => {
  let parent: string;
  let serve: ServeProcess | undefined;
  let elsewhere = '';

  afterAll(async () => {
    await serve?.stop();
    if (elsewhere) {
      stopLeftoverPostgres(elsewhere);
      await rm(elsewhere, { recursive: true, force: true });
    }
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  it('keeps the database where that user can reach it, says where, and finds it again on restart', async () => {
    parent = await mkdtemp(path.join(os.tmpdir(), 'docslurp-private-'));
    expect((await stat(parent)).mode & 0o777).toBe(0o700);
    const dataDir = path.join(parent, 'data');
    const key = 'private-folder-test-key-0123456789';
    serve = await spawnServe(dataDir, { SERVICE_BOOTSTRAP_API_KEY: key });
    const note = await readFile(path.join(dataDir, 'postgres-elsewhere.txt'), 'utf8');
    elsewhere = /is in (\/var\/lib\/docslurp\/data-[0-9a-f]{16}):/.exec(note)?.[1] ?? '';
    expect(elsewhere, note).not.toBe('');
    expect(existsSync(path.join(elsewhere, 'postgres', 'PG_VERSION'))).toBe(true);
    const up = await client(serve.url, key).upload([
      { name: 'a.md', content: '# A\n\nThe kept word is marigold.\n' },
    ]);
    expect(up.status).toBe(202);
    await serve.stop();

    serve = await spawnServe(dataDir, { SERVICE_BOOTSTRAP_API_KEY: key });
    const docs = await client(serve.url, key).get(`/v1/workspaces/${up.body.workspace.id}/documents`);
    expect(docs.body.documents.map((d: { filename: string }) => d.filename)).toEqual(['a.md']);
    // Two cold starts of a cluster, each of which the service waits up to 120 s for on a busy machine.
  }, 320_000);
});
