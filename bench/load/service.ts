/**
 * The service as a child process (`docslurp serve`: server and worker in one process) against named
 * databases in the shared PostgreSQL, so that a built workspace can be kept and cloned between runs.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { repoRoot } from '../lib/data.js';

export const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function databaseUrl(db: string): string {
  const u = new URL(adminUrl);
  u.pathname = `/${db}`;
  return u.toString();
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

const quoted = (db: string) => {
  if (!/^[a-z0-9_]+$/.test(db)) throw new Error(`unexpected database name ${db}`);
  return `"${db}"`;
};

/** The service keeps its workflow tables in `<db>_workflow`: both belong to one deployment. */
const pair = (db: string) => [db, `${db}_workflow`];

export async function databaseExists(db: string): Promise<boolean> {
  return admin(
    async (c) => (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [db])).rowCount === 1,
  );
}

/** Creates the pair of databases of a deployment, empty or as copies of another deployment's. */
export async function createDatabases(db: string, template?: string): Promise<void> {
  await admin(async (c) => {
    for (const [i, name] of pair(db).entries()) {
      const from = template ? ` TEMPLATE ${quoted(pair(template)[i]!)}` : '';
      await c.query(`CREATE DATABASE ${quoted(name)}${from}`);
    }
  });
}

export async function dropDatabases(db: string): Promise<void> {
  await admin(async (c) => {
    for (const name of pair(db)) await c.query(`DROP DATABASE IF EXISTS ${quoted(name)} WITH (FORCE)`);
  });
}

/** Resident memory of a process in KiB, from the kernel (what the OS charges it, not the JS heap). */
export function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for process ${pid}`);
  return Number(m[1]);
}

/** CPU time (user + system) a process has used so far, in ms; /proc counts it in clock ticks of 10 ms. */
export function cpuMs(pid: number): number {
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Samples a process's RSS every `intervalMs` until stopped; returns the samples (ms since start, MiB). */
export function sampleRss(pid: number, intervalMs: number) {
  const t0 = performance.now();
  const samples: { ms: number; mib: number }[] = [];
  const take = () => samples.push({ ms: Math.round(performance.now() - t0), mib: rssKiB(pid) / 1024 });
  take();
  const timer = setInterval(take, intervalMs);
  return {
    samples,
    stop() {
      clearInterval(timer);
      take();
      return samples;
    },
  };
}

/** Every benchmark service gets it, so that its /metrics can be read. */
export const METRICS_SECRET = 'bench-load-metrics-secret';

/** The service's Prometheus metrics, as text. */
export async function scrapeMetrics(url: string): Promise<string> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_SECRET}` } });
  if (!res.ok) throw new Error(`/metrics → ${res.status}`);
  return res.text();
}

export interface RunningService {
  url: string;
  key: string;
  pid: number;
  stop(): Promise<void>;
}

export async function startService(options: {
  dataDir: string;
  database: string;
  key: string;
  env?: Record<string, string>;
  /** Options for node itself, e.g. `--cpu-prof`. */
  nodeArgs?: string[];
  log?: (line: string) => void;
}): Promise<RunningService> {
  const child: ChildProcess = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), path.join(repoRoot, 'packages/service/dist/cli.js'), 'serve'],
    {
      env: {
        PATH: process.env.PATH ?? '',
        DATA_DIR: options.dataDir,
        DATABASE_URL: databaseUrl(options.database),
        SERVER_PORT: '0',
        SERVICE_BOOTSTRAP_API_KEY: options.key,
        // The benchmark is the only client and sends far more than a user's quota on purpose.
        RATE_LIMIT_PER_MINUTE: '0',
        LOG_LEVEL: 'warn',
        METRICS_SECRET,
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const log = options.log ?? (() => {});
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /running at (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.stderr!.on('data', (c: Buffer) => log(c.toString().trimEnd()));
    child.once('exit', (code) =>
      reject(new Error(`service exited with ${code} before it was ready: ${out}`)),
    );
  });
  return {
    url,
    key: options.key,
    pid: child.pid!,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
