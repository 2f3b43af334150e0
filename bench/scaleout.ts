/**
 * Scale-out: the stack's processes as separate programs on this machine (`migrate`, one `server`, N
 * `worker`s of the built CLI) against the machine's PostgreSQL and the S3 test server on loopback,
 * with `--documents` small documents (2,000) uploaded
 *
 *   (a) into one workspace, and (b) spread over 8 workspaces,
 *
 * for N in `--workers` (1,2,4), then the same for N ≥ 2 with one worker killed with `kill -9` once
 * a third of the documents are ready. Reported: documents per second (first upload to last run
 * finished) and the ratio to N = 1 of the same layout, index commit retries (the workers' /metrics),
 * and the reconcilers' cost (documents they sent again). Checked exactly, for every case:
 *
 * - every document ready;
 * - each processed once: attempts = 1, except documents of the killed worker's batch;
 * - the chunk counts add up to the index's rows, overall and for each document; no row id twice;
 * - every document found by a word of its own (its first search hit);
 * - every worker took a share (processed_by).
 *
 * A failed check fails the program. Options: --documents N, --workers 1,2,4, --kill true|false,
 * --layouts 1,8 (workspaces),
 * --label NAME (results file, default scaleout). Needs PostgreSQL at DATABASE_URL (default the
 * machine's) and `npm run build` (npm run bench:scaleout does it).
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import { LanceSearchIndex } from '../packages/service/src/adapters/index/lancedb.js';
import { client } from '../packages/service/test/support/http.js';
import {
  baseEnv,
  freePort,
  type RunningProcess,
  runCli,
  startCli,
  waitForHealth,
} from '../packages/service/test/support/processes.js';
import { startS3Server } from '../packages/service/test/support/s3.js';
import { fixed, parseBenchArgs, writeResults } from './lib/results.js';
import { describeMachine } from './machine.js';

const { opts } = parseBenchArgs(process.argv.slice(2));
const DOCUMENTS = Number(opts.documents ?? 2000);
const WORKER_COUNTS = (opts.workers ?? '1,2,4').split(',').map(Number);
const KILL = (opts.kill ?? 'true') === 'true';
const LAYOUTS = (opts.layouts ?? '1,8').split(',').map(Number);
const LABEL = opts.label ?? 'scaleout';
const ADMIN = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const KEY = `dsk_${randomBytes(20).toString('hex')}`;
const METRICS = randomBytes(12).toString('hex');
// Uploads of up to 100 files, at least two per workspace so that layout (b) fills all eight.
const UPLOAD_FILES = Math.max(1, Math.min(100, Math.ceil(DOCUMENTS / 16)));
const log = (s: string) => process.stdout.write(`${s}\n`);

interface Case {
  workers: number;
  workspaces: number;
  kill: boolean;
}

interface Outcome extends Case {
  seconds: number;
  docsPerSecond: number;
  commitRetries: number;
  commits: number;
  /**
   * The slowest index commit, bounded by the histogram bucket it fell in: "≤ 2.5" (seconds), or
   * "> 10" when it took longer than the largest bucket.
   */
  slowestCommit: string;
  reconcileSent: number;
  killedBatch: number;
  shares: Record<string, number>;
  checks: string[];
}

async function sql<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(text, values)).rows;
  } finally {
    await c.end();
  }
}

function check(ok: boolean, what: string, failures: string[]): void {
  if (!ok) failures.push(what);
}

/** One sample of the text exposition format, summed over its label sets. */
function metric(text: string, name: string): number {
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`))
    .reduce((n, l) => n + Number(l.split(' ').at(-1)), 0);
}

async function runCase(c: Case): Promise<Outcome> {
  const db = `bench_so_${randomBytes(4).toString('hex')}`;
  const url = new URL(ADMIN);
  url.pathname = `/${db}`;
  const s3 = await startS3Server({ createBucket: false });
  await sql(ADMIN, `CREATE DATABASE ${db}`);
  const port = await freePort();
  const server = `http://127.0.0.1:${port}`;
  const env = {
    ...baseEnv(),
    ...s3.env,
    NODE_ENV: 'production',
    WORKFLOW_NAMESPACE: 'service',
    DATABASE_URL: url.toString(),
    SERVER_BIND_ADDRESS: '127.0.0.1',
    SERVER_PORT: String(port),
    SERVICE_BOOTSTRAP_API_KEY: KEY,
    METRICS_SECRET: METRICS,
    RATE_LIMIT_PER_MINUTE: '0',
    // A killed worker's documents wait for their lease to lapse: keep that short for the benchmark.
    DOCUMENT_LEASE_SECONDS: '10',
    RECONCILE_INTERVAL_SECONDS: '2',
    LOG_LEVEL: 'info',
  };
  const processes: RunningProcess[] = [];
  const failures: string[] = [];
  try {
    const migrated = await runCli(['migrate'], env);
    if (migrated.code !== 0) throw new Error(`migrate failed:\n${migrated.output}`);
    processes.push(startCli('server', ['server'], env));
    const workerPorts: number[] = [];
    for (let i = 0; i < c.workers; i++) {
      const wp = await freePort();
      workerPorts.push(wp);
      processes.push(startCli(`worker-${i}`, ['worker'], { ...env, WORKER_HTTP_PORT: String(wp) }));
    }
    await waitForHealth(server, 60_000);
    const workers = processes.slice(1);
    const ids: string[] = [];
    for (const w of workers)
      ids.push(
        (JSON.parse(await w.waitFor(/"msg":"worker started"/, 60_000)) as { workerId: string }).workerId,
      );

    const api = client(server, KEY);
    const t0 = performance.now();
    const workspaces: string[] = [];
    const runs: string[] = [];
    // Each document carries a word of its own, to be found by later.
    const word = (i: number) => `zq${i.toString(36)}x${(i * 7919).toString(36)}`;
    for (let start = 0, n = 0; start < DOCUMENTS; start += UPLOAD_FILES, n++) {
      const files = [];
      for (let i = start; i < Math.min(DOCUMENTS, start + UPLOAD_FILES); i++)
        files.push({
          name: `doc-${i}.md`,
          content: `# Document ${i}\n\nThis short note is number ${i}. Its own word is ${word(i)}.\n\nIt says a little more, so that it makes a chunk of ordinary size about items ${i % 13} and ${i % 17}.\n`,
        });
      const target = n % c.workspaces;
      const up = await api.upload(files, workspaces[target] ? { workspaceId: workspaces[target] } : {});
      if (up.status !== 202) throw new Error(`upload: ${up.status} ${JSON.stringify(up.body)}`);
      workspaces[target] ??= up.body.workspace.id;
      runs.push(up.body.run.id);
    }

    let killedBatch: string[] = [];
    let killedAt: Date | undefined;
    if (c.kill) {
      // Once a third are ready, kill -9 a worker that holds documents at that moment.
      let victim = -1;
      for (;;) {
        const rows = await sql<{ ready: number; holder: string | null }>(
          url.toString(),
          `SELECT (SELECT count(*)::int FROM documents WHERE status = 'ready') AS ready,
                  (SELECT lease_owner FROM documents WHERE status = 'processing' AND lease_expires_at > now()
                   LIMIT 1) AS holder`,
        );
        const { ready = 0, holder = null } = rows[0] ?? {};
        victim = ids.indexOf(holder ?? '');
        if (ready >= DOCUMENTS / 3 && victim >= 0) break;
        if (ready >= DOCUMENTS) throw new Error('every document was ready before a worker could be killed');
        await new Promise((r) => setTimeout(r, 50));
      }
      killedAt = new Date();
      workers[victim]!.child.kill('SIGKILL');
      await workers[victim]!.exited;
      killedBatch = (
        await sql<{ id: string }>(
          url.toString(),
          `SELECT id FROM documents WHERE status = 'processing' AND lease_owner = $1`,
          [ids[victim]],
        )
      ).map((r) => r.id);
      log(`  killed worker ${victim} (${ids[victim]}) holding ${killedBatch.length} documents`);
    }
    for (const run of runs) await api.waitForRun(run, 30 * 60_000);
    const seconds = (performance.now() - t0) / 1000;
    if (killedAt) {
      // What a kill costs: the documents' recovery (leases) apart from the runs' (their index fold).
      const [t] = await sql<{ documents: number; runs: number }>(
        url.toString(),
        `SELECT extract(epoch FROM (SELECT max(finished_at) FROM documents) - $1::timestamptz)::float8 AS documents,
                extract(epoch FROM (SELECT max(finished_at) FROM runs) - $1::timestamptz)::float8 AS runs`,
        [killedAt],
      );
      log(
        `  after the kill: last document finished at ${fixed(t!.documents, 1)} s, last run at ${fixed(t!.runs, 1)} s`,
      );
    }

    // Figures from the workers still running.
    let commitRetries = 0;
    let commits = 0;
    let slowest = 0;
    let largestBucket = 0;
    for (const [i, wp] of workerPorts.entries()) {
      if (workers[i]!.child.exitCode !== null || workers[i]!.child.signalCode !== null) continue;
      const text = await (
        await fetch(`http://127.0.0.1:${wp}/metrics`, { headers: { authorization: `Bearer ${METRICS}` } })
      ).text();
      commitRetries += metric(text, 'docslurp_index_commit_retries_total');
      commits += metric(text, 'docslurp_index_commit_duration_seconds_count');
      // The smallest bucket that holds every commit of this worker bounds its slowest one.
      const total = metric(text, 'docslurp_index_commit_duration_seconds_count');
      const buckets = text
        .split('\n')
        .map((l) => /^docslurp_index_commit_duration_seconds_bucket\{le="([^"]+)"\} (\d+)$/.exec(l))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => ({ le: m[1] === '+Inf' ? Number.POSITIVE_INFINITY : Number(m[1]), count: Number(m[2]) }));
      for (const b of buckets) if (Number.isFinite(b.le)) largestBucket = Math.max(largestBucket, b.le);
      const bound = buckets.find((b) => b.count === total)?.le;
      if (total > 0 && bound !== undefined) slowest = Math.max(slowest, bound);
    }
    const reconcileSent = workers
      .flatMap((w) => w.output().split('\n'))
      .filter((l) => l.includes('documents whose job may have been lost sent again'))
      .reduce((n, l) => n + ((JSON.parse(l) as { enqueued?: number }).enqueued ?? 0), 0);

    // The invariants.
    const docs = await sql<{
      id: string;
      workspace_id: string;
      status: string;
      attempts: number;
      chunk_count: number | null;
      processed_by: string | null;
    }>(url.toString(), 'SELECT id, workspace_id, status, attempts, chunk_count, processed_by FROM documents');
    check(docs.length === DOCUMENTS, `${docs.length} documents, expected ${DOCUMENTS}`, failures);
    const notReady = docs.filter((d) => d.status !== 'ready');
    check(notReady.length === 0, `${notReady.length} documents not ready`, failures);
    const killed = new Set(killedBatch);
    const twice = docs.filter((d) => !killed.has(d.id) && d.attempts !== 1);
    check(
      twice.length === 0,
      `${twice.length} documents outside the killed batch with attempts ≠ 1`,
      failures,
    );
    const index = new LanceSearchIndex(`s3://${s3.bucket}/lancedb`, {
      aws_region: 'us-east-1',
      aws_endpoint: s3.endpoint,
      allow_http: 'true',
      aws_access_key_id: s3.accessKeyId,
      aws_secret_access_key: s3.secretAccessKey,
    });
    try {
      let rows = 0;
      for (const ws of workspaces) {
        const mine = docs.filter((d) => d.workspace_id === ws);
        const expected = mine.reduce((n, d) => n + (d.chunk_count ?? 0), 0);
        const counted = await index.countRows(ws);
        rows += counted;
        check(
          counted === expected,
          `workspace ${ws}: ${counted} rows, chunk counts add up to ${expected}`,
          failures,
        );
        const per = await index.countRowsByDocument(
          ws,
          mine.map((d) => d.id),
        );
        const off = mine.filter((d) => per.get(d.id) !== d.chunk_count);
        check(
          off.length === 0,
          `workspace ${ws}: ${off.length} documents whose rows ≠ chunk count`,
          failures,
        );
        const seen = new Set<string>();
        let after: string | null = null;
        let listed = 0;
        for (;;) {
          const page = await index.listRows(ws, after, 1000);
          if (page.length === 0) break;
          for (const r of page) seen.add(r.id);
          listed += page.length;
          after = page.at(-1)!.id;
        }
        check(seen.size === listed && listed === counted, `workspace ${ws}: duplicate row ids`, failures);
      }
      const chunks = docs.reduce((n, d) => n + (d.chunk_count ?? 0), 0);
      check(rows === chunks, `${rows} index rows overall, chunk counts add up to ${chunks}`, failures);
    } finally {
      await index.close();
    }
    // Every document found by its own word (eight searches at a time).
    const byNumber = new Map(docs.map((d) => [d.id, d]));
    const fileOf = await sql<{ id: string; filename: string }>(
      url.toString(),
      'SELECT id, filename FROM documents',
    );
    let notFound = 0;
    const queue = [...fileOf];
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let d = queue.pop(); d; d = queue.pop()) {
          const i = Number(/doc-(\d+)\.md/.exec(d.filename)![1]);
          const r = await api.post('/v1/search', {
            workspaceId: byNumber.get(d.id)!.workspace_id,
            q: word(i),
            topK: 1,
          });
          if (r.body.results?.[0]?.citation?.documentId !== d.id) notFound++;
        }
      }),
    );
    check(notFound === 0, `${notFound} documents not found by their own word`, failures);
    const shares: Record<string, number> = {};
    for (const d of docs) if (d.processed_by) shares[d.processed_by] = (shares[d.processed_by] ?? 0) + 1;
    const idle = ids.filter((id) => !shares[id]);
    check(idle.length === 0, `${idle.length} workers took no share`, failures);

    return {
      ...c,
      seconds,
      docsPerSecond: DOCUMENTS / seconds,
      commitRetries,
      commits,
      slowestCommit: Number.isFinite(slowest) ? `≤ ${slowest}` : `> ${largestBucket}`,
      reconcileSent,
      killedBatch: killedBatch.length,
      shares: Object.fromEntries(ids.map((id, i) => [`worker-${i}`, shares[id] ?? 0])),
      checks: failures,
    };
  } finally {
    for (const p of processes) await p.stop(5000);
    await s3.close();
    await sql(ADMIN, `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
    await sql(ADMIN, `DROP DATABASE IF EXISTS ${db}_workflow WITH (FORCE)`);
  }
}

const cases: Case[] = [];
for (const workspaces of LAYOUTS) {
  for (const workers of WORKER_COUNTS) cases.push({ workers, workspaces, kill: false });
  if (KILL)
    for (const workers of WORKER_COUNTS.filter((n) => n >= 2))
      cases.push({ workers, workspaces, kill: true });
}
const outcomes: Outcome[] = [];
const load0 = os.loadavg()[0]!;
for (const c of cases) {
  log(`${c.workers} worker(s), ${c.workspaces} workspace(s)${c.kill ? ', one killed' : ''}:`);
  const o = await runCase(c);
  outcomes.push(o);
  log(
    `  ${fixed(o.docsPerSecond, 1)} docs/s, ${o.commitRetries} commit retries in ${o.commits} commits, ${o.reconcileSent} sent again by reconcilers; shares ${JSON.stringify(o.shares)}; ${o.checks.length ? `FAILED: ${o.checks.join('; ')}` : 'all checks hold'}`,
  );
}

const base = (o: Outcome) =>
  outcomes.find((x) => x.workers === 1 && x.workspaces === o.workspaces && !x.kill)?.docsPerSecond;
const machine = describeMachine();
const md = [
  `# Scale-out: ${DOCUMENTS} small documents, separate worker processes (${LABEL})`,
  '',
  '`npm run bench:scaleout` (bench/scaleout.ts): one server and N worker processes of the built CLI on',
  "this machine's PostgreSQL and the S3 test server (s3rver, patched) on loopback. docs/s from the first",
  'upload to the last run finished; the ratio is to one worker with the same layout. The slowest commit is',
  'bounded by its histogram bucket; the index keeps replaced versions for 60 s, which must stay above it.',
  '',
  '| workers | workspaces | killed | docs/s | ratio to N=1 | commit retries / commits | slowest commit (s) | sent again by reconcilers | killed batch | shares | checks |',
  '| ---: | ---: | :---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |',
  ...outcomes.map((o) => {
    const b = base(o);
    return `| ${o.workers} | ${o.workspaces} | ${o.kill ? 'yes' : 'no'} | ${fixed(o.docsPerSecond, 1)} | ${b ? fixed(o.docsPerSecond / b, 2) : 'n/a'} | ${o.commitRetries} / ${o.commits} | ${o.slowestCommit} | ${o.reconcileSent} | ${o.killedBatch} | ${Object.values(o.shares).join(', ')} | ${o.checks.length ? o.checks.join('; ') : 'all hold'} |`;
  }),
  '',
  `Machine: ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB} GiB, Node ${machine.node}; load average ${fixed(load0, 2)} at the start, ${machine.date}.`,
  'Every process (server, workers, PostgreSQL, the S3 server in the benchmark process) shares these cores:',
  'more workers than cores cannot go faster here; see docs/kubernetes.md for what the figures imply for a cluster.',
].join('\n');
for (const f of writeResults(
  LABEL,
  { documents: DOCUMENTS, outcomes, machine, loadAverageAtStart: load0 },
  md,
))
  log(`wrote ${f}`);
if (outcomes.some((o) => o.checks.length > 0)) {
  log('some checks failed');
  process.exit(1);
}
