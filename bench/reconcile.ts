/**
 * What the reconciler costs with a backlog: `--documents` (10,000) queued documents of one run, their
 * jobs in the job engine as an upload leaves them, and `--workers` (4) workers, each its own
 * connections and job-engine client as separate processes would have. Every worker runs its
 * reconcile pass once per simulated interval (`--passes`, 4, as their timers would), in three
 * situations:
 *
 * 1. fresh: the backlog was just queued (every job is in the engine);
 * 2. waited: the same backlog queued 10 minutes ago (workers busy elsewhere; every job still there);
 * 3. lost: every job gone from the engine (a restore, whose job database is new).
 *
 * Reported per interval (all workers together): documents sent to the job engine and the time the
 * passes took. `--src DIR` runs another version of the service's source (a checkout of an older
 * commit under node_modules/.cache, so that its imports resolve here), to compare before and after:
 *
 *   git archive <commit> packages/service | tar -x -C node_modules/.cache/reconcile-before
 *   npx tsx bench/reconcile.ts --src node_modules/.cache/reconcile-before/packages/service/src --label reconcile-before
 *
 * Needs PostgreSQL at DATABASE_URL (default the machine's, postgres://postgres@127.0.0.1:5432/postgres).
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { repoRoot } from './lib/data.js';
import { parseBenchArgs, writeResults } from './lib/results.js';
import { describeMachine } from './machine.js';

const { opts } = parseBenchArgs(process.argv.slice(2));
const DOCUMENTS = Number(opts.documents ?? 10_000);
const WORKERS = Number(opts.workers ?? 4);
const PASSES = Number(opts.passes ?? 4);
const LABEL = opts.label ?? 'reconcile';
const SRC = path.resolve(opts.src ?? path.join(repoRoot, 'packages/service/src'));
const ADMIN = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const log = (s: string) => process.stdout.write(`${s}\n`);

// biome-ignore lint/suspicious/noExplicitAny: modules of whichever version of the service --src names
const load = (file: string): Promise<any> => import(pathToFileURL(path.join(SRC, file)).href);
const { loadConfig } = await load('config.ts');
const { createDeps } = await load('deps.ts');
const { startWorker } = await load('processing/worker.ts');
const { runMigrations } = await load('adapters/postgres/migrate.ts');
const { PgBossQueue } = await load('adapters/queue/pgboss.ts');
const { createLogger } = await load('logger.ts');

const db = `bench_rec_${randomBytes(4).toString('hex')}`;
const on = (name: string) => {
  const u = new URL(ADMIN);
  u.pathname = `/${name}`;
  return u.toString();
};
const urls = { service: on(db), workflow: on(`${db}_workflow`) };
async function sql<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(text, values)).rows;
  } finally {
    await c.end();
  }
}

await sql(ADMIN, `CREATE DATABASE ${db}`);
await sql(ADMIN, `CREATE DATABASE ${db}_workflow`);
const workers: { reconcile(): Promise<{ enqueued: number }>; stop(): Promise<void> }[] = [];
// biome-ignore lint/suspicious/noExplicitAny: see above
const deps: any[] = [];
try {
  await runMigrations(urls.service, path.join(SRC, '..', 'migrations'), () => {});
  await sql(
    urls.service,
    `INSERT INTO workspaces (id, account_id, name) VALUES ('ws_bench', 'acc_default', 'bench');
     INSERT INTO runs (id, account_id, workspace_id, status) VALUES ('run_bench', 'acc_default', 'ws_bench', 'processing')`,
  );
  await sql(
    urls.service,
    `INSERT INTO documents (id, account_id, workspace_id, run_id, filename, size_bytes, sha256, storage_key, status)
     SELECT 'doc_' || lpad(i::text, 7, '0'), 'acc_default', 'ws_bench', 'run_bench', 'f' || i || '.txt', 10, 'x',
            'raw/doc_' || i, 'queued'
     FROM generate_series(1, $1) AS i`,
    [DOCUMENTS],
  );
  const config = loadConfig({
    DATABASE_URL: urls.service,
    WORKFLOW_DATABASE_URL: urls.workflow,
    DATA_DIR: path.join(repoRoot, 'node_modules', '.cache', 'bench-reconcile'),
    LOG_LEVEL: 'warn',
    PARSER_ISOLATION: 'auto',
  });
  const quiet = createLogger('warn');
  // The upload's side: one job per document, sent after the commit.
  const queue = new PgBossQueue({
    url: urls.workflow,
    namespace: 'service',
    pollIntervalSeconds: 1,
    onError() {},
  });
  const ids = (await sql<{ id: string }>(urls.service, 'SELECT id FROM documents ORDER BY id')).map(
    (r) => r.id,
  );
  // Versions before the typed enqueue (--src) sent documents with enqueueDocuments.
  if (queue.enqueueMany)
    await queue.enqueueMany(
      'processDocument',
      ids.map((documentId) => ({ documentId })),
    );
  else await queue.enqueueDocuments(ids);
  await queue.stop();

  for (let i = 0; i < WORKERS; i++) {
    const d = await createDeps(config, quiet, urls, { models: false });
    deps.push(d);
    let sent = 0;
    const jobs = d.jobs;
    const counting = new Proxy(jobs, {
      get(target, prop, receiver) {
        if (prop === 'enqueueMany')
          return async (name: string, payloads: unknown[], o?: unknown) => {
            if (name === 'processDocument') sent += payloads.length;
            return target.enqueueMany(name, payloads, o);
          };
        if (prop === 'enqueueDocuments')
          return async (docs: string[], o?: unknown) => {
            sent += docs.length;
            return target.enqueueDocuments(docs, o);
          };
        const v = Reflect.get(target, prop, receiver);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    // No document consumers (concurrency 0) and no timer of its own (an hour): only the passes below.
    const w = await startWorker({
      ...d,
      jobs: counting,
      concurrency: 0,
      batchDocuments: 1,
      batchMaxBytes: 1,
      syncConcurrency: 0,
      syncsPerAccount: 1,
      reconcileIntervalSeconds: 3600,
      leaseSeconds: 60,
      maxAttempts: 3,
    });
    workers.push({
      stop: () => w.stop(),
      reconcile: async () => {
        const before = sent;
        await w.reconcile();
        return { enqueued: sent - before };
      },
    });
  }
  // Let the passes their start ran settle before measuring.
  await new Promise((r) => setTimeout(r, 2000));

  const situations: { name: string; intervals: { sent: number; ms: number }[] }[] = [];
  const measure = async (name: string) => {
    const intervals = [];
    for (let p = 0; p < PASSES; p++) {
      const t0 = performance.now();
      const passes = await Promise.all(workers.map((w) => w.reconcile()));
      intervals.push({
        sent: passes.reduce((n, x) => n + x.enqueued, 0),
        ms: Math.round(performance.now() - t0),
      });
    }
    situations.push({ name, intervals });
    log(`${name}: ${intervals.map((i) => `${i.sent} sent in ${i.ms} ms`).join('; ')}`);
  };
  await measure('fresh backlog, jobs in the engine');
  await sql(urls.service, `UPDATE documents SET updated_at = now() - interval '10 minutes'`);
  await measure('backlog queued 10 minutes ago, jobs in the engine');
  await sql(urls.workflow, `DELETE FROM service.job WHERE name = 'process-document'`);
  await sql(
    urls.service,
    `UPDATE documents SET updated_at = now() - interval '1 minute', requeued_at = NULL`,
  ).catch(() => sql(urls.service, `UPDATE documents SET updated_at = now() - interval '1 minute'`));
  await measure('every job lost (a restore), queued 1 minute ago');

  const machine = describeMachine();
  const rows = situations.flatMap((s) =>
    s.intervals.map((i, n) => `| ${s.name} | ${n + 1} | ${i.sent} | ${i.ms} |`),
  );
  const md = [
    `# Reconciler cost: ${DOCUMENTS} queued documents, ${WORKERS} workers (${LABEL})`,
    '',
    `Source: \`${path.relative(repoRoot, SRC)}\`. Each interval, every worker runs its reconcile pass once`,
    '(as their timers would); figures are for all workers together. `npx tsx bench/reconcile.ts` (see its header).',
    '',
    '| situation | interval | documents sent to the job engine | time of the passes (ms) |',
    '| --- | ---: | ---: | ---: |',
    ...rows,
    '',
    `Machine: ${machine.cpus} × ${machine.cpuModel}, Node ${machine.node}, load ${machine.loadAverage1m.toFixed(2)}, ${machine.date}.`,
  ].join('\n');
  for (const f of writeResults(
    LABEL,
    { documents: DOCUMENTS, workers: WORKERS, src: SRC, situations, machine },
    md,
  ))
    log(`wrote ${f}`);
} finally {
  for (const w of workers) await w.stop().catch(() => {});
  for (const d of deps) await d.close().catch(() => {});
  await sql(ADMIN, `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
  await sql(ADMIN, `DROP DATABASE IF EXISTS ${db}_workflow WITH (FORCE)`);
}
