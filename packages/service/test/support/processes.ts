import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { packageRoot } from '../../src/paths.js';

/** The built CLI, as the containers run it (`npm test` builds it first). */
export function cliPath(): string {
  const cli = path.join(packageRoot(), 'dist', 'cli.js');
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run "npm run build" first`);
  return cli;
}

export interface RunningProcess {
  name: string;
  child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Resolves with the first output line matching `pattern`; rejects on exit or timeout. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** A base environment without the runner's own settings (DATABASE_URL and friends). */
export function baseEnv(): Record<string, string> {
  const keep = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ'];
  return Object.fromEntries(keep.flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : [])));
}

export function spawnProcess(
  name: string,
  command: string,
  args: string[],
  env: Record<string, string>,
): RunningProcess {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    out += chunk.toString('utf8');
    for (const w of waiters) w();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    // 'close', not 'exit': only then has all of the output been read.
    child.on('close', (code, signal) => {
      resolve({ code, signal });
      for (const w of waiters) w();
    });
  });
  let done = false;
  void exited.then(() => {
    done = true;
  });

  return {
    name,
    child,
    output: () => out,
    exited,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${name}: no output matching ${pattern} within ${timeoutMs} ms. Output:\n${out}`));
        }, timeoutMs);
        const check = () => {
          const line = out.split('\n').find((l) => pattern.test(l));
          if (line !== undefined) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve(line);
          } else if (done) {
            clearTimeout(timer);
            waiters.delete(check);
            reject(new Error(`${name} exited before printing ${pattern}. Output:\n${out}`));
          }
        };
        waiters.add(check);
        check();
      });
    },
    async stop(graceMs = 15_000) {
      if (!done) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        const result = await exited;
        clearTimeout(timer);
        return result;
      }
      return exited;
    },
  };
}

/** Runs a CLI command to completion. */
export async function runCli(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 120_000,
): Promise<{ code: number | null; output: string }> {
  const p = spawnProcess(args.join(' '), process.execPath, [cliPath(), ...args], env);
  const timer = setTimeout(() => p.child.kill('SIGKILL'), timeoutMs);
  const { code } = await p.exited;
  clearTimeout(timer);
  return { code, output: p.output() };
}

export function startCli(
  name: string,
  args: string[],
  env: Record<string, string>,
  options: { openFiles?: number | undefined } = {},
): RunningProcess {
  if (options.openFiles === undefined) return spawnProcess(name, process.execPath, [cliPath(), ...args], env);
  // `ulimit -n` sets the soft and the hard limit: Node cannot raise it again at start.
  return spawnProcess(
    name,
    '/bin/sh',
    ['-c', `ulimit -n ${options.openFiles} && exec "$0" "$@"`, process.execPath, cliPath(), ...args],
    env,
  );
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

export async function waitForHealth(url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const r = await fetch(`${url}/health`);
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url}/health did not answer within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
