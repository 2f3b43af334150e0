import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
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

/** CPU time (user + system) one process has used so far in ms; /proc counts it in 10 ms ticks. */
function cpuMs(pid: number): number | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  // After the command name (which may hold spaces and parentheses): utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** A process started under limits, which may wait for its request (a standby) before it gets it. */
export interface Supervised {
  /** Alive and not yet given its request. */
  readonly waiting: boolean;
  /**
   * Sends the request and says how the process ended. The wall-clock and CPU limits count from here,
   * so time a standby spent starting and warming up is not charged to the document. Rejects with
   * StandbyLost when the process died before it got the request (nothing of the caller's is lost),
   * with SupervisionAborted on abort.
   */
  run(stdin: string, signal: AbortSignal): Promise<Outcome>;
  /** Stops a process that will not be used. */
  discard(): void;
}

export class StandbyLost extends Error {
  constructor(readonly stderr: string) {
    super('the parser process ended before it was given a document');
    this.name = 'StandbyLost';
  }
}

/**
 * Starts one command under limits. Until `run`, the process holds no reference on the event loop
 * and counts only against its memory limit; `cpuAllowanceSeconds` raises the kernel's CPU backstop
 * by what it may spend before its request (the watchdog enforces the real limit from the request on).
 */
export function startSupervised(
  command: Command,
  limits: ProcessLimits,
  options: { cpuAllowanceSeconds?: number } = {},
): Supervised {
  const allowance = options.cpuAllowanceSeconds ?? 0;
  const child = spawn(
    '/bin/sh',
    [
      '-c',
      ulimitScript({ ...limits, cpuSeconds: limits.cpuSeconds + allowance }),
      'sandbox',
      ...command.argv,
    ],
    {
      cwd: command.cwd,
      env: command.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group, so that a kill reaches everything it started.
      detached: true,
    },
  );
  // The pipes are sockets; they and the child are what would keep the event loop alive.
  const handles = [child, ...([child.stdin, child.stdout, child.stderr] as unknown as Socket[])];
  const stdout: Buffer[] = [];
  let stdoutSize = 0;
  let stderr = '';
  let peakRss = 0;
  let killedFor: { code: string; message: string } | 'abort' | 'discard' | undefined;
  /** Set by run(): from then on the document is charged for what the process does. */
  let request: { started: number; cpuBase: Map<number, number>; settle: (exit: Exit) => void } | undefined;
  let exit: Exit | undefined;
  let startError: Error | undefined;

  const kill = (reason: NonNullable<typeof killedFor>) => {
    if (killedFor) return;
    killedFor = reason;
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  };

  const watch = setInterval(() => {
    if (!child.pid) return;
    const pids = processTree(child.pid);
    let rss: number | undefined;
    for (const pid of pids) {
      const r = rssBytes(pid);
      if (r !== undefined) rss = (rss ?? 0) + r;
    }
    if (rss !== undefined) {
      peakRss = Math.max(peakRss, rss);
      if (rss > limits.memoryBytes) {
        kill({
          code: SANDBOX_FAILURES.memory,
          message: `Parsing needed more than the memory limit of ${mib(limits.memoryBytes)} MiB and was stopped.`,
        });
        return;
      }
    }
    // The CPU limit of any one process, counted from the request (the kernel's limit is the backstop).
    if (request && allowance > 0) {
      for (const pid of pids) {
        const used = (cpuMs(pid) ?? 0) - (request.cpuBase.get(pid) ?? 0);
        if (used > limits.cpuSeconds * 1000) kill(cpuExceeded(limits));
      }
    }
  }, WATCH_INTERVAL_MS);
  watch.unref();
  for (const h of handles) h.unref();

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
  child.on('error', (err) => {
    // The shell could not be started at all ('close' may not follow).
    startError = err;
    clearInterval(watch);
    exit = { code: null, signal: null };
    request?.settle(exit);
  });
  child.on('close', (code, sig) => {
    clearInterval(watch);
    exit = { code, signal: sig };
    request?.settle(exit);
  });

  return {
    get waiting() {
      return request === undefined && exit === undefined && killedFor === undefined;
    },
    discard() {
      if (!request) kill('discard');
    },
    run(stdin, signal) {
      return new Promise<Outcome>((resolve, reject) => {
        if (request) throw new Error('a supervised process takes one request');
        if (exit || killedFor) {
          reject(startError ?? new StandbyLost(stderr));
          return;
        }
        if (signal.aborted) {
          kill('discard');
          reject(new SupervisionAborted());
          return;
        }
        for (const h of handles) h.ref();
        const cpuBase = new Map<number, number>();
        if (child.pid) for (const pid of processTree(child.pid)) cpuBase.set(pid, cpuMs(pid) ?? 0);
        const wall = setTimeout(
          () =>
            kill({
              code: SANDBOX_FAILURES.timeout,
              message: `Parsing took longer than the limit of ${Math.round(limits.timeoutMs / 1000)} s and was stopped.`,
            }),
          limits.timeoutMs,
        );
        const onAbort = () => kill('abort');
        signal.addEventListener('abort', onAbort, { once: true });
        const started = performance.now();
        request = {
          started,
          cpuBase,
          settle: (ended) => {
            clearTimeout(wall);
            signal.removeEventListener('abort', onAbort);
            if (startError) {
              reject(startError);
              return;
            }
            if (killedFor === 'abort') {
              reject(new SupervisionAborted());
              return;
            }
            resolve(verdict(ended, { stdout, stderr, peakRss, killedFor, limits, started }));
          },
        };
        child.stdin.end(stdin);
      });
    },
  };
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
  return startSupervised(command, limits).run(stdin, signal);
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

function cpuExceeded(limits: ProcessLimits) {
  return {
    code: SANDBOX_FAILURES.timeout,
    message: `Parsing used more than the CPU-time limit of ${limits.cpuSeconds} s and was stopped.`,
  };
}

function verdict(
  ended: Exit,
  state: {
    stdout: Buffer[];
    stderr: string;
    peakRss: number;
    killedFor: { code: string; message: string } | 'abort' | 'discard' | undefined;
    limits: ProcessLimits;
    started: number;
  },
): Outcome {
  const { stderr, peakRss, killedFor, limits } = state;
  const wallMs = performance.now() - state.started;
  const fail = (code: string, message: string): Outcome => ({
    kind: 'failed',
    code,
    message,
    stderr,
    peakRssBytes: peakRss,
    wallMs,
  });
  if (killedFor && typeof killedFor === 'object') return fail(killedFor.code, killedFor.message);
  if (ended.code === 0) {
    return { kind: 'exited', stdout: Buffer.concat(state.stdout), stderr, peakRssBytes: peakRss, wallMs };
  }
  const exit = ended.code ?? (ended.signal ? 128 + constants.signals[ended.signal] : -1);
  if (OOM_MESSAGES.test(stderr)) {
    return fail(
      SANDBOX_FAILURES.memory,
      `The parser ran out of memory (limit ${mib(limits.memoryBytes)} MiB) and was stopped.`,
    );
  }
  if (exit === SIGXCPU_EXIT) {
    const exceeded = cpuExceeded(limits);
    return fail(exceeded.code, exceeded.message);
  }
  if (exit === SIGKILL_EXIT) {
    // Nobody here sent that kill: the kernel's out-of-memory killer is the usual sender.
    return fail(
      SANDBOX_FAILURES.memory,
      'The parser was killed by the system, most likely for lack of memory.',
    );
  }
  const last = lastLine(stderr);
  return fail(
    SANDBOX_FAILURES.crash,
    `The parser crashed (${exit > 128 ? `signal ${exit - 128}` : `exit code ${exit}`})${last ? `: ${last}` : ''}.`,
  );
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
