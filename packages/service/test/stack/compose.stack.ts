// Over 400 lines: one container stack, started once (it costs minutes), carries every check of the self-hosted setup.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser } from '../support/cookie-browser.js';
import { client } from '../support/http.js';
import { startTestProvider } from '../support/oidc-provider.js';
import { freePort } from '../support/processes.js';
import {
  buildStandins,
  composePrefix,
  engineEnv,
  exec,
  mustExec,
  repoRoot,
  requireTools,
  startEngine,
} from './harness.js';

/**
 * The shipped compose file on real containers, from scratch: images built, stack up, upload and
 * search through the published port, two workers sharing the work, the check script, and a backup
 * restored onto a wiped stack. Slow (minutes); `npm run test:stack` runs it, and so does CI.
 */
const project = `dstest${randomBytes(3).toString('hex')}`;
let tmp: string;
let envFile: string;
let prefix: string[];
let stopEngine: () => Promise<void> = async () => {};
let url: string;
let api: ReturnType<typeof client>;

const compose = (args: string[], timeoutMs = 900_000) =>
  exec('docker-compose', [...prefix, ...args], { timeoutMs });
/**
 * Podman reads a container's cgroup after starting it; a container whose process is gone by then
 * (migrate exits at once when nothing is left to migrate) makes `up` fail with "read /proc/N/cgroup:
 * no such process", an engine race and not the stack's fault (a CI run hit it once, starting the full
 * worker). `up` is idempotent: it is run once more, and a second failure fails the test.
 */
const ENGINE_RACE = /read \/proc\/\d+\/cgroup: no such process/;
const mustCompose = async (args: string[], timeoutMs = 900_000) => {
  const run = () => mustExec('docker-compose', [...prefix, ...args], { timeoutMs });
  if (!args.includes('up')) return run();
  try {
    return await run();
  } catch (err) {
    if (!ENGINE_RACE.test(String(err))) throw err;
    console.warn('[stack] podman lost a container that had exited while it started it; running up again');
    return run();
  }
};
const script = (name: string, args: string[]) =>
  exec(process.execPath, [path.join(repoRoot, 'scripts', name), ...args], {
    env: { ...engineEnv, SELFHOST_COMPOSE: ['docker-compose', ...prefix].join(' ') },
    timeoutMs: 900_000,
  });
const psql = async (sql: string) =>
  (
    await mustCompose(['exec', '-T', 'postgres', 'psql', '-U', 'service', '-d', 'service', '-At', '-c', sql])
  ).stdout
    .trim()
    .split('\n')
    .filter(Boolean);

async function containerIds(service: string): Promise<string[]> {
  return (await mustCompose(['ps', '-q', service])).stdout.split(/\s+/).filter(Boolean);
}

async function inspect(id: string, format: string): Promise<string> {
  return (await mustExec('podman', ['inspect', '--format', format, id])).stdout.trim();
}

/** Waits until the server container reports healthy; returns seconds from its start to healthy. */
async function serverHealthy(timeoutMs = 120_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [id] = await containerIds('server');
    if (id && (await inspect(id, '{{.State.Health.Status}}')) === 'healthy') {
      const started = Date.parse(await inspect(id, '{{.State.StartedAt}}'));
      return (Date.now() - started) / 1000;
    }
    if (Date.now() > deadline) {
      const logs = await compose(['logs', '--no-color', '--tail', '40', 'server', 'migrate']);
      throw new Error(`server not healthy within ${timeoutMs} ms:\n${logs.stdout}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function searchSnapshot(workspaceId: string, queries: string[]) {
  const out = [];
  for (const q of queries) {
    const r = await api.post('/v1/search', { workspaceId, q, topK: 3 });
    expect(r.status).toBe(200);
    out.push(
      r.body.results.map(
        (h: { text: string; score: number; citation: { documentId: string; filename: string } }) => ({
          text: h.text,
          score: h.score,
          documentId: h.citation.documentId,
          filename: h.citation.filename,
        }),
      ),
    );
  }
  return out;
}

beforeAll(async () => {
  await requireTools();
  stopEngine = await startEngine();
  await buildStandins();
  tmp = await mkdtemp(path.join(os.tmpdir(), 'docslurp-stack-'));
  envFile = path.join(tmp, '.env.selfhost');
  prefix = composePrefix(project, envFile);
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  const init = await script('selfhost-init.mjs', ['--env-path', envFile]);
  expect(init.code, init.stderr).toBe(0);
  // The host's PostgreSQL and Redis use the usual ports; so may a developer's server.
  const text = await readFile(envFile, 'utf8');
  await writeFile(envFile, text.replace(/^SERVER_PORT=.*$/m, `SERVER_PORT=${port}`));
}, 3_600_000);

afterAll(async () => {
  if (prefix) await compose(['--profile', 'full', '--profile', 'ops', 'down', '-v', '--remove-orphans']);
  await stopEngine();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('compose.selfhost.yml on real containers', () => {
  it('validates with a fresh env file and refuses to run without one', async () => {
    await mustCompose(['config', '-q']);
    const without = await exec('docker-compose', [
      '-p',
      project,
      '-f',
      path.join(repoRoot, 'compose.selfhost.yml'),
      'config',
    ]);
    expect(without.code).not.toBe(0);
    expect(without.stderr).toContain(
      'run node scripts/selfhost-init.mjs first, then use --env-file .env.selfhost',
    );
    const services = (await mustCompose(['config', '--services'])).stdout.split(/\s+/).filter(Boolean);
    expect(services.sort()).toEqual([
      'migrate',
      'minio',
      'ops',
      'postgres',
      'redis',
      'server',
      'worker',
      'worker-full',
    ]);
    const config = (await mustCompose(['config'])).stdout;
    for (const opt of ['seccomp=unconfined', 'apparmor=unconfined', 'systempaths=unconfined'])
      expect(config).toContain(opt);
    expect(config).toContain('condition: service_completed_successfully');
    const volumes = (await mustCompose(['config', '--volumes'])).stdout.split(/\s+/).filter(Boolean);
    expect(volumes.sort()).toEqual(['minio_data', 'postgres_data']);
  });

  it('builds and starts from scratch: migrate succeeds, then the server becomes healthy', async () => {
    await mustCompose(['up', '-d', '--build'], 1_800_000);
    const secondsToHealthy = await serverHealthy();
    console.log(`[stack] server healthy ${secondsToHealthy.toFixed(1)} s after its container started`);
    const [migrate] = await containerIds('migrate');
    expect(await inspect(migrate!, '{{.State.Status}} {{.State.ExitCode}}')).toBe('exited 0');
    const logs = (await mustCompose(['logs', '--no-color', 'migrate'])).stdout;
    expect(logs).toContain('[migrate] applied 0001_init.sql');
    expect(logs).toContain('[migrate] created bucket service-files');
    const env = await readFile(envFile, 'utf8');
    api = client(url, /^SERVICE_BOOTSTRAP_API_KEY=(.*)$/m.exec(env)![1]!);
  });

  it('passes the check script with --running', async () => {
    const r = await script('selfhost-check.mjs', ['--running', '--env-path', envFile]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('every required service is running');
  });

  let workspaceId: string;
  const queries = ['which colour is the emergency exit sign', 'who approves travel expenses'];

  it('uploads, processes and searches through the published server port', async () => {
    const r = await api.upload([
      { name: 'safety.md', content: '# Safety\n\nThe emergency exit sign is green and lit at all times.\n' },
      {
        name: 'travel.txt',
        content: 'Travel expenses are approved by the finance director within five days.',
      },
    ]);
    expect(r.status).toBe(202);
    workspaceId = r.body.workspace.id;
    const done = await api.waitForRun(r.body.run.id, 120_000);
    expect(done.counts).toMatchObject({ total: 2, ready: 2 });
    const [first] = await searchSnapshot(workspaceId, [queries[0]!]);
    expect(first![0]).toMatchObject({ filename: 'safety.md' });
    const ready = await api.get('/ready');
    expect(ready.body.status).toBe('ready');
  });

  it('serves the web console, where the user from .env.selfhost signs in', async () => {
    const page = await fetch(`${url}/`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    const env = await readFile(envFile, 'utf8');
    const signIn = await fetch(`${url}/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        email: /^CONSOLE_ADMIN_EMAIL=(.*)$/m.exec(env)![1],
        password: /^CONSOLE_ADMIN_PASSWORD=(.*)$/m.exec(env)![1],
      }),
    });
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const workspaces = await fetch(`${url}/v1/workspaces`, { headers: { cookie } });
    expect(
      ((await workspaces.json()) as { workspaces: { id: string }[] }).workspaces.map((w) => w.id),
    ).toContain(workspaceId);
  });

  it('signs people in through an identity provider the server trusts by its own certificate authority', async () => {
    // The provider runs here, on an address of this machine the containers reach, over https with a
    // certificate of its own that the server is given as an extra authority (compose.oidc.yml).
    const hostAddress = Object.values(os.networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
    expect(hostAddress, 'an IPv4 address of this machine besides loopback').toBeDefined();
    const caDir = path.join(tmp, 'oidc-ca');
    await mkdir(caDir, { recursive: true });
    await mustExec('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=docslurp-test-idp',
      '-addext',
      `subjectAltName=IP:${hostAddress}`,
      '-keyout',
      path.join(caDir, 'key.pem'),
      '-out',
      path.join(caDir, 'ca.pem'),
    ]);
    // The server runs as the image's user, not root: the authority must be readable by it.
    await chmod(caDir, 0o755);
    await chmod(path.join(caDir, 'ca.pem'), 0o644);
    const cert = await readFile(path.join(caDir, 'ca.pem'), 'utf8');
    const provider = await startTestProvider({
      redirectUri: `${url}/v1/session/oidc/callback`,
      postLogoutRedirectUri: `${url}/`,
      host: hostAddress!,
      tls: { key: await readFile(path.join(caDir, 'key.pem'), 'utf8'), cert },
    });
    const original = await readFile(envFile, 'utf8');
    const withOidc = [
      original.replace(/^SELFHOST_URL=.*$/m, `SELFHOST_URL=${url}`),
      `OIDC_ISSUER=${provider.issuer}`,
      `OIDC_CLIENT_ID=${provider.clientId}`,
      `OIDC_CLIENT_SECRET=${provider.clientSecret}`,
      'OIDC_DISPLAY_NAME=Stack SSO',
      'OIDC_ROLE_GROUPS=editor=writers',
      `DOCSLURP_TEST_CA_DIR=${caDir}`,
    ].join('\n');
    const withOverride = [
      ...prefix,
      '-f',
      path.join(repoRoot, 'packages/service/test/stack/compose.oidc.yml'),
    ];
    try {
      await writeFile(envFile, `${withOidc}\n`);
      await mustExec('docker-compose', [...withOverride, 'up', '-d', '--no-deps', 'server'], {
        timeoutMs: 900_000,
      });
      await serverHealthy();
      const ready = await api.get('/ready');
      expect(ready.body.checks.identityProvider, JSON.stringify(ready.body)).toMatchObject({ ok: true });
      expect((await api.get('/v1/session/options')).body.provider).toEqual({
        name: 'Stack SSO',
        signInUrl: '/v1/session/oidc',
      });
      provider.signInAs('sub-stack', { email: 'sso@example.com', name: 'Sam', groups: ['writers'] });
      const browser = new Browser(cert);
      const done = await browser.follow(
        `${url}/v1/session/oidc?returnTo=${encodeURIComponent('/workspaces')}`,
      );
      expect(done.url).toBe(`${url}/workspaces`);
      expect(done.res?.status).toBe(200);
      const session = (await (await browser.get(`${url}/v1/session`)).json()) as {
        user: { email: string; role: string };
      };
      expect(session.user).toMatchObject({ email: 'sso@example.com', role: 'editor' });
    } finally {
      // Back to the stack the other tests expect: no provider, the server as shipped.
      await writeFile(envFile, original);
      await mustCompose(['up', '-d', '--no-deps', 'server']);
      await serverHealthy();
      await provider.stop();
    }
  });

  it('runs the parser sandbox (bubblewrap) inside the worker container', async () => {
    const sandbox =
      'bwrap --unshare-all --die-with-parent --new-session --cap-drop ALL --clearenv ' +
      '--ro-bind /usr /usr --ro-bind /lib /lib --ro-bind /lib64 /lib64 --ro-bind /bin /bin ' +
      '--tmpfs /tmp --proc /proc --dev /dev /bin/sh -c "echo isolated as $(id -u)"';
    const r = await mustCompose(['exec', '-T', 'worker', 'sh', '-c', sandbox]);
    expect(r.stdout.trim()).toMatch(/^isolated as \d+$/);
  });

  it('runs the server and the worker with jemalloc as their allocator', async () => {
    // glibc's malloc let a process that keeps ingesting grow without end (the Dockerfile says why).
    for (const service of ['server', 'worker']) {
      const r = await mustCompose(['exec', '-T', service, 'sh', '-c', 'grep -c libjemalloc /proc/1/maps']);
      expect(Number(r.stdout.trim()), service).toBeGreaterThan(0);
    }
  });

  it('scales to two workers and spreads a run of several batches over both', async () => {
    await mustCompose(['up', '-d', '--scale', 'worker=2']);
    expect(await containerIds('worker')).toHaveLength(2);
    // A worker claims up to a batch (50 small documents) at once: twelve fit in one claim, so the
    // run must be larger than one batch for the second worker to have anything to take.
    const files = Array.from({ length: 120 }, (_, i) => ({
      name: `note-${i}.txt`,
      content: `Note ${i}: the locker combination for room ${100 + i} is kept by the front desk.`,
    }));
    const r = await api.upload(files, { workspaceId });
    const done = await api.waitForRun(r.body.run.id, 180_000);
    expect(done.counts).toMatchObject({ total: 120, ready: 120 });
    const rows = await psql(
      `SELECT processed_by, count(*) FROM documents WHERE run_id = '${r.body.run.id}' GROUP BY 1 ORDER BY 1`,
    );
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(Number(row.split('|')[1])).toBeGreaterThan(0);
  });

  it('reports a stopped service and a server that does not answer', async () => {
    await mustCompose(['stop', 'worker']);
    const noWorker = await script('selfhost-check.mjs', ['--running', '--env-path', envFile]);
    expect(noWorker.code).toBe(1);
    expect(noWorker.stderr).toContain('required services not running: worker or worker-full (exited');
    await mustCompose(['stop', 'server']);
    const noServer = await script('selfhost-check.mjs', ['--running', '--env-path', envFile]);
    expect(noServer.code).toBe(1);
    expect(noServer.stderr).toContain('server health check failed: fetch failed');
    await mustCompose(['start', 'server']);
    await serverHealthy();
  });

  it('backs up, is wiped, restores, and searches as before; queued work is resubmitted', async () => {
    const before = await searchSnapshot(workspaceId, queries);
    // Workers are stopped (previous test): this upload stays queued, and its job lives only in the
    // job database, which the backup leaves out. It goes to a workspace of its own: once resubmitted
    // it is folded into its workspace's index, which would change the snapshot's BM25 statistics
    // whenever a worker gets to it before the search below.
    const pending = await api.upload([
      { name: 'pending.txt', content: 'The pending memo mentions the word zircon.' },
    ]);
    expect(pending.status).toBe(202);
    expect(await psql(`SELECT status FROM documents WHERE run_id = '${pending.body.run.id}'`)).toEqual([
      'queued',
    ]);

    const backupDir = path.join(tmp, 'backup');
    const backup = await script('selfhost-backup.mjs', ['--env-path', envFile, '--out', backupDir]);
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toMatch(
      /\[backup\] bucket: \d+ objects, \d+ bytes, checked against the bucket's listing/,
    );

    await mustCompose(['down', '-v']);
    await unlink(envFile);
    const restore = await script('selfhost-restore.mjs', [backupDir, '--env-path', envFile]);
    expect(restore.code, `${restore.stdout}\n${restore.stderr}`).toBe(0);
    expect(restore.stdout).toContain('[restore] restored the database');
    await serverHealthy();

    expect(await searchSnapshot(workspaceId, queries)).toEqual(before);
    const resubmitted = await api.waitForRun(pending.body.run.id, 180_000);
    expect(resubmitted.counts).toMatchObject({ total: 1, ready: 1 });
    const found = await api.post('/v1/search', { workspaceId: pending.body.workspace.id, q: 'zircon' });
    expect(found.body.results[0].citation.filename).toBe('pending.txt');
  });

  it('runs the full worker instead: it installs OCR and office tools on first boot, then works', async () => {
    await mustCompose([
      '--profile',
      'full',
      'up',
      '-d',
      '--build',
      '--scale',
      'worker=0',
      '--scale',
      'worker-full=1',
    ]);
    expect(await containerIds('worker')).toHaveLength(0);
    const deadline = Date.now() + 1_200_000;
    let logs = '';
    while (!logs.includes('"msg":"worker started"')) {
      if (Date.now() > deadline) throw new Error(`worker-full did not start:\n${logs.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 5000));
      logs = (await mustCompose(['--profile', 'full', 'logs', '--no-color', 'worker-full'])).stdout;
    }
    expect(logs).toMatch(
      /\[worker-start\] installing deferred OCR and office deps \(tesseract-ocr .*\) from the Debian mirrors/,
    );
    expect(logs).toContain('[worker-start] deferred deps installed');
    const tools = await mustCompose([
      '--profile',
      'full',
      'exec',
      '-T',
      'worker-full',
      'sh',
      '-c',
      'tesseract --version 2>&1 | head -n 1; soffice --version; stat -c %U /proc/1',
    ]);
    expect(tools.stdout).toMatch(/^tesseract \d+\.\d+/m);
    expect(tools.stdout).toMatch(/^LibreOffice \d+\.\d+/m);
    // The worker process (PID 1) runs unprivileged; only the one-time install ran as root.
    expect(tools.stdout.trim().split('\n').pop()).toBe('node');

    const workerId = /"workerId":"([^"]+)"/.exec(logs)![1]!;
    const r = await api.upload([{ name: 'full.txt', content: 'Processed by the full worker: basalt.' }], {
      workspaceId,
    });
    expect((await api.waitForRun(r.body.run.id, 120_000)).counts.ready).toBe(1);
    expect(await psql(`SELECT processed_by FROM documents WHERE run_id = '${r.body.run.id}'`)).toEqual([
      workerId,
    ]);
  });
});
