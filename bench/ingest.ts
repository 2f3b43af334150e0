/**
 * Ingestion through the whole service (embedded mode, as `npm start` runs it): start-up time cold and
 * warm, then documents per second for a few hundred small files of mixed formats, measured from the
 * upload's answer to the run's completion. Reference in the same run: parsing and chunking the same
 * files in this process, without the service (no HTTP, database, queue, index or sandbox).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseBytes } from '../packages/service/src/parsing/parse.js';
import { chunkText } from '../packages/service/src/processing/chunker.js';
import { makeDocx, makePdf } from '../packages/service/test/support/fixtures.js';
import { client } from '../packages/service/test/support/http.js';
import { embeddedDataDir, spawnServe, stopLeftoverPostgres } from '../packages/service/test/support/spawn.js';
import { describeMachine } from './machine.js';

const FILES = Number(process.env.BENCH_FILES ?? 300);
const KEY = 'bench-ingest-key-0123456789abcdef';

function corpus(n: number) {
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

async function timeServe(dataDir: string, env: Record<string, string>) {
  const s = await spawnServe(dataDir, env);
  return s;
}

async function main() {
  const files = corpus(FILES);

  // Reference: the same work without the service.
  const r0 = performance.now();
  let chunks = 0;
  for (const f of files)
    chunks += chunkText((await parseBytes(f.content, f.name, f.type)).text, 'doc_ref').length;
  const referenceMs = performance.now() - r0;

  const results: Record<string, unknown>[] = [];
  // The default, and a fresh parser process for every document (as before issue 7's change).
  const runs = [1, 2].flatMap((concurrency) => [20, 1].map((perProcess) => ({ concurrency, perProcess })));
  for (const { concurrency, perProcess } of runs) {
    const dataDir = await embeddedDataDir();
    const env = {
      SERVICE_BOOTSTRAP_API_KEY: KEY,
      WORKER_DOC_CONCURRENCY: String(concurrency),
      PARSER_DOCUMENTS_PER_PROCESS: String(perProcess),
      LOG_LEVEL: 'warn',
    };
    try {
      const cold = await timeServe(dataDir, env);
      await cold.stop();
      const serve = await timeServe(dataDir, env);
      const api = client(serve.url, KEY);
      const u0 = performance.now();
      const up = await api.upload(files);
      const uploadMs = performance.now() - u0;
      const p0 = performance.now();
      const done = await api.waitForRun(up.body.run.id, 600_000);
      const processMs = performance.now() - p0;
      await serve.stop();
      results.push({
        workerDocConcurrency: concurrency,
        parserDocumentsPerProcess: perProcess,
        coldStartMs: cold.startMs,
        warmStartMs: serve.startMs,
        uploadMs: Math.round(uploadMs),
        processMs: Math.round(processMs),
        documentsPerSecond: Number((FILES / (processMs / 1000)).toFixed(1)),
        ready: done.counts.ready,
        ratioToReference: Number((processMs / referenceMs).toFixed(2)),
      });
    } finally {
      stopLeftoverPostgres(dataDir);
    }
  }
  const report = {
    benchmark: 'ingest',
    files: FILES,
    chunks,
    reference: {
      what: 'parse + chunk in process, sequential',
      ms: Math.round(referenceMs),
      documentsPerSecond: Number((FILES / (referenceMs / 1000)).toFixed(1)),
    },
    runs: results,
    machine: describeMachine(),
  };
  const out = path.join(import.meta.dirname, 'results');
  await writeFile(path.join(out, 'ingest.json'), `${JSON.stringify(report, null, 2)}\n`);
  const md = [
    `# Ingestion benchmark (${report.machine.date.slice(0, 10)})`,
    '',
    `${FILES} small files (Markdown, text, 2-page PDF, DOCX in equal parts), one upload, embedded mode.`,
    `Reference: parse + chunk of the same files in one process, ${report.reference.ms} ms (${report.reference.documentsPerSecond} docs/s).`,
    '',
    '| WORKER_DOC_CONCURRENCY | PARSER_DOCUMENTS_PER_PROCESS | cold start | warm start | upload | processing | docs/s | ratio to reference |',
    '|---|---|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.workerDocConcurrency} | ${r.parserDocumentsPerProcess} | ${r.coldStartMs} ms | ${r.warmStartMs} ms | ${r.uploadMs} ms | ${r.processMs} ms | ${r.documentsPerSecond} | ${r.ratioToReference} |`,
    ),
    '',
    `Machine: ${report.machine.cpus} × ${report.machine.cpuModel}, ${report.machine.memoryGiB} GiB, ${report.machine.node}, load ${report.machine.loadAverage1m.toFixed(2)} at start.`,
    '',
  ].join('\n');
  await writeFile(path.join(out, 'ingest.md'), md);
  process.stdout.write(md);
}

await main();
