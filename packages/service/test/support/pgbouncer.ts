import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort, type RunningProcess, spawnProcess } from './processes.js';

/** Debian's pgbouncer (package `pgbouncer`, installed by .ci/run), wherever PATH or Debian puts it. */
export function pgbouncerBinary(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/local/sbin'];
  return dirs.map((d) => path.join(d, 'pgbouncer')).find((p) => p && existsSync(p));
}

export interface TestPgBouncer {
  /** `url` with its host and port replaced by the pooler's. */
  through(url: string): string;
  /** The pooler's admin console (SHOW CLIENTS, SHOW STATS…). */
  adminUrl: string;
  process: RunningProcess;
  close(): Promise<void>;
}

/**
 * A real PgBouncer in transaction pooling mode in front of `serverUrl`'s PostgreSQL (every database,
 * trust authentication for its clients, the URL's password towards the server), on a free loopback port, logging to its
 * output. As root it drops to the `postgres` user, since PgBouncer refuses to run as root.
 */
export async function startPgBouncer(serverUrl: string): Promise<TestPgBouncer> {
  const binary = pgbouncerBinary();
  if (!binary) throw new Error('pgbouncer is not installed (apt-get install pgbouncer)');
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username || 'postgres');
  // The embedded PostgreSQL (npm test without DATABASE_URL) asks for a password: the pooler logs in
  // to the server with it, while its clients keep trust on loopback.
  const password = decodeURIComponent(server.password);
  const port = await freePort();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'docslurp-pgbouncer-'));
  await chmod(dir, 0o755);
  const users = path.join(dir, 'users.txt');
  await writeFile(users, `"${user}" "${password}"\n`, { mode: 0o644 });
  const ini = path.join(dir, 'pgbouncer.ini');
  await writeFile(
    ini,
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432}${password ? ` password=${password}` : ''}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${users}`,
      'pool_mode = transaction',
      'max_client_conn = 400',
      'default_pool_size = 20',
      `admin_users = ${user}`,
      // What node-postgres and pg-boss send at connection start besides the database and user.
      'ignore_startup_parameters = extra_float_digits,options',
      ...(process.getuid?.() === 0 ? ['user = postgres'] : []),
    ].join('\n'),
    { mode: 0o644 },
  );
  const proc = spawnProcess('pgbouncer', binary, [ini], { PATH: process.env.PATH ?? '' });
  await proc.waitFor(/listening on 127\.0\.0\.1:/, 10_000);
  const through = (url: string) => {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(port);
    return u.toString();
  };
  return {
    through,
    adminUrl: through(new URL('/pgbouncer', serverUrl).toString()),
    process: proc,
    async close() {
      await proc.stop(5000);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
