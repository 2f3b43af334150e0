/**
 * Ingestion and search at the same time for a while: one client uploads batches of documents into
 * a workspace of their own and waits for each run, while autocannon searches the large workspace.
 * The service's RSS is sampled throughout; memory is bounded when the last part of the run holds no
 * more than the middle part (a leak keeps climbing; caches and pools level off).
 */
import { existsSync, readFileSync } from 'node:fs';
import type { UploadFile } from '../lib/driver.js';
import { ServiceClient } from '../lib/driver.js';
import { searchService } from './search.js';
import { type RunningService, sampleRss, scrapeMetrics } from './service.js';

/** What LanceDB's caches hold in the service (its gauge), in MiB. */
async function searchIndexCacheMiB(url: string): Promise<number> {
  const m = /^docslurp_search_index_cache_bytes (\S+)$/m.exec(await scrapeMetrics(url));
  return Number((Number(m?.[1] ?? Number.NaN) / 2 ** 20).toFixed(1));
}

export async function soak(options: {
  service: RunningService;
  workspaceId: string;
  files: UploadFile[];
  batch: number;
  clients: number;
  seconds: number;
  /** JSON lines of process.memoryUsage() the service writes (bench/load/memory-probe.mjs), if any. */
  memoryLog?: string;
  log: (s: string) => void;
}) {
  const soakStart = Date.now();
  const { service } = options;
  const client = new ServiceClient(service.url, service.key);
  const indexCacheAtStart = await searchIndexCacheMiB(service.url);
  const rss = sampleRss(service.pid, 1000);
  // LanceDB's caches every 30 s, to tell their filling up from the rest of the native memory.
  const soakT0 = performance.now();
  const indexCacheSamples: [number, number][] = [[0, indexCacheAtStart]];
  const cacheTimer = setInterval(() => {
    searchIndexCacheMiB(service.url)
      .then((mib) => indexCacheSamples.push([Math.round(performance.now() - soakT0), mib]))
      .catch(() => {});
  }, 30_000);
  const end = Date.now() + options.seconds * 1000;
  let documents = 0;
  let failedDocuments = 0;
  const failures: unknown[] = [];
  let uploads = 0;
  const uploadErrors: string[] = [];
  const ingesting = (async () => {
    let workspaceId: string | undefined;
    let i = 0;
    while (Date.now() < end) {
      const batch = Array.from({ length: options.batch }, () => {
        const f = options.files[i++ % options.files.length]!;
        return { ...f, name: `soak-${i}-${f.name}` };
      });
      try {
        const up = await client.upload(batch, workspaceId);
        workspaceId = up.workspaceId;
        uploads++;
        const p = await client.waitForRun(up.runId, 30 * 60 * 1000);
        documents += p.counts.ready;
        failedDocuments += p.counts.total - p.counts.ready;
        if (p.failures?.length) failures.push(...p.failures);
      } catch (err) {
        uploadErrors.push((err as Error).message);
      }
    }
  })();
  const search = await searchService({
    url: service.url,
    pid: service.pid,
    key: service.key,
    workspaceId: options.workspaceId,
    clients: options.clients,
    seconds: options.seconds,
    topK: 10,
  });
  await ingesting;
  const samples = rss.stop();
  clearInterval(cacheTimer);
  const indexCacheMiB = await searchIndexCacheMiB(service.url);
  const mibs = samples.map((s) => s.mib);
  const part = (from: number, to: number) => {
    const xs = mibs.slice(Math.floor(mibs.length * from), Math.ceil(mibs.length * to));
    return xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  };
  const middle = part(0.4, 0.6);
  const last = part(0.8, 1);
  const round = (n: number) => Number(n.toFixed(1));
  const memory = options.memoryLog ? memorySplit(options.memoryLog, soakStart) : undefined;
  return {
    seconds: options.seconds,
    search,
    ingestion: {
      uploads,
      documents,
      failedDocuments,
      failures: failures.slice(0, 5),
      uploadErrors: uploadErrors.slice(0, 5),
    },
    indexCacheMiB: { start: indexCacheAtStart, end: indexCacheMiB, samples: indexCacheSamples },
    rssMiB: {
      start: round(mibs[0]!),
      peak: round(Math.max(...mibs)),
      end: round(mibs.at(-1)!),
      meanOfMiddleFifth: round(middle),
      meanOfLastFifth: round(last),
      bounded: last <= middle * 1.1,
    },
    memoryMiB: memory,
    rssSamples: samples.map((s) => [s.ms, round(s.mib)]),
  };
}

/** Heap and non-heap memory at the first and last probe sample taken during the soak. */
function memorySplit(file: string, since: number) {
  const lines = existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [];
  const xs = lines
    .filter(Boolean)
    .map(
      (l) =>
        JSON.parse(l) as {
          at: number;
          rss: number;
          heapUsed: number;
          heapTotal: number;
          external: number;
          arrayBuffers: number;
        },
    )
    .filter((x) => x.at >= since);
  if (xs.length < 2) return undefined;
  const pick = (f: (x: (typeof xs)[0]) => number) => [f(xs[0]!), f(xs.at(-1)!)];
  const r = (n: number) => Number(n.toFixed(1));
  return {
    heapUsed: pick((x) => x.heapUsed),
    heapTotal: pick((x) => x.heapTotal),
    outsideHeap: pick((x) => r(x.rss - x.heapTotal)),
    /** Memory of JavaScript objects held outside the heap (Buffers, Arrow results): ours, if it grew. */
    external: pick((x) => x.external),
    arrayBuffers: pick((x) => x.arrayBuffers),
  };
}
