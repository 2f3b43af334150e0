/**
 * npm run bench:load — the service under load on this machine, four parts (issue 7):
 *
 * - search: a workspace of 100,000 chunks built through the real pipeline (uploads over HTTP, the
 *   worker processes them), searched by concurrent clients (autocannon). Reference in the same run:
 *   the same full-text query straight on the workspace's LanceDB table from as many concurrent loops
 *   in another Node process, so the ratio of p50s is the service's own overhead (HTTP, auth, the
 *   database's ready filter, ranking, snippets).
 * - soak: ingestion and search together for five minutes: errors and the service's memory.
 * - pdf: pages per second of one worker on the R manuals against the parser alone.
 * - upload: a 1 GB file streamed to the upload endpoint while the server's RSS is sampled.
 *
 * The built workspace (its data folder under node_modules/.cache/docslurp-bench-load, or BENCH_CACHE_DIR,
 * and its databases) is kept and copied for each run, so re-runs skip the build and every run starts
 * from the same state.
 *
 * Options: --quick (everything scaled down), --parts search,soak,pdf,upload, --chunks N, --clients N,
 * --seconds N (per search measurement), --rounds N, --soak-seconds N, --soak-clients N,
 * --upload-mb N, --pdfs a.pdf,b.pdf (default: the R manuals under --pdf-dir, refman.pdf excluded),
 * --label NAME (results file name, default load or load-quick), --env KEY=VALUE (service setting),
 * --profile true (CPU profile of the search service's main thread, summarised into the results),
 * --allocator jemalloc|glibc (default: jemalloc when this machine has it, as the container image does).
 */
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_CACHE_SIZES } from '../packages/service/src/adapters/index/lancedb.js';
import { repoRoot } from './lib/data.js';
import { ServiceClient } from './lib/driver.js';
import { indexFootprint, waitForIndexed } from './lib/index-state.js';
import { parseBenchArgs, writeResults } from './lib/results.js';
import { buildCorpus, loadTexts } from './load/corpus.js';
import { pdfIngestion } from './load/pdf.js';
import { summarizeProfile } from './load/profile.js';
import { searchReference, searchService } from './load/search.js';
import {
  createDatabases,
  databaseExists,
  dropDatabases,
  type RunningService,
  rssKiB,
  startService,
} from './load/service.js';
import { soak } from './load/soak.js';
import { largeUpload } from './load/upload.js';
import { describeMachine } from './machine.js';

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const { env, opts } = parseBenchArgs(argv.filter((a) => a !== '--quick'));
// The container image runs the service on jemalloc (see the Dockerfile); measure the same where the
// machine has it (Debian: apt-get install libjemalloc2).
const jemalloc = ['x86_64', 'aarch64']
  .map((arch) => `/usr/lib/${arch}-linux-gnu/libjemalloc.so.2`)
  .find((lib) => existsSync(lib));
const allocator = opts.allocator ?? (jemalloc ? 'jemalloc' : 'glibc');
if (allocator === 'jemalloc') {
  if (!jemalloc)
    throw new Error('--allocator jemalloc: libjemalloc.so.2 not found (apt-get install libjemalloc2)');
  env.LD_PRELOAD ??= jemalloc;
}
const num = (name: string, full: number, small: number) => Number(opts[name] ?? (quick ? small : full));
const settings = {
  quick,
  parts: (opts.parts ?? 'search,soak,pdf,upload').split(','),
  chunks: num('chunks', 100_000, 5_000),
  chunksPerDocument: num('chunks-per-document', 100, 100),
  clients: num('clients', 16, 16),
  seconds: num('seconds', 30, 10),
  rounds: num('rounds', 2, 1),
  topK: num('top-k', 10, 10),
  soakSeconds: num('soak-seconds', 300, 30),
  soakClients: num('soak-clients', 4, 4),
  uploadMegabytes: num('upload-mb', 1024, 100),
  pdfDir: opts['pdf-dir'] ?? '/tmp/r-doc-pdf/usr/share/R/doc/manual',
  serviceEnv: env,
  allocator,
};
const label = opts.label ?? (quick ? 'load-quick' : 'load');
const log = (s: string) => process.stdout.write(`${s}\n`);
const serviceLog = (l: string) => log(`  [service] ${l}`);
const machine = describeMachine();
const KEY = 'dsk_bench_load_0123456789abcdef0123';
const round = (n: number, d = 2) => Number(n.toFixed(d));

// ---- the large workspace, built once -----------------------------------------------------------------

interface Built {
  workspaceId: string;
  documents: number;
  /** Documents the worker failed while building (with the service's reason). */
  failedDocuments: unknown[];
  plannedChunks: number;
  indexedRows: number;
  characters: number;
  buildSeconds: number;
  builtAt: string;
  /** The table on disk when every run was done, once its rows were all in the BM25 index, and at the end. */
  footprint: {
    runsDone: Footprint;
    indexed: Footprint;
    maintained: Footprint & { afterSeconds: number };
  };
}

type Footprint = Awaited<ReturnType<typeof indexFootprint>>;

// Beside the other tools' caches: git and Biome both leave node_modules alone, and it outlives /tmp.
const cacheRoot =
  process.env.BENCH_CACHE_DIR ?? path.join(repoRoot, 'node_modules/.cache/docslurp-bench-load');

async function buildWorkspace(): Promise<{ dir: string; database: string; built: Built }> {
  await mkdir(cacheRoot, { recursive: true });
  // The index format is part of the name: a workspace built by an older service lacks what the search
  // reads now (v2: rows carry their word codes), and would measure the slower path for old rows; v3:
  // built in batches, with the table's footprint in the manifest.
  const dir = path.join(cacheRoot, `load-v3-${settings.chunks}-${settings.chunksPerDocument}`);
  const database = `docslurp_bench_load_v3_${settings.chunks}_${settings.chunksPerDocument}`;
  const manifest = path.join(dir, 'manifest.json');
  if (existsSync(manifest) && (await databaseExists(database))) {
    const built = JSON.parse(await readFile(manifest, 'utf8')) as Built;
    log(`using the workspace built on ${built.builtAt} (${built.indexedRows} chunks) from ${dir}`);
    return { dir, database, built };
  }
  await rm(dir, { recursive: true, force: true });
  await dropDatabases(database);
  await createDatabases(database);
  await mkdir(path.join(dir, 'data'), { recursive: true });
  const { paragraphs } = loadTexts();
  const corpus = buildCorpus(paragraphs, settings.chunks, settings.chunksPerDocument);
  log(`building: ${corpus.files.length} documents, ${corpus.chunks} chunks, ${corpus.characters} characters`);
  const service = await startService({
    dataDir: path.join(dir, 'data'),
    database,
    key: KEY,
    env: settings.serviceEnv,
    log: serviceLog,
  });
  const t0 = performance.now();
  let state: Awaited<ReturnType<typeof waitForIndexed>>;
  let workspaceId: string;
  let ready = 0;
  let footprint: Built['footprint'];
  const failures: unknown[] = [];
  try {
    const client = new ServiceClient(service.url, KEY);
    // Uploads everything, then waits for every run. A document the worker fails is counted and reported,
    // not fatal: the workspace is then a little under the planned size, which the report shows.
    const runs: string[] = [];
    let ws: string | undefined;
    for (let i = 0; i < corpus.files.length; i += 20) {
      const up = await client.upload(corpus.files.slice(i, i + 20), ws);
      ws = up.workspaceId;
      runs.push(up.runId);
    }
    workspaceId = ws!;
    for (const runId of runs) {
      const p = await client.waitForRun(runId, 4 * 60 * 60 * 1000);
      ready += p.counts.ready;
      failures.push(...p.failures);
      log(`  ${ready}/${corpus.files.length} documents ready, ${failures.length} failed`);
    }
    const indexUri = path.join(dir, 'data/index');
    const runsDone = await indexFootprint(indexUri, workspaceId);
    // The worker folds new rows into the BM25 index after a run; search is measured on that state.
    state = await waitForIndexed(indexUri, workspaceId, 15 * 60 * 1000);
    const indexed = await indexFootprint(indexUri, workspaceId);
    // Its maintenance keeps replaced versions for a minute, then comes back to remove them.
    const m0 = performance.now();
    let maintained = indexed;
    while (maintained.versions > 1 && performance.now() - m0 < 5 * 60 * 1000) {
      await new Promise((r) => setTimeout(r, 5000));
      maintained = await indexFootprint(indexUri, workspaceId);
    }
    footprint = {
      runsDone,
      indexed,
      maintained: { ...maintained, afterSeconds: Math.round((performance.now() - m0) / 1000) },
    };
    log(`  footprint: ${JSON.stringify(footprint)}`);
  } finally {
    await service.stop();
  }
  const built: Built = {
    workspaceId,
    documents: corpus.files.length,
    failedDocuments: failures,
    plannedChunks: corpus.chunks,
    indexedRows: state.rows,
    characters: corpus.characters,
    buildSeconds: Math.round((performance.now() - t0) / 1000),
    builtAt: new Date().toISOString(),
    footprint,
  };
  if (state.unindexed > 0) log(`warning: ${state.unindexed} rows still outside the BM25 index`);
  await writeFile(manifest, `${JSON.stringify(built, null, 2)}\n`);
  log(`built in ${built.buildSeconds} s: ${built.indexedRows} chunks indexed`);
  return { dir, database, built };
}

/** A fresh deployment (databases and data folder) for one part, removed afterwards. */
async function withFreshService<T>(
  name: string,
  extraEnv: Record<string, string>,
  fn: (start: () => Promise<RunningService>, dataDir: string) => Promise<T>,
  template?: { dataDir: string; database: string },
  nodeArgs: string[] = [],
): Promise<T> {
  const database = `docslurp_bench_load_${name}_${process.pid}`;
  const dataDir = await mkdtemp(path.join(os.tmpdir(), `docslurp-load-${name}-`));
  await createDatabases(database, template?.database);
  if (template) await cp(template.dataDir, dataDir, { recursive: true });
  try {
    return await fn(
      () =>
        startService({
          dataDir,
          database,
          key: KEY,
          env: { ...settings.serviceEnv, ...extraEnv },
          nodeArgs,
          log: serviceLog,
        }),
      dataDir,
    );
  } finally {
    await dropDatabases(database);
    await rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * Search as a member who may see a tenth of the workspace's documents (issue 39): nine in ten are
 * narrowed to a group the member is not in (one PATCH each, no reprocessing), and the same queries are
 * measured as the member (an act-as key naming them) and, alternating, as the whole account. Target:
 * the member's p50 at most 1.3 × the unrestricted one. The access is put back afterwards.
 */
async function restrictedSearch(service: RunningService, workspaceId: string) {
  const call = async (method: string, route: string, body?: unknown, onBehalfOf?: string) => {
    const res = await fetch(service.url + route, {
      method,
      headers: {
        authorization: `Bearer ${KEY}`,
        'content-type': 'application/json',
        ...(onBehalfOf ? { 'docslurp-on-behalf-of': onBehalfOf } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, unknown>>;
  };
  await call('POST', '/v1/groups', { name: 'Bench hidden' }).catch(() => undefined);
  await call('POST', '/v1/users', { email: 'bench-reader@example.com', role: 'reader' }).catch(
    () => undefined,
  );
  const documents = (await call('GET', `/v1/workspaces/${workspaceId}/documents`)).documents as {
    id: string;
  }[];
  const hidden = documents.filter((_, i) => i % 10 !== 0);
  const t0 = performance.now();
  for (const d of hidden)
    await call('PATCH', `/v1/documents/${d.id}`, { access: { groups: ['Bench hidden'] } });
  const patchSeconds = (performance.now() - t0) / 1000;
  log(
    `restricted search: ${hidden.length} of ${documents.length} documents hidden in ${patchSeconds.toFixed(1)} s`,
  );
  const rounds = [];
  try {
    // A fast answer that leaks would be no result: the member's hits must all be documents they see.
    const visible = new Set(documents.filter((_, i) => i % 10 === 0).map((d) => d.id));
    for (const q of loadTexts().queries.slice(0, 20)) {
      const { results } = (await call(
        'POST',
        '/v1/search',
        { workspaceId, q, topK: settings.topK },
        'bench-reader@example.com',
      )) as { results: { citation: { documentId: string } }[] };
      const leaked = results.find((hit) => !visible.has(hit.citation.documentId));
      if (leaked)
        throw new Error(`restricted search: the member got hidden document ${leaked.citation.documentId}`);
    }
    for (let r = 0; r < settings.rounds; r++) {
      const measure = (onBehalfOf?: string) =>
        searchService({
          url: service.url,
          pid: service.pid,
          key: KEY,
          workspaceId,
          clients: settings.clients,
          seconds: settings.seconds,
          topK: settings.topK,
          onBehalfOf,
        });
      // The second of two measurements runs on caches the first warmed (it came out 15-30 % faster
      // in either role), so the order alternates between rounds.
      const memberFirst = r % 2 === 0;
      log(
        `restricted search round ${r + 1}: ${memberFirst ? 'as the member, then as the account' : 'as the account, then as the member'}`,
      );
      const first = await measure(memberFirst ? 'bench-reader@example.com' : undefined);
      const second = await measure(memberFirst ? undefined : 'bench-reader@example.com');
      const [member, whole] = memberFirst ? [first, second] : [second, first];
      log(`  member ${JSON.stringify(member)}\n  account ${JSON.stringify(whole)}`);
      rounds.push({ memberFirst, member, account: whole, p50Ratio: round(member.p50Ms / whole.p50Ms) });
    }
  } finally {
    for (const d of hidden) await call('PATCH', `/v1/documents/${d.id}`, { access: null });
  }
  const ratios = rounds.map((r) => r.p50Ratio).sort((a, b) => a - b);
  const middle = (ratios.length - 1) / 2;
  return {
    documents: documents.length,
    visibleDocuments: documents.length - hidden.length,
    accessChangeSeconds: round(patchSeconds),
    rounds,
    medianP50Ratio: round((ratios[Math.floor(middle)]! + ratios[Math.ceil(middle)]!) / 2),
    target: 1.3,
  };
}

// ---- the parts ------------------------------------------------------------------------------------

const results: Record<string, unknown> = {};

if (settings.parts.includes('search') || settings.parts.includes('soak')) {
  const { dir, database, built } = await buildWorkspace();
  results.workspace = built;
  const profileDir =
    opts.profile === 'true' ? await mkdtemp(path.join(os.tmpdir(), 'docslurp-load-prof-')) : undefined;
  // The service appends its memory split (JS heap vs the rest) here, for the soak's report.
  const memoryLog = path.join(await mkdtemp(path.join(os.tmpdir(), 'docslurp-load-mem-')), 'memory.jsonl');
  await withFreshService(
    'search',
    { DOCSLURP_BENCH_MEMORY_LOG: memoryLog },
    async (start, dataDir) => {
      const service = await start();
      try {
        const client = new ServiceClient(service.url, KEY);
        // Warm-up: open the table, load the index, fill the pools.
        const { queries } = loadTexts();
        for (const q of queries.slice(0, 50))
          await client.search({ workspaceId: built.workspaceId, q, topK: 10 });
        if (settings.parts.includes('search')) {
          const rounds = [];
          for (let r = 0; r < settings.rounds; r++) {
            log(`search round ${r + 1}: service, ${settings.clients} clients, ${settings.seconds} s`);
            const svc = await searchService({
              url: service.url,
              pid: service.pid,
              key: KEY,
              workspaceId: built.workspaceId,
              clients: settings.clients,
              seconds: settings.seconds,
              topK: settings.topK,
            });
            log(`  ${JSON.stringify(svc)}`);
            log(`search round ${r + 1}: LanceDB reference`);
            const ref = await searchReference({
              indexUri: path.join(dataDir, 'index'),
              table: built.workspaceId.replaceAll(':', '_'),
              clients: settings.clients,
              seconds: settings.seconds,
              // The candidate count the service asks the index for (search.ts: max(60, 2 × topK)).
              limit: Math.max(60, settings.topK * 2),
            });
            log(`  ${JSON.stringify(ref)}`);
            rounds.push({ service: svc, reference: ref, p50Ratio: round(svc.p50Ms / ref.p50Ms) });
          }
          const p50Ratios = rounds.map((r) => r.p50Ratio).sort((a, b) => a - b);
          const middle = (p50Ratios.length - 1) / 2;
          results.search = {
            clients: settings.clients,
            secondsPerMeasurement: settings.seconds,
            topK: settings.topK,
            rounds,
            medianP50Ratio: round((p50Ratios[Math.floor(middle)]! + p50Ratios[Math.ceil(middle)]!) / 2),
            target: 1.2,
          };
          results.restrictedSearch = await restrictedSearch(service, built.workspaceId);
        }
        if (settings.parts.includes('soak')) {
          log(`soak: ${settings.soakSeconds} s of ingestion and search (${settings.soakClients} clients)`);
          const { paragraphs } = loadTexts();
          const small = buildCorpus(paragraphs, 2_000, 10);
          const s = await soak({
            service,
            workspaceId: built.workspaceId,
            files: small.files,
            batch: 10,
            clients: settings.soakClients,
            seconds: settings.soakSeconds,
            memoryLog,
            log,
          });
          log(`  ${JSON.stringify({ ...s, rssSamples: undefined })}`);
          results.soak = s;
        }
      } finally {
        await service.stop();
      }
    },
    { dataDir: path.join(dir, 'data'), database },
    [
      '--import',
      path.join(repoRoot, 'bench/load/memory-probe.mjs'),
      ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
    ],
  );
  await rm(path.dirname(memoryLog), { recursive: true, force: true });
  if (profileDir) {
    results.profile = { covers: 'the search service from start to stop', ...summarizeProfile(profileDir) };
    await rm(profileDir, { recursive: true, force: true });
  }
}

if (settings.parts.includes('pdf')) {
  const files = opts.pdfs
    ? opts.pdfs.split(',')
    : (await readdir(settings.pdfDir))
        .filter((f) => f.endsWith('.pdf') && f !== 'refman.pdf' && f !== 'fullrefman.pdf')
        .filter((f) => !quick || f === 'R-FAQ.pdf' || f === 'R-data.pdf')
        .sort()
        .map((f) => path.join(settings.pdfDir, f));
  if (files.length === 0) {
    throw new Error(
      `no PDFs in ${settings.pdfDir}: cd /tmp && apt-get download r-doc-pdf && dpkg-deb -x ...`,
    );
  }
  log(`pdf: ${files.length} files through one worker`);
  results.pdf = await withFreshService('pdf', { WORKER_DOC_CONCURRENCY: '1' }, (start) =>
    pdfIngestion(files, start),
  );
  log(`  ${JSON.stringify(results.pdf)}`);
}

if (settings.parts.includes('upload')) {
  const bytes = settings.uploadMegabytes * 2 ** 20;
  log(`upload: ${settings.uploadMegabytes} MiB streamed`);
  results.upload = await withFreshService(
    'upload',
    { UPLOAD_MAX_FILE_BYTES: String(bytes + 2 ** 20) },
    async (start) => {
      const service = await start();
      try {
        // Let start-up settle so the baseline is the idle server, not a process still loading.
        await new Promise((r) => setTimeout(r, 3000));
        log(`  server RSS before: ${(rssKiB(service.pid) / 1024).toFixed(1)} MiB`);
        return { ...(await largeUpload(service, bytes)), targetGrowthMiB: 100 };
      } finally {
        await service.stop();
      }
    },
  );
  log(`  ${JSON.stringify({ ...(results.upload as object), rssSamples: undefined })}`);
}

// ---- report ---------------------------------------------------------------------------------------

const report = { benchmark: 'load', settings, machine, ...results };
writeResults(label, report, markdown());

/** RSS and LanceDB's caches at every minute of the soak (every fifth minute of a long one). */
function perMinute(s: Awaited<ReturnType<typeof soak>>) {
  const step = s.seconds > 900 ? 5 : 1;
  const at = (samples: number[][], ms: number) =>
    samples.filter(([t]) => (t ?? 0) <= ms + 5_000).at(-1)?.[1] ?? Number.NaN;
  const rows = [];
  for (let minute = 0; minute * 60 <= s.seconds; minute += step) {
    const ms = minute * 60_000;
    rows.push({
      minute,
      rss: Math.round(at(s.rssSamples, ms)),
      cache: Math.round(at(s.indexCacheMiB.samples, ms)),
    });
  }
  return rows;
}

function markdown(): string {
  // biome-ignore lint/suspicious/noExplicitAny: the report is read back by field name.
  const r = report as any;
  const lines = [
    `# Load benchmark (${machine.date.slice(0, 10)}${quick ? ', quick' : ''})`,
    '',
    `Machine: ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB} GiB, ${machine.node}, ${machine.platform}, load ${machine.loadAverage1m.toFixed(2)} at start (shared with other work). The service ran on ${allocator}.`,
    '',
  ];
  if (r.workspace) {
    const w = r.workspace;
    lines.push(
      `Workspace: ${w.indexedRows} chunks (${w.plannedChunks} planned; ${w.failedDocuments.length} documents failed in the build${w.failedDocuments.length ? `: ${JSON.stringify(w.failedDocuments)}` : ''}) in ${w.documents} text documents (${(w.characters / 1e6).toFixed(1)} M characters of SciFact and SQuAD prose), built through the service in ${w.buildSeconds} s on ${w.builtAt.slice(0, 10)}.`,
      '',
    );
    if (w.footprint) {
      const f = w.footprint;
      const row = (what: string, x: Footprint) =>
        `| ${what} | ${x.versions} | ${x.fragments} | ${x.files} | ${x.megabytes} MB |`;
      lines.push(
        "The workspace's LanceDB table on disk during the build (the worker's maintenance compacts fragments and removes versions replaced more than a minute ago):",
        '',
        '| when | versions | fragments | files | size |',
        '|---|---|---|---|---|',
        row('every run done', f.runsDone),
        row('every row in the BM25 index', f.indexed),
        row(`maintenance done (${f.maintained.afterSeconds} s later)`, f.maintained),
        '',
      );
    }
  }
  if (r.search) {
    const s = r.search;
    lines.push(
      `## Search (${s.clients} concurrent clients, ${s.secondsPerMeasurement} s each, topK ${s.topK})`,
      '',
      'Reference: the same BM25 query (same candidates and columns, results left as Arrow) straight on the LanceDB table, same concurrency, own Node process.',
      '',
      '| round | what | requests/s | p50 | p99 | errors | CPU ms per request |',
      '|---|---|---|---|---|---|---|',
      ...s.rounds.flatMap((x: { service: Lat; reference: Lat }, i: number) => [
        `| ${i + 1} | service (HTTP) | ${x.service.requestsPerSecond} | ${x.service.p50Ms} ms | ${x.service.p99Ms} ms | ${x.service.errors} | ${x.service.cpuMsPerRequest} (+ ${x.service.clientCpuMsPerRequest} in autocannon) |`,
        `| ${i + 1} | LanceDB direct | ${x.reference.requestsPerSecond} | ${x.reference.p50Ms} ms | ${x.reference.p99Ms} ms | ${x.reference.errors} | ${x.reference.cpuMsPerRequest} |`,
      ]),
      '',
      `p50 ratio service / reference: ${s.rounds.map((x: { p50Ratio: number }) => x.p50Ratio).join(', ')} (median ${s.medianP50Ratio}; target ≤ ${s.target}).`,
      '',
    );
  }
  if (r.restrictedSearch) {
    const s = r.restrictedSearch;
    lines.push(
      `## Search as a member who sees ${s.visibleDocuments} of ${s.documents} documents`,
      '',
      `The other documents were narrowed to a group the member is not in (${s.documents - s.visibleDocuments} \`PATCH\`es in ${s.accessChangeSeconds} s, no reprocessing, no index rewrite). The same queries as the member (an act-as key with \`DocSlurp-On-Behalf-Of\`) and as the whole account, one right after the other, the first of the two alternating between rounds (rows in the order measured); same clients and seconds as above.`,
      '',
      '| round | as | requests/s | p50 | p99 | errors | CPU ms per request |',
      '|---|---|---|---|---|---|---|',
      ...s.rounds.flatMap((x: { memberFirst?: boolean; member: Lat; account: Lat }, i: number) => {
        const row = (as: string, l: Lat) =>
          `| ${i + 1} | ${as} | ${l.requestsPerSecond} | ${l.p50Ms} ms | ${l.p99Ms} ms | ${l.errors} | ${l.cpuMsPerRequest} |`;
        const rows = [row('the member', x.member), row('the account', x.account)];
        return x.memberFirst === false ? rows.reverse() : rows;
      }),
      '',
      `p50 ratio member / account: ${s.rounds.map((x: { p50Ratio: number }) => x.p50Ratio).join(', ')} (median ${s.medianP50Ratio}; target ≤ ${s.target}).`,
      '',
    );
  }
  if (r.profile) {
    const p = r.profile;
    lines.push(
      `## Where the service's main thread spent its time (${p.busySeconds} s busy; ${p.covers})`,
      '',
      '| function | self | inclusive function | inclusive |',
      '|---|---|---|---|',
      ...p.self.map(
        (x: { fn: string; share: number }, i: number) =>
          `| ${x.fn} | ${(x.share * 100).toFixed(1)}% | ${p.inclusive[i]?.fn ?? ''} | ${((p.inclusive[i]?.share ?? 0) * 100).toFixed(1)}% |`,
      ),
      '',
    );
  }
  if (r.soak) {
    const s = r.soak;
    lines.push(
      `## Ingestion and search together (${s.seconds} s)`,
      '',
      `Search (${settings.soakClients} clients): ${s.search.requests} requests, ${s.search.requestsPerSecond}/s, p50 ${s.search.p50Ms} ms, p99 ${s.search.p99Ms} ms, ${s.search.errors} errors.`,
      `Ingestion: ${s.ingestion.uploads} uploads, ${s.ingestion.documents} documents ready, ${s.ingestion.failedDocuments} failed, ${s.ingestion.uploadErrors.length} request errors.`,
      `Service RSS: start ${s.rssMiB.start} MiB, peak ${s.rssMiB.peak} MiB, end ${s.rssMiB.end} MiB; mean of the middle fifth ${s.rssMiB.meanOfMiddleFifth} MiB, of the last fifth ${s.rssMiB.meanOfLastFifth} MiB (${s.rssMiB.bounded ? 'bounded' : 'still growing'}: last ≤ 1.1 × middle).`,
      ...(s.memoryMiB
        ? [
            `Of which (process.memoryUsage() in the service, first and last sample of the soak): JavaScript heap ${s.memoryMiB.heapTotal[0]} → ${s.memoryMiB.heapTotal[1]} MiB (${s.memoryMiB.heapUsed[0]} → ${s.memoryMiB.heapUsed[1]} MiB in use), outside it (RSS − heap: LanceDB, buffers, code) ${s.memoryMiB.outsideHeap[0]} → ${s.memoryMiB.outsideHeap[1]} MiB.`,
          ]
        : []),
      `LanceDB's caches (the service's docslurp_search_index_cache_bytes): ${s.indexCacheMiB.start} MiB at the start, ${s.indexCacheMiB.end} MiB at the end (bound ${(DEFAULT_CACHE_SIZES.indexBytes + DEFAULT_CACHE_SIZES.metadataBytes) / 2 ** 20} MiB).`,
      ...(s.memoryMiB
        ? [
            `Outside the heap and those caches: ${round(s.memoryMiB.outsideHeap[0]! - s.indexCacheMiB.start, 1)} → ${round(s.memoryMiB.outsideHeap[1]! - s.indexCacheMiB.end, 1)} MiB; of it, Buffers and other external JavaScript memory ${s.memoryMiB.external[0]} → ${s.memoryMiB.external[1]} MiB.`,
            '',
            'Over time (minute: service RSS, LanceDB caches, in MiB):',
            '',
            `| minute | ${perMinute(s)
              .map((m) => m.minute)
              .join(' | ')} |`,
            `|---|${perMinute(s)
              .map(() => '---')
              .join('|')}|`,
            `| RSS | ${perMinute(s)
              .map((m) => m.rss)
              .join(' | ')} |`,
            `| caches | ${perMinute(s)
              .map((m) => m.cache)
              .join(' | ')} |`,
          ]
        : []),
      ...(s.ingestion.failures.length
        ? [`Failed documents (first five): ${JSON.stringify(s.ingestion.failures)}.`]
        : []),
      '',
    );
  }
  if (r.pdf) {
    const p = r.pdf;
    lines.push(
      '## Large PDFs, one worker',
      '',
      `${p.files.length} R manuals (r-doc-pdf), ${p.pages} pages, ${p.megabytes} MB; ${p.ready} ready, ${p.failed} failed.`,
      '',
      '| what | time | pages/s |',
      '|---|---|---|',
      `| service, WORKER_DOC_CONCURRENCY=1 (upload answered → run done) | ${p.service.ms} ms | ${p.service.pagesPerSecondPerWorker} |`,
      `| reference: parseBytes in process, sequential | ${p.reference.ms} ms | ${p.reference.pagesPerSecond} |`,
      '',
      `Ratio service / reference: ${p.ratioToReference} (target ≤ 1.5).`,
      '',
      `The worker's time by stage (sums over the documents, from /metrics): ${Object.entries(p.stageSeconds)
        .map(([stage, s]) => `${stage} ${s} s`)
        .join(
          ', ',
        )}; ${p.parserProcesses} sandboxed parser process${p.parserProcesses === 1 ? '' : 'es'} for ${p.files.length} documents.`,
      '',
    );
  }
  if (r.upload) {
    const u = r.upload;
    lines.push(
      '## One large upload',
      '',
      `${u.megabytes} MiB streamed in ${u.seconds} s (${u.megabytesPerSecond} MiB/s). Server RSS ${u.serverRssMiB.before} MiB before, peak ${u.serverRssMiB.peak} MiB: growth ${u.serverRssMiB.growth} MiB (target < ${u.targetGrowthMiB} MiB). Client RSS growth ${u.clientRssGrowthMiB} MiB.`,
      '',
    );
  }
  return lines.join('\n');
}

interface Lat {
  requestsPerSecond: number;
  cpuMsPerRequest: number;
  clientCpuMsPerRequest?: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}
