import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const cli = path.join(repoRoot, 'packages/service/dist/cli.js');

/** A real DocSlurp server: `docslurp serve` in embedded mode, in its own process and data folder. */
export interface RunningServer {
  url: string;
  apiKey: string;
  /** The environment the server runs with; CLI commands given it act on the same data folder. */
  env: NodeJS.ProcessEnv;
  /** Runs `docslurp <args>` against this server's data folder (for example `keys create`). */
  cli(args: string[]): Promise<string>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The environment of the child: the machine's basics, never the test run's DATABASE_URL and friends. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const keep = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'LC_ALL', 'TZ'];
  const env: NodeJS.ProcessEnv = {};
  for (const name of keep) if (process.env[name] !== undefined) env[name] = process.env[name];
  return { ...env, ...extra };
}

export async function startServer(extraEnv: Record<string, string> = {}): Promise<RunningServer> {
  if (!existsSync(cli)) {
    throw new Error(`${cli} is missing: run "npm run build" at the repository root first (npm test does).`);
  }
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'docslurp-sdk-'));
  // As root, the embedded PostgreSQL runs as the postgres user, which must be able to enter the folder.
  await chmod(dataDir, 0o755);
  const port = await freePort();
  const apiKey = `dsk_${randomBytes(16).toString('hex')}`;
  const env = childEnv({
    DATA_DIR: dataDir,
    SERVER_PORT: String(port),
    SERVER_BIND_ADDRESS: '127.0.0.1',
    SERVICE_BOOTSTRAP_API_KEY: apiKey,
    LOG_LEVEL: 'warn',
    JOB_POLL_INTERVAL_SECONDS: '0.5',
    ...extraEnv,
  });
  const child = spawn(process.execPath, [cli, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    output += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const done = await Promise.race([exited.then(() => true), delay(20_000).then(() => false)]);
      if (!done) {
        child.kill('SIGKILL');
        await exited;
      }
    }
    await rm(dataDir, { recursive: true, force: true });
  };

  try {
    await waitForHealth(url, child, () => output, 90_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    url,
    apiKey,
    env,
    async cli(args) {
      const { stdout } = await promisify(execFile)(process.execPath, [cli, ...args], { env });
      return stdout;
    },
    stop,
  };
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitForHealth(url: string, child: ChildProcess, output: () => string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}:\n${output()}`);
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok && ((await res.json()) as { ok?: boolean }).ok === true) return;
    } catch {
      // Not listening yet.
    }
    await delay(200);
  }
  throw new Error(`the server was not healthy within ${timeoutMs} ms:\n${output()}`);
}
