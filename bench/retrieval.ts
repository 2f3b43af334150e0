/**
 * npm run bench:retrieval — BEIR SciFact through the service's own pipeline: every abstract uploaded
 * over HTTP into a running service (`docslurp serve`), the runs awaited, then the 300 test claims
 * stored as a question set (each expecting its judged abstracts) and asked by one evaluation with a
 * configuration per search mode (issue 40: topK 100, one passage per document, passages only), which
 * scores them. Reports its nDCG@10, Recall@100 and search latency for each mode.
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
import { evaluateThroughService, metricValue, sciFactConfiguration, sciFactQuestions } from './lib/engine.js';
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

  // One configuration per mode, side by side in one evaluation; `auto` leaves the mode to the server.
  const { evaluation, outcomes, seconds } = await evaluateThroughService(
    svc,
    workspaceId,
    'SciFact test claims',
    sciFactQuestions(queries),
    modes.map((mode) =>
      sciFactConfiguration(mode === 'auto' ? undefined : (mode as 'lexical' | 'vector' | 'hybrid'), mode),
    ),
    log,
  );
  const runs = modes.map((mode, i) => {
    const value = (metric: string) => metricValue(evaluation, metric, undefined, i);
    const run = {
      mode,
      configuration: evaluation.configurations[i],
      queries: queries.length,
      ndcg10: value('ndcgAt10'),
      recall100: value('recallAt100'),
      latencyMs: { p50: value('searchP50Ms'), p95: value('searchP95Ms') },
    };
    log(
      `${mode}: nDCG@10 ${fixed(run.ndcg10)}  Recall@100 ${fixed(run.recall100)}  latency p50 ${fixed(run.latencyMs.p50, 1)} ms p95 ${fixed(run.latencyMs.p95, 1)} ms`,
    );
    return run;
  });
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
    evaluation: { id: evaluation.id, seconds },
    runs,
    perQuery: Object.fromEntries(
      modes.map((mode) => [
        mode,
        outcomes
          .filter((o) => o.configuration === mode)
          .map((o) => ({ id: o.tags[0], ndcg10: o.checks.ndcgAt10 })),
      ]),
    ),
  };
  const md = [
    `# SciFact retrieval (${label})`,
    '',
    `${result.date}; ${result.machine.cpu}, ${result.machine.cores} cores, ${result.machine.memoryGiB} GiB, Node ${result.machine.node}.`,
    `${corpus.length} abstracts uploaded over HTTP into \`docslurp serve\` (${fixed(result.ingest.documentsPerSecond, 1)} documents/s), ${queries.length} test queries stored as a question set and asked by one evaluation (topK 100, one passage per document, a configuration per mode; ${fixed(seconds, 1)} s), whose metrics these are.`,
    `Service environment: \`${JSON.stringify(env)}\`.`,
    '',
    '| mode | nDCG@10 | Recall@100 | search p50 ms | search p95 ms |',
    '| --- | --- | --- | --- | --- |',
    ...result.runs.map(
      (r) =>
        `| ${r.mode} | ${fixed(r.ndcg10)} | ${fixed(r.recall100)} | ${fixed(r.latencyMs.p50, 1)} | ${fixed(r.latencyMs.p95, 1)} |`,
    ),
    '',
    'Latency is the search operation as the worker of the evaluation timed it (no HTTP); `npm run bench:load` measures search over HTTP under load.',
    'Published on the same data: BM25 (Pyserini flat) 0.679, bge-small-en-v1.5 0.713, bge-base-en-v1.5 0.741, hybrid BM25 + bge-base 0.744.',
  ].join('\n');
  const files = writeResults(`retrieval-${label}`, result, md);
  log(`wrote ${files.join(', ')}`);
} finally {
  await svc.stop();
  for (const dir of [modelDir, rerankerDir]) if (dir) await rm(dir, { recursive: true, force: true });
}
