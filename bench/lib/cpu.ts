/**
 * CPU time of the service's process tree from /proc (Linux), so that a run on a shared machine can say
 * where its time went: the service's main thread, its other threads by name (libuv's pool, worker
 * threads, LanceDB's runtime, V8's helpers), its parser processes and the embedded PostgreSQL.
 * Wall time moves with the other work on the machine; CPU seconds move much less.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Linux's USER_HZ, which /proc/<pid>/stat counts in (100 on every architecture Node supports). */
const TICKS_PER_SECOND = 100;

interface Stat {
  comm: string;
  ppid: number;
  /** utime + stime, seconds. */
  own: number;
  /** cutime + cstime of reaped children, seconds. */
  children: number;
}

function readStat(file: string): Stat | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined; // gone meanwhile
  }
  // comm is in parentheses and may hold spaces: the fields after the last ')' are fixed.
  const close = text.lastIndexOf(')');
  const comm = text.slice(text.indexOf('(') + 1, close);
  const f = text.slice(close + 2).split(' ');
  // f[0] is field 3 (state): ppid is field 4, utime..cstime fields 14..17.
  const n = (i: number) => Number(f[i - 3]);
  return {
    comm,
    ppid: n(4),
    own: (n(14) + n(15)) / TICKS_PER_SECOND,
    children: (n(16) + n(17)) / TICKS_PER_SECOND,
  };
}

export interface CpuSnapshot {
  /** The service process: all its threads, and the reaped children (parser processes that ended). */
  serviceOwn: number;
  serviceChildren: number;
  /** Live threads of the service by thread id: name and seconds. */
  threads: Map<number, { comm: string; seconds: number }>;
  /** Live descendants other than PostgreSQL (parser processes and their sandbox), own + reaped. */
  parsers: number;
  /** The postmaster and its live backends, own + reaped. */
  postgres: number;
}

function descendants(root: number, parents: Map<number, number>): number[] {
  const out: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const p = queue.pop()!;
    for (const [pid, ppid] of parents) {
      if (ppid !== p) continue;
      out.push(pid);
      queue.push(pid);
    }
  }
  return out;
}

export function cpuSnapshot(servicePid: number, postmasterPid: number | undefined): CpuSnapshot {
  const stats = new Map<number, Stat>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = readStat(`/proc/${name}/stat`);
    if (s) stats.set(Number(name), s);
  }
  const parents = new Map([...stats].map(([pid, s]) => [pid, s.ppid]));
  const service = stats.get(servicePid);
  const threads = new Map<number, { comm: string; seconds: number }>();
  for (const tid of readdirSync(`/proc/${servicePid}/task`)) {
    const s = readStat(path.join('/proc', String(servicePid), 'task', tid, 'stat'));
    if (s) threads.set(Number(tid), { comm: s.comm, seconds: s.own });
  }
  const sum = (pids: number[]) =>
    pids.reduce((t, pid) => t + (stats.get(pid)?.own ?? 0) + (stats.get(pid)?.children ?? 0), 0);
  const pgTree =
    postmasterPid !== undefined && stats.has(postmasterPid)
      ? [postmasterPid, ...descendants(postmasterPid, parents)]
      : [];
  const others = descendants(servicePid, parents).filter((pid) => !pgTree.includes(pid));
  return {
    serviceOwn: service?.own ?? 0,
    serviceChildren: service?.children ?? 0,
    threads,
    parsers: sum(others),
    postgres: sum(pgTree),
  };
}

export interface CpuSpent {
  mainThread: number;
  /** Other threads of the service by name (threads that ended meanwhile as "ended"). */
  threads: Record<string, number>;
  parserProcesses: number;
  postgres: number;
  total: number;
}

/** CPU seconds spent between two snapshots, by where. */
export function cpuSpent(servicePid: number, a: CpuSnapshot, b: CpuSnapshot): CpuSpent {
  const r = (n: number) => Number(n.toFixed(2));
  const threads: Record<string, number> = {};
  let live = 0;
  for (const [tid, t] of b.threads) {
    const d = t.seconds - (a.threads.get(tid)?.seconds ?? 0);
    live += d;
    if (tid === servicePid) continue;
    // Numbered names (a pool's threads) are summed under one name.
    const name = t.comm.replace(/[-_ ]?\d+$/, '');
    threads[name] = (threads[name] ?? 0) + d;
  }
  const ownDelta = b.serviceOwn - a.serviceOwn;
  const ended = ownDelta - live;
  if (ended > 0.005) threads.ended = ended;
  const mainThread = (b.threads.get(servicePid)?.seconds ?? 0) - (a.threads.get(servicePid)?.seconds ?? 0);
  // Parser processes that ended were reaped by the service; live ones are summed from their own stats.
  const parserProcesses = b.serviceChildren - a.serviceChildren + b.parsers - a.parsers;
  const postgres = b.postgres - a.postgres;
  return {
    mainThread: r(mainThread),
    threads: Object.fromEntries(
      Object.entries(threads)
        .filter(([, s]) => s >= 0.005)
        .sort((x, y) => y[1] - x[1])
        .map(([k, s]) => [k, r(s)]),
    ),
    parserProcesses: r(parserProcesses),
    postgres: r(postgres),
    total: r(ownDelta + parserProcesses + postgres),
  };
}
