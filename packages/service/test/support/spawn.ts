import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { packageRoot } from '../../src/paths.js';

export const cliPath = path.join(packageRoot(), 'dist', 'cli.js');
/** The launcher `npm start` runs the CLI through (jemalloc when installed). */
export const launcherPath = path.resolve(packageRoot(), '..', '..', 'scripts', 'with-jemalloc.sh');
const execFileAsync = promisify(execFile);

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      srv.close(() => (typeof a === 'object' && a ? resolve(a.port) : reject(new Error('no port'))));
    });
  });
}

/** A data folder for embedded mode that the `postgres` user can enter when tests run as root. */
export async function embeddedDataDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'docslurp-embedded-'));
  await chmod(dir, 0o755);
  return dir;
}

/** Environment of a child in embedded mode: no DATABASE_URL (CI sets one for the other tests). */
export function embeddedEnv(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { DATABASE_URL: _ignored, ...rest } = process.env;
  return { ...rest, DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...extra };
}

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  /** Resolves when the output matches `pattern` (the banner prints just after /health answers). */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Ms from spawn until /health answered. */
  startMs: number;
  stop(): Promise<void>;
}

/** Runs `docslurp serve` as `npm start` does and waits until /health answers. */
export async function spawnServe(dataDir: string, extra: Record<string, string> = {}): Promise<ServeProcess> {
  // A port given in advance: for a test whose identity provider must know the redirect URL first.
  const port = extra.SERVER_PORT ? Number(extra.SERVER_PORT) : await freePort();
  const t0 = Date.now();
  // The launcher execs node, so the child is the service itself (signals reach it directly).
  const child = spawn('sh', [launcherPath, process.execPath, cliPath, 'serve'], {
    env: embeddedEnv(dataDir, { SERVER_PORT: String(port), ...extra }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  let exited = false;
  child.on('exit', () => (exited = true));
  // Longer than the service's own wait for its embedded PostgreSQL, so that its error is the one seen.
  const deadline = Date.now() + 150_000;
  for (;;) {
    if (exited) throw new Error(`serve exited during start:\n${out}`);
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`serve did not become healthy:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const startMs = Date.now() - t0;
  return {
    child,
    url,
    startMs,
    output: () => out,
    waitForOutput: async (pattern, timeoutMs = 15_000) => {
      const end = Date.now() + timeoutMs;
      while (!pattern.test(out)) {
        if (Date.now() > end) throw new Error(`output never matched ${pattern}:\n${out}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    stop: async () => {
      if (exited) return;
      const done = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await done;
    },
  };
}

export async function runCli(dataDir: string, args: string[], extra: Record<string, string> = {}) {
  return execFileAsync(process.execPath, [cliPath, ...args], { env: embeddedEnv(dataDir, extra) });
}

/** Stops a PostgreSQL left behind under a data folder (after a test killed its owner). */
export function stopLeftoverPostgres(dataDir: string): void {
  const pidFile = path.join(dataDir, 'postgres', 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    // already gone
  }
}
