import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { SANDBOX_FAILURES } from './protocol.js';

export interface ProcessLimits {
  timeoutMs: number;
  cpuSeconds: number;
  /** Resident memory of the whole process tree. */
  memoryBytes: number;
  /** Bytes accepted on standard output. */
  stdoutBytes: number;
  /** Largest file any process may write (RLIMIT_FSIZE). */
  fileBytes: number;
}

export interface Command {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
}

export type Outcome =
  | { kind: 'exited'; stdout: Buffer; stderr: string; peakRssBytes: number; wallMs: number }
  | { kind: 'failed'; code: string; message: string; stderr: string; peakRssBytes: number; wallMs: number };

export class SupervisionAborted extends Error {
  constructor() {
    super('the parse was aborted');
    this.name = 'SupervisionAborted';
  }
}

const STDERR_KEEP = 16 * 1024;
const WATCH_INTERVAL_MS = 100;
const SIGXCPU_EXIT = 128 + 24;
const SIGKILL_EXIT = 128 + 9;
const OOM_MESSAGES =
  /heap out of memory|std::bad_alloc|Cannot allocate memory|Failed to reserve virtual memory|out of memory|Array buffer allocation failed/i;

/**
 * Resource limits the kernel enforces per process. The shell sets them and then becomes the sandbox,
 * so they apply to everything inside it. The soft CPU limit sends SIGXCPU, which tells a CPU-time
 * death apart from a kill; the address-space limit is a loose backstop (V8 reserves far more virtual
 * memory than it uses), the resident-memory watchdog below is the real memory limit.
 */
function ulimitScript(limits: ProcessLimits): string {
  const addressSpaceKb = Math.ceil((limits.memoryBytes * 4 + 4 * 1024 ** 3) / 1024);
  // Lowering a limit always succeeds on Linux; elsewhere (macOS refuses some) the rest still apply.
  return [
    'ulimit -c 0',
    `ulimit -S -t ${limits.cpuSeconds}`,
    `ulimit -H -t ${limits.cpuSeconds + 5}`,
    `ulimit -v ${addressSpaceKb}`,
    `ulimit -f ${Math.ceil(limits.fileBytes / 512)}`,
  ]
    .map((command) => `${command} 2>/dev/null`)
    .concat('exec "$@"')
    .join('; ');
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Every process under `root` (itself included), found through /proc's children lists. */
function processTree(root: number): number[] {
  const seen: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.pop()!;
    seen.push(pid);
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      const children = readText(`/proc/${pid}/task/${task}/children`);
      if (children) for (const c of children.trim().split(/\s+/)) if (c) queue.push(Number(c));
    }
  }
  return seen;
}

/** Resident memory of one process in bytes, or undefined where /proc is not available. */
export function rssBytes(pid: number): number | undefined {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(readText(`/proc/${pid}/status`) ?? '');
  return m ? Number(m[1]) * 1024 : undefined;
}

/** Resident memory of a process tree in bytes, or undefined where /proc is not available. */
export function treeRssBytes(root: number): number | undefined {
  let total: number | undefined;
  for (const pid of processTree(root)) {
    const rss = rssBytes(pid);
    if (rss !== undefined) total = (total ?? 0) + rss;
  }
  return total;
}

/**
 * Runs one command under limits and says how it ended. A process that runs too long, grows too large,
 * writes too much or dies is reported as a failure with a code; only an abort by the caller throws.
 */
export function supervise(
  command: Command,
  stdin: string,
  limits: ProcessLimits,
  signal: AbortSignal,
): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new SupervisionAborted());
      return;
    }
    const started = performance.now();
    const child = spawn('/bin/sh', ['-c', ulimitScript(limits), 'sandbox', ...command.argv], {
      cwd: command.cwd,
      env: command.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group, so that a kill reaches everything it started.
      detached: true,
    });
    const stdout: Buffer[] = [];
    let stdoutSize = 0;
    let stderr = '';
    let peakRss = 0;
    let killedFor: { code: string; message: string } | 'abort' | undefined;

    const kill = (reason: { code: string; message: string } | 'abort') => {
      if (killedFor) return;
      killedFor = reason;
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };

    const wall = setTimeout(
      () =>
        kill({
          code: SANDBOX_FAILURES.timeout,
          message: `Parsing took longer than the limit of ${Math.round(limits.timeoutMs / 1000)} s and was stopped.`,
        }),
      limits.timeoutMs,
    );
    const watch = setInterval(() => {
      if (!child.pid) return;
      const rss = treeRssBytes(child.pid);
      if (rss === undefined) return;
      peakRss = Math.max(peakRss, rss);
      if (rss > limits.memoryBytes) {
        kill({
          code: SANDBOX_FAILURES.memory,
          message: `Parsing needed more than the memory limit of ${mib(limits.memoryBytes)} MiB and was stopped.`,
        });
      }
    }, WATCH_INTERVAL_MS);
    const onAbort = () => kill('abort');
    signal.addEventListener('abort', onAbort, { once: true });

    child.stdout.on('data', (chunk: Buffer) => {
      stdoutSize += chunk.length;
      if (stdoutSize > limits.stdoutBytes) {
        kill({
          code: SANDBOX_FAILURES.output,
          message: `The parser produced more than the output limit of ${mib(limits.stdoutBytes)} MiB.`,
        });
        return;
      }
      if (!killedFor) stdout.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_KEEP);
    });
    // The child may die before it reads its request; that is reported by the exit, not here.
    child.stdin.on('error', () => {});
    child.stdin.end(stdin);

    child.on('error', (err) => {
      clearTimeout(wall);
      clearInterval(watch);
      signal.removeEventListener('abort', onAbort);
      reject(err);
    });
    child.on('close', (code, sig) => {
      clearTimeout(wall);
      clearInterval(watch);
      signal.removeEventListener('abort', onAbort);
      const wallMs = performance.now() - started;
      if (killedFor === 'abort') {
        reject(new SupervisionAborted());
        return;
      }
      const fail = (c: string, message: string) =>
        resolve({ kind: 'failed', code: c, message, stderr, peakRssBytes: peakRss, wallMs });
      if (killedFor) {
        fail(killedFor.code, killedFor.message);
        return;
      }
      if (code === 0) {
        resolve({ kind: 'exited', stdout: Buffer.concat(stdout), stderr, peakRssBytes: peakRss, wallMs });
        return;
      }
      const exit = code ?? (sig ? 128 + constants.signals[sig] : -1);
      if (OOM_MESSAGES.test(stderr)) {
        fail(
          SANDBOX_FAILURES.memory,
          `The parser ran out of memory (limit ${mib(limits.memoryBytes)} MiB) and was stopped.`,
        );
      } else if (exit === SIGXCPU_EXIT) {
        fail(
          SANDBOX_FAILURES.timeout,
          `Parsing used more than the CPU-time limit of ${limits.cpuSeconds} s and was stopped.`,
        );
      } else if (exit === SIGKILL_EXIT) {
        // Nobody here sent that kill: the kernel's out-of-memory killer is the usual sender.
        fail(SANDBOX_FAILURES.memory, 'The parser was killed by the system, most likely for lack of memory.');
      } else {
        const last = lastLine(stderr);
        fail(
          SANDBOX_FAILURES.crash,
          `The parser crashed (${exit > 128 ? `signal ${exit - 128}` : `exit code ${exit}`})${last ? `: ${last}` : ''}.`,
        );
      }
    });
  });
}

function mib(bytes: number): number {
  return Math.round(bytes / (1024 * 1024));
}

function lastLine(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return (lines.at(-1) ?? '').slice(0, 300);
}
