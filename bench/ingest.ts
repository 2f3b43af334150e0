/**
 * Ingestion through the whole service (embedded mode, as `npm start` runs it), two cases:
 *
 * - mixed: a few hundred small files of mixed formats (Markdown, text, 2-page PDF, DOCX) in one
 *   upload; start-up time cold and warm, then documents per second from the upload's answer to the
 *   run's completion.
 * - scifact: the SciFact abstracts (5,183, from the shared data folder) as text files, uploaded 500 per
 *   request into one workspace, one request after the other, as a new user would: documents per
 *   second from the first request to the completion of every run.
 *
 * Both with WORKER_DOC_CONCURRENCY 1 and 2, and for both the time from the first request until a search
 * finds a document. Reference in the same run: parsing and chunking the same files in this process,
 * without the service (no HTTP, database, queue, index or sandbox), once as the service's first pass
 * (cold) and once more (warm).
 *
 * Options: --cases mixed,scifact; --concurrency 1,2; --files N (mixed, default 300);
 * --scifact-files N (default all); --env KEY=VALUE (service setting, repeatable); --label NAME
 * (results file name, default ingest).
 */

import { readFileSync } from 'node:fs';
import { parseBytes } from '../packages/service/src/parsing/parse.js';
import { chunkText } from '../packages/service/src/processing/chunker.js';
import { makeDocx, makePdf } from '../packages/service/test/support/fixtures.js';
import { client } from '../packages/service/test/support/http.js';
import { embeddedDataDir, spawnServe, stopLeftoverPostgres } from '../packages/service/test/support/spawn.js';
import { cpuSnapshot, cpuSpent } from './lib/cpu.js';
import { dataDir, loadSciFact } from './lib/data.js';
import { indexFootprint } from './lib/index-state.js';
import { parseBenchArgs, writeResults } from './lib/results.js';
import { describeMachine } from './machine.js';

const { env: extraEnv, opts } = parseBenchArgs(process.argv.slice(2));
const CASES = (opts.cases ?? 'mixed,scifact').split(',');
const CONCURRENCIES = (opts.concurrency ?? '1,2').split(',').map(Number);
const MIXED_FILES = Number(opts.files ?? process.env.BENCH_FILES ?? 300);
const SCIFACT_FILES = opts['scifact-files'] ? Number(opts['scifact-files']) : undefined;
const LABEL = opts.label ?? 'ingest';
const KEY = 'bench-ingest-key-0123456789abcdef';
const METRICS_SECRET = 'bench-ingest-metrics';
const log = (s: string) => process.stdout.write(`${s}\n`);
const round = (n: number, d = 1) => Number(n.toFixed(d));

interface File {
  name: string;
  content: Buffer;
  type: string;
}

function mixedCorpus(n: number): File[] {
  const sentence = (i: number, j: number) =>
    `Item ${i}.${j} records that shipment ${i * 31 + j} left the depot on time.`;
  return Array.from({ length: n }, (_, i) => {
    const body = Array.from({ length: 12 }, (_, j) => sentence(i, j)).join(' ');
    switch (i % 4) {
      case 0:
        return {
          name: `note-${i}.md`,
          content: Buffer.from(`# Note ${i}\n\n${body}\n\n## Details\n\n${body}`),
          type: 'text/markdown',
        };
      case 1:
        return { name: `log-${i}.txt`, content: Buffer.from(`${body}\n\n${body}`), type: 'text/plain' };
      case 2:
        return { name: `report-${i}.pdf`, content: makePdf([body, body]), type: 'application/pdf' };
      default:
        return {
          name: `memo-${i}.docx`,
          content: makeDocx([`# Memo ${i}`, body, '## More', body]),
          type: 'application/octet-stream',
        };
    }
  });
}

function scifactCorpus(limit: number | undefined): File[] {
  const docs = loadSciFact(dataDir()).corpus.slice(0, limit);
  return docs.map((d) => ({
    name: `scifact-${d.id}.txt`,
    content: Buffer.from(`${d.title}\n\n${d.text}\n`),
    type: 'text/plain',
  }));
}

/** Parse + chunk of every file in this process, one after the other. */
async function reference(files: File[]): Promise<{ ms: number; chunks: number }> {
  const t0 = performance.now();
  let chunks = 0;
  for (const f of files)
    chunks += chunkText((await parseBytes(f.content, f.name, f.type)).text, 'doc_ref').length;
  return { ms: performance.now() - t0, chunks };
}

/** Sums of the worker's stage histogram and the parser processes it started, from /metrics. */
async function workerFigures(url: string) {
  const text = await (
    await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_SECRET}` } })
  ).text();
  const stage = (name: string) =>
    round(
      Number(
        new RegExp(`docslurp_document_stage_duration_seconds_sum\\{stage="${name}"\\} (\\S+)`).exec(
          text,
        )?.[1] ?? 0,
      ),
      2,
    );
  return {
    parsingSeconds: stage('parsing'),
    chunkingSeconds: stage('chunking'),
    indexingSeconds: stage('indexing'),
    parserProcesses: Number(/docslurp_parser_processes_started_total (\d+)/.exec(text)?.[1] ?? 0),
  };
}

interface Measured {
  case: string;
  workerDocConcurrency: number;
  files: number;
  requests: number;
  coldStartMs: number;
  warmStartMs: number;
  /** First request sent → first request answered. */
  firstUploadMs: number;
  /** First request sent → a search finds a document of the workspace. */
  firstSearchableMs: number;
  /** First request answered → every run done (what the mixed case reported before). */
  processMs: number;
  /** First request sent → every run done. */
  totalMs: number;
  ready: number;
  failed: number;
  documentsPerSecond: number;
  documentsPerSecondFromFirstAnswer: number;
  worker: Awaited<ReturnType<typeof workerFigures>>;
  /** CPU seconds from the first request to the end, by process and thread (Linux's /proc). */
  cpu: ReturnType<typeof cpuSpent>;
  index: Awaited<ReturnType<typeof indexFootprint>>;
}

async function measure(
  name: string,
  files: File[],
  perRequest: number,
  concurrency: number,
  probe: string,
): Promise<Measured> {
  const dir = await embeddedDataDir();
  const env = {
    SERVICE_BOOTSTRAP_API_KEY: KEY,
    WORKER_DOC_CONCURRENCY: String(concurrency),
    RATE_LIMIT_PER_MINUTE: '0',
    METRICS_SECRET,
    LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  try {
    const cold = await spawnServe(dir, env);
    await cold.stop();
    const serve = await spawnServe(dir, env);
    try {
      const api = client(serve.url, KEY);
      const pid = serve.child.pid!;
      const postmaster = Number(readFileSync(`${dir}/postgres/postmaster.pid`, 'utf8').split('\n')[0]);
      const cpu0 = cpuSnapshot(pid, postmaster);
      const t0 = performance.now();
      let firstAnswer = 0;
      let firstSearchable: Promise<number> | undefined;
      let workspaceId: string | undefined;
      const runs: string[] = [];
      for (let i = 0; i < files.length; i += perRequest) {
        const up = await api.upload(
          files.slice(i, i + perRequest),
          workspaceId ? { workspaceId } : undefined,
        );
        if (up.status !== 202) throw new Error(`upload answered ${up.status}: ${JSON.stringify(up.body)}`);
        runs.push(up.body.run.id);
        if (!workspaceId) {
          firstAnswer = performance.now();
          workspaceId = up.body.workspace.id as string;
          const ws = workspaceId;
          // Polls search with words every document of the case has, until one is found.
          firstSearchable = (async () => {
            for (;;) {
              const r = await api.post('/v1/search', { workspaceId: ws, q: probe, topK: 1 });
              if (r.status === 200 && r.body.results.length > 0) return performance.now() - t0;
              await new Promise((resolve) => setTimeout(resolve, 100));
            }
          })();
        }
      }
      let ready = 0;
      let failed = 0;
      for (const runId of runs) {
        const done = await api.waitForRun(runId, 3_600_000);
        ready += done.counts.ready;
        failed += done.counts.failed;
      }
      const end = performance.now();
      const cpu = cpuSpent(pid, cpu0, cpuSnapshot(pid, postmaster));
      const firstSearchableMs = await firstSearchable!;
      const worker = await workerFigures(serve.url);
      const index = await indexFootprint(`${dir}/index`, workspaceId!);
      const processMs = end - firstAnswer;
      const totalMs = end - t0;
      return {
        case: name,
        workerDocConcurrency: concurrency,
        files: files.length,
        requests: runs.length,
        coldStartMs: cold.startMs,
        warmStartMs: serve.startMs,
        firstUploadMs: Math.round(firstAnswer - t0),
        firstSearchableMs: Math.round(firstSearchableMs),
        processMs: Math.round(processMs),
        totalMs: Math.round(totalMs),
        ready,
        failed,
        documentsPerSecond: round(files.length / (totalMs / 1000)),
        documentsPerSecondFromFirstAnswer: round(files.length / (processMs / 1000)),
        worker,
        cpu,
        index,
      };
    } finally {
      await serve.stop();
    }
  } finally {
    stopLeftoverPostgres(dir);
  }
}

async function main() {
  const machine = describeMachine();
  const cases = [
    { name: 'mixed', files: () => mixedCorpus(MIXED_FILES), perRequest: 1000, probe: 'shipment depot' },
    {
      name: 'scifact',
      files: () => scifactCorpus(SCIFACT_FILES),
      perRequest: 500,
      // Words that nearly every abstract has: any document found is the first one searchable.
      probe: 'study patients cells results increased associated',
    },
  ].filter((c) => CASES.includes(c.name));
  const report: Record<string, unknown>[] = [];
  const runs: Measured[] = [];
  for (const c of cases) {
    const files = c.files();
    const cold = await reference(files);
    const warm = await reference(files);
    const ref = {
      case: c.name,
      files: files.length,
      chunks: cold.chunks,
      coldMs: Math.round(cold.ms),
      warmMs: Math.round(warm.ms),
      coldDocumentsPerSecond: round(files.length / (cold.ms / 1000)),
      warmDocumentsPerSecond: round(files.length / (warm.ms / 1000)),
    };
    report.push(ref);
    log(`${c.name}: ${files.length} files; reference ${ref.coldMs} ms cold, ${ref.warmMs} ms warm`);
    for (const concurrency of CONCURRENCIES) {
      const m = await measure(c.name, files, c.perRequest, concurrency, c.probe);
      runs.push(m);
      log(
        `  WORKER_DOC_CONCURRENCY=${concurrency}: ${m.documentsPerSecond} docs/s (first request → done, ${m.totalMs} ms), ` +
          `${m.documentsPerSecondFromFirstAnswer} from the first answer; first searchable after ${m.firstSearchableMs} ms; ` +
          `${m.ready} ready, ${m.failed} failed`,
      );
    }
  }
  const references = report as {
    case: string;
    coldMs: number;
    warmMs: number;
    files: number;
    chunks: number;
  }[];
  const refOf = (name: string) => references.find((r) => r.case === name)!;
  const json = {
    benchmark: 'ingest',
    settings: extraEnv,
    references,
    runs: runs.map((m) => ({
      ...m,
      ratioToReference: round(m.processMs / refOf(m.case).coldMs, 2),
      ratioToWarmReference: round(m.processMs / refOf(m.case).warmMs, 2),
    })),
    machine,
    loadAverage1mAtEnd: describeMachine().loadAverage1m,
  };
  const settings = Object.entries(extraEnv)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  const md = [
    `# Ingestion benchmark (${machine.date.slice(0, 10)})`,
    '',
    settings ? `Settings besides the defaults: ${settings}.` : 'Default settings.',
    '',
    'Embedded mode (`docslurp serve`: server and worker in one process), a fresh data folder per row.',
    '',
    ...references.map(
      (r) =>
        `- **${r.case}**: ${r.files} files, ${r.chunks} chunks. Reference (parse + chunk in this process, one after the other): ${r.coldMs} ms on the first pass (${round(r.files / (r.coldMs / 1000))} docs/s), ${r.warmMs} ms on the second (${round(r.files / (r.warmMs / 1000))} docs/s).`,
    ),
    '',
    'Times from the first upload request. *Processing*: from its answer to the end of every run, divided by the',
    "reference's first pass for the ratio (as before issue 17); *docs/s*: files over the time from the first request.",
    '',
    '| case | WORKER_DOC_CONCURRENCY | requests | first answer | first searchable | processing | total | docs/s | ratio to reference (cold / warm) | parse / index stage sums | parser processes | index versions, fragments, files |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...json.runs.map(
      (r) =>
        `| ${r.case} | ${r.workerDocConcurrency} | ${r.requests} | ${r.firstUploadMs} ms | ${r.firstSearchableMs} ms | ${r.processMs} ms | ${r.totalMs} ms | ${r.documentsPerSecond} | ${r.ratioToReference} / ${r.ratioToWarmReference} | ${r.worker.parsingSeconds} s / ${r.worker.indexingSeconds} s | ${r.worker.parserProcesses} | ${r.index.versions}, ${r.index.fragments}, ${r.index.files} |`,
    ),
    '',
    "CPU seconds from the first request to the end (`/proc`): the service's main thread, its other threads by name, its parser processes, PostgreSQL.",
    '',
    ...json.runs.map(
      (r) =>
        `- ${r.case}, ${r.workerDocConcurrency}: ${r.cpu.total} s in all (${round((r.cpu.total / r.files) * 1000, 2)} ms a document): main thread ${r.cpu.mainThread} s; ${Object.entries(
          r.cpu.threads,
        )
          .map(([k, v]) => `${k} ${v} s`)
          .join(', ')}; parser processes ${r.cpu.parserProcesses} s; PostgreSQL ${r.cpu.postgres} s.`,
    ),
    '',
    `Cold and warm start of the service (data folder created, then reused): ${json.runs.map((r) => `${r.coldStartMs} / ${r.warmStartMs} ms`).join('; ')}.`,
    '',
    `Machine: ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB} GiB, ${machine.node}; load ${machine.loadAverage1m.toFixed(2)} at the start, ${json.loadAverage1mAtEnd.toFixed(2)} at the end (shared with other work).`,
    '',
  ].join('\n');
  writeResults(LABEL, json, md);
  process.stdout.write(md);
}

await main();
