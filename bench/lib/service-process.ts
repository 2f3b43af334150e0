import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { repoRoot } from './data.js';

export interface ServiceProcess {
  url: string;
  key: string;
  pid: number;
  stop(): Promise<void>;
}

function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

/**
 * Where models named by their Hugging Face id are kept between runs (each run has a fresh DATA_DIR):
 * BENCH_MODELS_DIR, else a folder in node_modules/.cache, out of git's and Biome's way.
 */
export const benchModelsDir =
  process.env.BENCH_MODELS_DIR ?? path.join(repoRoot, 'node_modules/.cache/docslurp-models');

/**
 * Starts the built service (`docslurp serve`: server and worker in one process, as `npm start` runs
 * it) on a loopback port, against fresh databases in the PostgreSQL at `adminUrl`, with `env` on top,
 * and waits until its configured models are loaded (a first run downloads them), so that nothing is
 * measured without them. Needs `npm run build` first.
 */
export async function startServiceProcess(
  adminUrl: string,
  env: Record<string, string> = {},
  log: (line: string) => void = () => {},
): Promise<ServiceProcess> {
  const db = `bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${db}"`);
  await admin.query(`CREATE DATABASE "${db}_workflow"`);
  await admin.end();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'docslurp-bench-'));
  const key = `dsk_${randomBytes(16).toString('hex')}`;
  const child: ChildProcess = spawn(
    process.execPath,
    [path.join(repoRoot, 'packages/service/dist/cli.js'), 'serve'],
    {
      env: {
        PATH: process.env.PATH ?? '',
        DATA_DIR: dataDir,
        DATABASE_URL: withDatabase(adminUrl, db),
        SERVER_PORT: '0',
        SERVICE_BOOTSTRAP_API_KEY: key,
        RATE_LIMIT_PER_MINUTE: '0',
        LOG_LEVEL: 'warn',
        MODELS_DIR: benchModelsDir,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const url = await serviceUrl(child, log);
  await modelsLoaded(url, log);
  return {
    url,
    key,
    pid: child.pid!,
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
      await c.query(`DROP DATABASE IF EXISTS "${db}_workflow" WITH (FORCE)`);
      await c.end();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Starts the built service in embedded mode (`docslurp serve` with no DATABASE_URL: its own PostgreSQL,
 * files and search index under `dataDir`, as a new user runs it) on a loopback port, with the API key
 * `key` and `env` on top. The folder is left in place on stop, so that a caller can keep it.
 */
export async function startEmbeddedService(
  dataDir: string,
  key: string,
  env: Record<string, string> = {},
  log: (line: string) => void = () => {},
): Promise<ServiceProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    [path.join(repoRoot, 'packages/service/dist/cli.js'), 'serve'],
    {
      env: {
        PATH: process.env.PATH ?? '',
        DATA_DIR: dataDir,
        SERVER_PORT: '0',
        SERVICE_BOOTSTRAP_API_KEY: key,
        RATE_LIMIT_PER_MINUTE: '0',
        LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const url = await serviceUrl(child, log);
  await modelsLoaded(url, log);
  return {
    url,
    key,
    pid: child.pid!,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Resolves with the URL the service prints in its banner; rejects if it exits first. */
function serviceUrl(child: ChildProcess, log: (line: string) => void): Promise<string> {
  return new Promise<string>((resolve, reject) => {
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
}

/** Polls /ready until no model check (`embeddingModel`, `rerankModel`) fails; says why every 10 s. */
async function modelsLoaded(
  url: string,
  log: (line: string) => void,
  timeoutMs = 60 * 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let said = 0;
  for (;;) {
    const ready = (await (await fetch(`${url}/ready`)).json()) as {
      checks: Record<string, { ok: boolean; error?: string }>;
    };
    const waiting = Object.entries(ready.checks).filter(([name, c]) => name.endsWith('Model') && !c.ok);
    if (waiting.length === 0) return;
    if (Date.now() > deadline) throw new Error(`models not loaded: ${JSON.stringify(waiting)}`);
    if (Date.now() - said > 10_000) {
      said = Date.now();
      for (const [name, c] of waiting) log(`waiting for ${name}: ${c.error}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** What the numbers were measured on. */
export function describeMachine() {
  const cpus = os.cpus();
  return {
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
  };
}
