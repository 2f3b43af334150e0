import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { makePdf } from './fixtures.js';
import { client } from './http.js';
import { baseEnv, freePort, type RunningProcess, runCli, startCli, waitForHealth } from './processes.js';

/**
 * The stack's process layout for fault tests: `migrate`, one `server` and `workers` worker processes
 * of the built CLI, on the given database and object store, with short leases so that recovery from
 * a fault takes seconds. Each worker's id (from its start line) is known, to tell who did what.
 */
export interface FaultStack {
  url: string;
  key: string;
  env: Record<string, string>;
  server: RunningProcess;
  workers: { process: RunningProcess; id: string }[];
  api: ReturnType<typeof client>;
  /** Runs `fn` with a connection to the service database. */
  db<T>(fn: (c: pg.Client) => Promise<T>): Promise<T>;
  /** Starts one more worker process (after one was killed, say) and waits until it works. */
  addWorker(): Promise<{ process: RunningProcess; id: string }>;
  stop(): Promise<void>;
}

export async function startFaultStack(options: {
  databaseUrl: string;
  objectsEnv: Record<string, string>;
  workers: number;
  env?: Record<string, string>;
}): Promise<FaultStack> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const key = `dsk_${randomBytes(20).toString('hex')}`;
  const env = {
    ...baseEnv(),
    ...options.objectsEnv,
    NODE_ENV: 'production',
    WORKFLOW_NAMESPACE: 'service',
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    SERVER_BIND_ADDRESS: '127.0.0.1',
    SERVER_PORT: String(port),
    SERVICE_BOOTSTRAP_API_KEY: key,
    WORKER_DOC_CONCURRENCY: '1',
    JOB_POLL_INTERVAL_SECONDS: '0.5',
    DOCUMENT_LEASE_SECONDS: '4',
    RECONCILE_INTERVAL_SECONDS: '1',
    LOG_LEVEL: 'info',
    ...options.env,
  };
  const migrated = await runCli(['migrate'], env);
  if (migrated.code !== 0) throw new Error(`migrate failed:\n${migrated.output}`);

  const server = startCli('server', ['server'], env);
  const workerProcesses = Array.from({ length: options.workers }, (_, i) =>
    startCli(`worker-${i + 1}`, ['worker'], env),
  );
  const all = [server, ...workerProcesses];
  const stop = async () => {
    for (const p of all) await p.stop();
  };
  const started = async (p: RunningProcess) => {
    const line = await p.waitFor(/"msg":"worker started"/, 60_000);
    return { process: p, id: (JSON.parse(line) as { workerId: string }).workerId };
  };
  try {
    await waitForHealth(url, 60_000);
    const workers = [];
    for (const p of workerProcesses) workers.push(await started(p));
    return {
      url,
      key,
      env,
      server,
      workers,
      api: client(url, key),
      async db(fn) {
        const c = new pg.Client({ connectionString: options.databaseUrl });
        await c.connect();
        try {
          return await fn(c);
        } finally {
          await c.end();
        }
      },
      async addWorker() {
        const p = startCli(`worker-${all.length}`, ['worker'], env);
        all.push(p);
        const worker = await started(p);
        workers.push(worker);
        return worker;
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Polls `fn` until it returns a value other than undefined, failing with `what` after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  fn: () => Promise<T | undefined>,
  timeoutMs = 60_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * A 400-page PDF, whose parsing takes long enough to catch a worker inside it; page 212 carries
 * `uniqueWord`, which no other page has.
 */
export function longPdf(uniqueWord: string): Buffer {
  const pages = Array.from({ length: 400 }, (_, i) => {
    const extra = i === 211 ? ` The audit code is ${uniqueWord} and it appears only here.` : '';
    return `Page ${i + 1}. Section ${i % 17} covers routine maintenance of pumps, valves and filters in hall ${i % 9}.${extra} `.repeat(
      6,
    );
  });
  return makePdf(pages);
}

/**
 * Resolves with the lease owner once a worker holds `documentId` and is inside the pipeline. The
 * document may wait behind others of its workspace (the fault tests keep uploading), longer on a
 * loaded machine: two minutes before giving up.
 */
export function workerInside(s: FaultStack, documentId: string): Promise<string> {
  return eventually(
    `a worker to be inside document ${documentId}`,
    () =>
      s.db(async (c) => {
        const r = await c.query(
          `SELECT lease_owner FROM documents WHERE id = $1 AND status = 'processing'
             AND stage IN ('parsing', 'chunking', 'indexing')`,
          [documentId],
        );
        return r.rows[0]?.lease_owner as string | undefined;
      }),
    120_000,
    20,
  );
}

/** `url` with its database replaced by `db`. */
export function withDb(url: string, db: string): string {
  const x = new URL(url);
  x.pathname = `/${db}`;
  return x.toString();
}

/** Runs one statement (CREATE/DROP DATABASE) on the administrative connection `url`. */
export async function adminQuery(url: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}
