/**
 * Large PDFs through one worker: the R manuals (Debian's r-doc-pdf) uploaded at once to a fresh
 * service with WORKER_DOC_CONCURRENCY=1, timed from the upload's answer to the run's end. Reference
 * in the same run: the parser the worker uses (`parseBytes`, which the worker runs in its sandboxed
 * child), in this process after one untimed warm-up parse, file after file.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseBytes } from '../../packages/service/src/parsing/parse.js';
import { ServiceClient } from '../lib/driver.js';
import { type RunningService, scrapeMetrics } from './service.js';

/**
 * Where the worker's time went (the sums of the per-stage histogram the service exports), and how
 * many sandboxed parser processes it started for the documents.
 */
async function workerFigures(url: string) {
  const text = await scrapeMetrics(url);
  const stages: Record<string, number> = {};
  for (const m of text.matchAll(/^docslurp_document_stage_duration_seconds_sum\{stage="(\w+)"\} (\S+)$/gm)) {
    stages[m[1]!] = Number(m[2]);
  }
  const processes = Number(/^docslurp_parser_processes_started_total (\d+)$/m.exec(text)?.[1]);
  return { stages, processes };
}

export async function pdfIngestion(files: string[], start: () => Promise<RunningService>) {
  const contents = await Promise.all(files.map((f) => readFile(f)));
  // Warm-up: load the PDF library and let the JIT see it once, so the reference is the parse alone.
  const smallest = contents.reduce((a, b) => (b.length < a.length ? b : a));
  await parseBytes(smallest, 'warm-up.pdf', 'application/pdf');
  let pages = 0;
  const perFile: { file: string; pages: number; parseMs: number }[] = [];
  const r0 = performance.now();
  for (const [i, buf] of contents.entries()) {
    const f0 = performance.now();
    const parsed = await parseBytes(buf, path.basename(files[i]!), 'application/pdf');
    const n = parsed.pageCount ?? 0;
    pages += n;
    perFile.push({ file: path.basename(files[i]!), pages: n, parseMs: Math.round(performance.now() - f0) });
  }
  const referenceMs = performance.now() - r0;

  const service = await start();
  try {
    const client = new ServiceClient(service.url, service.key);
    const form = new FormData();
    for (const [i, buf] of contents.entries()) {
      form.append('files', new Blob([buf], { type: 'application/pdf' }), path.basename(files[i]!));
    }
    const res = await fetch(`${service.url}/v1/ingest/bulk`, {
      method: 'POST',
      headers: { authorization: `Bearer ${service.key}` },
      body: form,
    });
    if (!res.ok) throw new Error(`upload of the PDFs → ${res.status}: ${await res.text()}`);
    const up = (await res.json()) as { run: { id: string } };
    const p0 = performance.now();
    const done = await client.waitForRun(up.run.id, 2 * 60 * 60 * 1000);
    const serviceMs = performance.now() - p0;
    const { stages, processes } = await workerFigures(service.url);
    const round = (n: number) => Number(n.toFixed(2));
    return {
      files: perFile,
      pages,
      megabytes: round(contents.reduce((n, b) => n + b.length, 0) / 2 ** 20),
      ready: done.counts.ready as number,
      failed: (done.counts.total - done.counts.ready) as number,
      failures: done.failures,
      service: { ms: Math.round(serviceMs), pagesPerSecondPerWorker: round(pages / (serviceMs / 1000)) },
      reference: { ms: Math.round(referenceMs), pagesPerSecond: round(pages / (referenceMs / 1000)) },
      ratioToReference: round(serviceMs / referenceMs),
      stageSeconds: Object.fromEntries(Object.entries(stages).map(([k, v]) => [k, round(v)])),
      parserProcesses: processes,
    };
  } finally {
    await service.stop();
  }
}
