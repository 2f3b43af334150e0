// Over 400 lines: one process's supervision (limits, watchdog, one request at a time, how it ended) is
// one state machine over one child process; split, its parts would share all of that state.
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { constants } from 'node:os';
import type { DocumentFailureCode } from '../../errors.js';
import { SANDBOX_FAILURES } from './protocol.js';

export interface ProcessLimits {
  /** Wall-clock time of one request. */
  timeoutMs: number;
  /** CPU time of the whole process tree during one request. */
  cpuSeconds: number;
  /** CPU time any one process may use in its whole life (RLIMIT_CPU): the kernel's backstop. */
  lifetimeCpuSeconds: number;
  /** Resident memory of the whole process tree. */
  memoryBytes: number;
  /** Bytes accepted on standard output for one answer. */
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
  | {
      kind: 'failed';
      code: DocumentFailureCode;
      message: string;
      stderr: string;
      peakRssBytes: number;
      wallMs: number;
    };

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
 * so they apply to everything inside it. They count over a process's whole life, so the per-request
 * limits are the watchdog's (below); these are backstops for a supervisor that cannot watch. The soft
 * CPU limit sends SIGXCPU, which tells a CPU-time death apart from a kill; the address-space limit is
 * loose (V8 reserves far more virtual memory than it uses).
 */
function ulimitScript(limits: ProcessLimits): string {
  const addressSpaceKb = Math.ceil((limits.memoryBytes * 4 + 4 * 1024 ** 3) / 1024);
  // Lowering a limit always succeeds on Linux; elsewhere (macOS refuses some) the rest still apply.
  return [
    'ulimit -c 0',
    `ulimit -S -t ${limits.lifetimeCpuSeconds}`,
    `ulimit -H -t ${limits.lifetimeCpuSeconds + 5}`,
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

/** CPU time (user + system, its reaped children's included) of one process, in seconds. */
function cpuSecondsOf(pid: number): number | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  // Fields after the command name (which may hold spaces): utime, stime, cutime, cstime are the
  // 14th to 17th; the kernel counts them in ticks of 1/100 s.
  const f = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100;
}

/** Resident memory and CPU seconds of a process tree; undefined where /proc is not available. */
function treeUsage(root: number): { rssBytes: number; cpuSeconds: number } | undefined {
  let usage: { rssBytes: number; cpuSeconds: number } | undefined;
  for (const pid of processTree(root)) {
    const rss = rssBytes(pid);
    const cpu = cpuSecondsOf(pid);
    if (rss === undefined || cpu === undefined) continue;
    usage ??= { rssBytes: 0, cpuSeconds: 0 };
    usage.rssBytes += rss;
    usage.cpuSeconds += cpu;
  }
  return usage;
}

/** Why a process was killed: a limit (its request fails with the code), the caller's abort, or its end. */
type Kill = { code: DocumentFailureCode; message: string } | 'abort' | 'retired';

interface Pending {
  resolve(outcome: Outcome): void;
  reject(err: Error): void;
  started: number;
  cpuAtStart: number | undefined;
  peakRss: number;
  stdout: Buffer[];
  stdoutSize: number;
  stop(): void;
}

/**
 * A process that answers requests one at a time under limits: one line of input, one line of answer
 * on standard output. Each request gets the whole per-request budget (wall clock, CPU time of the
 * process tree, output size); resident memory is watched throughout. A process that breaks a limit,
 * dies or writes more than its answer is killed, and the request in flight is reported as a failure
 * with a code; only an abort by the caller throws. A dead process is never used again.
 */
export class SupervisedProcess {
  private readonly child: ChildProcess;
  private pending: Pending | undefined;
  private stderr = '';
  private killedFor: Kill | undefined;
  private ended = false;
  private spawnError: Error | undefined;
  /**
   * The latest usage read (usually after the last answer). As the next request's starting point it
   * charges that request with anything the process did while idle: stricter, never looser.
   */
  private lastUsage: { rssBytes: number; cpuSeconds: number } | undefined;

  constructor(
    command: Command,
    private readonly limits: ProcessLimits,
  ) {
    this.child = spawn('/bin/sh', ['-c', ulimitScript(limits), 'sandbox', ...command.argv], {
      cwd: command.cwd,
      env: command.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group, so that a kill reaches everything it started.
      detached: true,
    });
    this.child.stdout!.on('data', (chunk: Buffer) => this.onStdout(chunk));
    this.child.stderr!.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_KEEP);
    });
    // The child may die before it reads a request; that is reported by the exit, not here.
    this.child.stdin!.on('error', () => {});
    this.child.on('error', (err) => {
      this.spawnError = err;
      this.ended = true;
      const p = this.pending;
      this.pending = undefined;
      p?.stop();
      p?.reject(err);
    });
    this.child.on('close', (code, sig) => this.onClose(code, sig));
  }

  /** Alive and not marked for death: may take a request. */
  get usable(): boolean {
    return !this.ended && !this.killedFor && this.pending === undefined;
  }

  /**
   * What the process tree uses now. Reading it walks /proc for every thread of every process (about
   * 0.7 ms for a sandboxed parser), so a request starts from the last reading instead of a new one.
   */
  usage(): { rssBytes: number; cpuSeconds: number } | undefined {
    this.lastUsage = this.child.pid && !this.ended ? treeUsage(this.child.pid) : undefined;
    return this.lastUsage;
  }

  /**
   * Sends one request line and waits for the answer line (or, from a process that answers once and
   * exits, for everything it wrote before a clean exit). `end` closes its input after the request.
   */
  run(input: string, signal: AbortSignal, options: { end?: boolean } = {}): Promise<Outcome> {
    return new Promise((resolve, reject) => {
      if (this.spawnError) return reject(this.spawnError);
      if (signal.aborted) return reject(new SupervisionAborted());
      if (!this.usable) return reject(new Error('the parser process cannot take another request'));
      this.setRef(true);
      this.stderr = '';
      const usage = this.lastUsage ?? this.usage();
      const wall = setTimeout(
        () =>
          this.kill({
            code: SANDBOX_FAILURES.timeout,
            message: `Parsing took longer than the limit of ${Math.round(this.limits.timeoutMs / 1000)} s and was stopped.`,
          }),
        this.limits.timeoutMs,
      );
      const watch = setInterval(() => this.watch(), WATCH_INTERVAL_MS);
      const onAbort = () => this.kill('abort');
      signal.addEventListener('abort', onAbort, { once: true });
      this.pending = {
        resolve,
        reject,
        started: performance.now(),
        cpuAtStart: usage?.cpuSeconds,
        peakRss: usage?.rssBytes ?? 0,
        stdout: [],
        stdoutSize: 0,
        stop: () => {
          clearTimeout(wall);
          clearInterval(watch);
          signal.removeEventListener('abort', onAbort);
          if (!this.ended) this.setRef(false);
        },
      };
      this.child.stdin!.write(`${input}\n`);
      if (options.end) this.child.stdin!.end();
    });
  }

  /** Lets the process end on its own (its input closes), and kills it if it has not after a moment. */
  close(): void {
    if (this.ended) return;
    this.child.stdin!.end();
    const timer = setTimeout(() => this.kill('retired'), 2000);
    timer.unref();
    this.child.once('close', () => clearTimeout(timer));
  }

  /** Kills the whole process group; the request in flight, if any, fails with the given reason. */
  kill(reason: Kill): void {
    if (this.killedFor || this.ended) return;
    this.killedFor = reason;
    try {
      if (this.child.pid) process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      this.child.kill('SIGKILL');
    }
  }

  private watch(): void {
    const p = this.pending;
    const usage = this.usage();
    if (!p || !usage) return;
    p.peakRss = Math.max(p.peakRss, usage.rssBytes);
    if (usage.rssBytes > this.limits.memoryBytes) {
      this.kill({
        code: SANDBOX_FAILURES.memory,
        message: `Parsing needed more than the memory limit of ${mib(this.limits.memoryBytes)} MiB and was stopped.`,
      });
    } else if (p.cpuAtStart !== undefined && usage.cpuSeconds - p.cpuAtStart > this.limits.cpuSeconds) {
      this.kill(cpuLimitReached(this.limits.cpuSeconds));
    }
  }

  private onStdout(chunk: Buffer): void {
    const p = this.pending;
    if (!p) {
      // Nobody asked: a process that writes on its own is not trusted with another document.
      this.kill({ code: SANDBOX_FAILURES.crash, message: 'The parser wrote without being asked.' });
      return;
    }
    if (this.killedFor) return;
    p.stdoutSize += chunk.length;
    if (p.stdoutSize > this.limits.stdoutBytes) {
      this.kill({
        code: SANDBOX_FAILURES.output,
        message: `The parser produced more than the output limit of ${mib(this.limits.stdoutBytes)} MiB.`,
      });
      return;
    }
    const newline = chunk.indexOf(0x0a);
    if (newline < 0) {
      p.stdout.push(chunk);
      return;
    }
    p.stdout.push(chunk.subarray(0, newline));
    // Anything after the answer would be read as the next document's answer: never reuse such a process.
    if (newline < chunk.length - 1)
      this.kill({ code: SANDBOX_FAILURES.crash, message: 'The parser wrote more than its answer.' });
    this.pending = undefined;
    p.stop();
    p.resolve({
      kind: 'exited',
      stdout: Buffer.concat(p.stdout),
      stderr: this.stderr,
      peakRssBytes: p.peakRss,
      wallMs: performance.now() - p.started,
    });
  }

  private onClose(code: number | null, sig: NodeJS.Signals | null): void {
    this.ended = true;
    const p = this.pending;
    this.pending = undefined;
    if (!p) return;
    p.stop();
    const wallMs = performance.now() - p.started;
    const stderr = this.stderr;
    if (this.killedFor === 'abort' || this.killedFor === 'retired') {
      p.reject(new SupervisionAborted());
      return;
    }
    const fail = (c: DocumentFailureCode, message: string) =>
      p.resolve({ kind: 'failed', code: c, message, stderr, peakRssBytes: p.peakRss, wallMs });
    if (this.killedFor) {
      fail(this.killedFor.code, this.killedFor.message);
      return;
    }
    if (code === 0) {
      p.resolve({ kind: 'exited', stdout: Buffer.concat(p.stdout), stderr, peakRssBytes: p.peakRss, wallMs });
      return;
    }
    const exit = code ?? (sig ? 128 + constants.signals[sig] : -1);
    if (OOM_MESSAGES.test(stderr)) {
      fail(
        SANDBOX_FAILURES.memory,
        `The parser ran out of memory (limit ${mib(this.limits.memoryBytes)} MiB) and was stopped.`,
      );
    } else if (exit === SIGXCPU_EXIT) {
      const { code: c, message } = cpuLimitReached(this.limits.cpuSeconds);
      fail(c, message);
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
  }

  /** An idle process must not keep the worker's event loop alive (its shutdown closes it anyway). */
  private setRef(on: boolean): void {
    for (const handle of [this.child, this.child.stdin, this.child.stdout, this.child.stderr] as unknown as {
      ref?(): void;
      unref?(): void;
    }[]) {
      if (on) handle?.ref?.();
      else handle?.unref?.();
    }
  }
}

function cpuLimitReached(seconds: number) {
  return {
    code: SANDBOX_FAILURES.timeout,
    message: `Parsing used more than the CPU-time limit of ${seconds} s and was stopped.`,
  };
}

/** Runs a command for one request and makes sure it is gone afterwards. */
export async function supervise(
  command: Command,
  stdin: string,
  limits: ProcessLimits,
  signal: AbortSignal,
): Promise<Outcome> {
  const child = new SupervisedProcess(command, limits);
  try {
    return await child.run(stdin, signal, { end: true });
  } finally {
    child.kill('retired');
  }
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
