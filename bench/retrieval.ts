/**
 * npm run bench:retrieval — BEIR SciFact through the service's own pipeline: every abstract uploaded
 * over HTTP into a running service (`docslurp serve`), the runs awaited, then the 300 test claims
 * asked through POST /v1/search. Reports nDCG@10, Recall@100 and search latency for each search mode.
 *
 * Options: --label NAME (results file suffix), --env KEY=VALUE (service configuration, repeatable),
 * --modes lexical,vector,hybrid, --queries N and --distractors N (a smaller seeded subset),
 * --random-onnx-model true (serve a generated all-MiniLM-L6-v2-shaped ONNX graph with random weights
 * as the local embedding model: it measures the cost of the vector path, not its quality),
 * --random-onnx-reranker true (the same for the reranking stage: a generated cross-encoder of
 * ms-marco-MiniLM-L6-v2's shape as RERANK_PROVIDER=local).
 * Models named by id (`--env EMBEDDINGS_MODEL=…`, `--env RERANK_MODEL=…`) are downloaded once into
 * BENCH_MODELS_DIR (default node_modules/.cache/docslurp-models) and awaited before anything is measured.
 */
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { dataDir, loadSciFact, sample, sciFactFile } from './lib/data.js';
import { ServiceClient } from './lib/driver.js';
import { evaluateRetrieval } from './lib/evaluate.js';
import { mean, percentile } from './lib/metrics.js';
import { buildBertOnnx, MINILM_SHAPE } from './lib/onnx-bert.js';
import { fixed, parseBenchArgs, writeResults } from './lib/results.js';
import { describeMachine, startServiceProcess } from './lib/service-process.js';

const { env, opts } = parseBenchArgs(process.argv.slice(2));
const label = opts.label ?? 'default';
const modes = (opts.modes ?? 'auto').split(',');
const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const data = loadSciFact(dataDir());
let { corpus, queries } = data;
if (opts.queries) {
  queries = sample(queries, Number(opts.queries), 7);
  const relevant = new Set(queries.flatMap((q) => [...q.judged.keys()]));
  const others = corpus.filter((d) => !relevant.has(d.id));
  corpus = [
    ...corpus.filter((d) => relevant.has(d.id)),
    ...sample(others, Number(opts.distractors ?? 1000), 11),
  ];
}

const log = (s: string) => process.stdout.write(`${s}\n`);
let modelDir: string | undefined;
if (opts['random-onnx-model'] === 'true') {
  modelDir = await mkdtemp(path.join(os.tmpdir(), 'docslurp-minilm-shaped-'));
  await writeFile(path.join(modelDir, 'model.onnx'), buildBertOnnx(MINILM_SHAPE));
  await copyFile(
    path.join(dataDir(), 'models/all-MiniLM-L6-v2-tokenizer/tokenizer.json'),
    path.join(modelDir, 'tokenizer.json'),
  );
  Object.assign(env, { EMBEDDINGS_PROVIDER: 'local', EMBEDDINGS_MODEL_DIR: modelDir });
}
let rerankerDir: string | undefined;
if (opts['random-onnx-reranker'] === 'true') {
  rerankerDir = await mkdtemp(path.join(os.tmpdir(), 'docslurp-cross-encoder-shaped-'));
  await writeFile(
    path.join(rerankerDir, 'model.onnx'),
    buildBertOnnx({ ...MINILM_SHAPE, crossEncoder: true }),
  );
  await copyFile(
    path.join(dataDir(), 'models/all-MiniLM-L6-v2-tokenizer/tokenizer.json'),
    path.join(rerankerDir, 'tokenizer.json'),
  );
  Object.assign(env, { RERANK_PROVIDER: 'local', RERANK_MODEL_DIR: rerankerDir });
}
log(`SciFact: ${corpus.length} abstracts, ${queries.length} queries; service env ${JSON.stringify(env)}`);
const svc = await startServiceProcess(adminUrl, env, (l) => log(`  [service] ${l}`));
try {
  const client = new ServiceClient(svc.url, svc.key);
  const t0 = performance.now();
  const { workspaceId } = await client.ingest(corpus.map(sciFactFile), { log });
  const ingestSeconds = (performance.now() - t0) / 1000;
  log(
    `ingested in ${ingestSeconds.toFixed(1)} s (${(corpus.length / ingestSeconds).toFixed(1)} documents/s)`,
  );

  // The reference for latency: a trivial authenticated-free request to the same server in the same run.
  const health: number[] = [];
  for (let i = 0; i < 200; i++) {
    const h0 = performance.now();
    await (await fetch(`${svc.url}/health`)).text();
    health.push(performance.now() - h0);
  }
  // Warm-up: open the table and load the index before timing.
  await evaluateRetrieval(client, workspaceId, queries.slice(0, 5));

  const runs = [];
  for (const mode of modes) {
    const scores = await evaluateRetrieval(client, workspaceId, queries, mode === 'auto' ? {} : { mode });
    log(
      `${mode}: nDCG@10 ${fixed(scores.ndcg10)}  Recall@100 ${fixed(scores.recall100)}  latency p50 ${fixed(scores.latencyMs.p50, 1)} ms p99 ${fixed(scores.latencyMs.p99, 1)} ms`,
    );
    runs.push({ mode, ...scores });
  }
  const healthMs = { p50: percentile(health, 50), p99: percentile(health, 99), mean: mean(health) };
  const result = {
    benchmark: 'scifact-retrieval',
    label,
    date: new Date().toISOString(),
    machine: describeMachine(),
    serviceEnv: env,
    randomOnnxModel: modelDir ? MINILM_SHAPE : null,
    randomOnnxReranker: rerankerDir ? { ...MINILM_SHAPE, crossEncoder: true } : null,
    corpus: corpus.length,
    queries: queries.length,
    subset: opts.queries
      ? { queries: Number(opts.queries), distractors: Number(opts.distractors ?? 1000) }
      : null,
    ingest: { seconds: ingestSeconds, documentsPerSecond: corpus.length / ingestSeconds },
    referenceHealthLatencyMs: healthMs,
    runs: runs.map(({ perQuery, ...r }) => ({ ...r, latencyVsHealthP50: r.latencyMs.p50 / healthMs.p50 })),
    perQuery: Object.fromEntries(runs.map((r) => [r.mode, r.perQuery])),
  };
  const md = [
    `# SciFact retrieval (${label})`,
    '',
    `${result.date}; ${result.machine.cpu}, ${result.machine.cores} cores, ${result.machine.memoryGiB} GiB, Node ${result.machine.node}.`,
    `${corpus.length} abstracts uploaded over HTTP into \`docslurp serve\` (${fixed(result.ingest.documentsPerSecond, 1)} documents/s), ${queries.length} test queries through \`POST /v1/search\` (topK 100, one passage per document).`,
    `Service environment: \`${JSON.stringify(env)}\`.`,
    '',
    '| mode | nDCG@10 | Recall@100 | p50 ms | p99 ms | p50 / health p50 |',
    '| --- | --- | --- | --- | --- | --- |',
    ...result.runs.map(
      (r) =>
        `| ${r.mode} | ${fixed(r.ndcg10)} | ${fixed(r.recall100)} | ${fixed(r.latencyMs.p50, 1)} | ${fixed(r.latencyMs.p99, 1)} | ${fixed(r.latencyVsHealthP50, 1)} |`,
    ),
    '',
    `Reference in the same run: \`GET /health\` p50 ${fixed(healthMs.p50, 2)} ms, p99 ${fixed(healthMs.p99, 2)} ms.`,
    'Published on the same data: BM25 (Pyserini flat) 0.679, bge-small-en-v1.5 0.713, bge-base-en-v1.5 0.741, hybrid BM25 + bge-base 0.744.',
  ].join('\n');
  const files = writeResults(`retrieval-${label}`, result, md);
  log(`wrote ${files.join(', ')}`);
} finally {
  await svc.stop();
  for (const dir of [modelDir, rerankerDir]) if (dir) await rm(dir, { recursive: true, force: true });
}
