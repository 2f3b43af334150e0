import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readlink, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { baseEnv, freePort, type RunningProcess, startCli, waitForHealth } from './processes.js';
import { createTestDatabases, type TestDatabases } from './service.js';

/** `docslurp server` as its own process (stack mode, files under a temporary DATA_DIR). */
export interface ServerProcess {
  url: string;
  port: number;
  pid: number;
  dataDir: string;
  /** An API key with every scope (SERVICE_BOOTSTRAP_API_KEY). */
  key: string;
  process: RunningProcess;
  /** The environment it runs with (for a worker or a second server on the same data). */
  env: Record<string, string>;
  /** Sockets the process holds open now. */
  sockets(): Promise<number>;
  /** Descriptors the process holds open now, of any kind. */
  descriptors(): Promise<number>;
  stop(): Promise<void>;
}

export interface ServerProcessOptions {
  host?: string;
  /** Serve the database and files of this server instead of new ones (two servers, one stack). */
  share?: ServerProcess;
  /** The process's limit on open files (`ulimit -n`), else the runner's. */
  openFiles?: number;
}

export async function startServerProcess(
  env: Record<string, string> = {},
  options: ServerProcessOptions = {},
): Promise<ServerProcess> {
  const dbs: TestDatabases | undefined = options.share ? undefined : await createTestDatabases();
  const dataDir = options.share?.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'docslurp-server-')));
  const port = await freePort();
  const key = options.share?.key ?? `dsk_${randomBytes(16).toString('hex')}`;
  const host = options.host ?? '127.0.0.1';
  const fullEnv = {
    ...baseEnv(),
    DATA_DIR: dataDir,
    ...(dbs ? { DATABASE_URL: dbs.urls.service, WORKFLOW_DATABASE_URL: dbs.urls.workflow } : {}),
    ...(options.share
      ? {
          DATABASE_URL: options.share.env.DATABASE_URL!,
          WORKFLOW_DATABASE_URL: options.share.env.WORKFLOW_DATABASE_URL!,
        }
      : {}),
    OBJECT_STORE: 'fs',
    SERVER_BIND_ADDRESS: host,
    SERVER_PORT: String(port),
    SERVICE_BOOTSTRAP_API_KEY: key,
    RATE_LIMIT_PER_MINUTE: '0',
    READY_RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: 'warn',
    ...env,
  };
  const child = startCli('server', ['server'], fullEnv, { openFiles: options.openFiles });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(url, 30_000);
  } catch (err) {
    await child.stop();
    throw new Error(`${(err as Error).message}\n${child.output()}`);
  }
  const pid = child.child.pid!;
  const fds = async () => {
    const dir = `/proc/${pid}/fd`;
    const names = await readdir(dir);
    return Promise.all(names.map((n) => readlink(path.join(dir, n)).catch(() => '')));
  };
  return {
    url,
    port,
    pid,
    dataDir,
    key,
    process: child,
    env: fullEnv,
    sockets: async () => (await fds()).filter((l) => l.startsWith('socket:')).length,
    descriptors: async () => (await fds()).length,
    async stop() {
      await child.stop();
      if (dbs) {
        await dbs.drop();
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  };
}

/** `docslurp worker` for the documents of `server`. */
export function startWorkerProcess(server: ServerProcess): RunningProcess {
  return startCli('worker', ['worker'], {
    ...server.env,
    JOB_POLL_INTERVAL_SECONDS: '0.5',
    RECONCILE_INTERVAL_SECONDS: '2',
  });
}
