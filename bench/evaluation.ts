/**
 * npm run bench:evaluation — how long an evaluation takes, and what it costs the searches people make
 * meanwhile (issue 40's speed target: 500 questions, one lexical configuration with extractive
 * answers, in a workspace of 5,000 documents, finished in at most 60 s while searches are served).
 *
 * The 5,183 SciFact abstracts are uploaded over HTTP into `docslurp serve` (server and worker in one
 * process, as `npm start` runs it); the question set is the 300 test claims and 200 train claims
 * (seeded), each expecting its judged abstracts. Searches from `--clients` concurrent clients (default
 * 4) run for `--seconds` (default 20) alone, the reference, then for as long as the evaluation runs.
 * Reported: the evaluation's time from `POST /v1/evaluations` to `completed` (and the share of it the
 * worker spent asking, from its per-question times), search p50/p95 alone and meanwhile, errors.
 *
 * Options: --label NAME (bench/results/evaluation-NAME.*, default "speed"), --clients N, --seconds N,
 * --questions N (default 500), --env KEY=VALUE.
 */
import { createDocSlurpClient } from '../packages/sdk/src/index.js';
import { dataDir, loadSciFact, sample, sciFactFile } from './lib/data.js';
import { ServiceClient } from './lib/driver.js';
import { sciFactQuestions } from './lib/engine.js';
import { mean, percentile } from './lib/metrics.js';
import { fixed, parseBenchArgs, writeResults } from './lib/results.js';
import { describeMachine, startServiceProcess } from './lib/service-process.js';

const { env, opts } = parseBenchArgs(process.argv.slice(2));
const label = opts.label ?? 'speed';
const clients = Number(opts.clients ?? 4);
const seconds = Number(opts.seconds ?? 20);
const questionCount = Number(opts.questions ?? 500);
const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const log = (s: string) => process.stdout.write(`${s}\n`);

const data = dataDir();
const test = loadSciFact(data, 'test');
const train = loadSciFact(data, 'train');
const queries = [
  ...test.queries,
  ...sample(train.queries, Math.max(0, questionCount - test.queries.length), 40),
].slice(0, questionCount);
const searchTexts = test.queries.map((q) => q.text);

/** Concurrent search clients until `stop()`: each request's latency, and errors. */
function searchLoad(url: string, key: string, workspaceId: string) {
  let running = true;
  const latencies: number[] = [];
  let errors = 0;
  const loop = async (i: number) => {
    let n = i;
    while (running) {
      const t0 = performance.now();
      const res = await fetch(`${url}/v1/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ workspaceId, q: searchTexts[n++ % searchTexts.length], topK: 10 }),
      }).catch(() => undefined);
      if (res) await res.arrayBuffer();
      if (!res?.ok) errors++;
      else latencies.push(performance.now() - t0);
    }
  };
  const loops = Array.from({ length: clients }, (_, i) => loop(i * 37));
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      return {
        requests: latencies.length,
        errors,
        p50: percentile(latencies, 50),
        p95: percentile(latencies, 95),
        mean: mean(latencies),
      };
    },
  };
}

log(
  `SciFact: ${test.corpus.length} abstracts, ${queries.length} questions; service env ${JSON.stringify(env)}`,
);
const svc = await startServiceProcess(adminUrl, env, (l) => log(`  [service] ${l}`));
try {
  const t0 = performance.now();
  const { workspaceId } = await new ServiceClient(svc.url, svc.key).ingest(test.corpus.map(sciFactFile), {
    batch: 500,
    log,
  });
  const ingestSeconds = (performance.now() - t0) / 1000;
  log(`ingested in ${ingestSeconds.toFixed(1)} s`);

  const warm = searchLoad(svc.url, svc.key, workspaceId);
  await new Promise((r) => setTimeout(r, 3_000));
  await warm.stop();
  const alone = searchLoad(svc.url, svc.key, workspaceId);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const searchAlone = await alone.stop();
  log(`search alone: p50 ${fixed(searchAlone.p50, 1)} ms, p95 ${fixed(searchAlone.p95, 1)} ms`);

  const client = createDocSlurpClient({ apiUrl: svc.url, apiKey: svc.key });
  const set = await client.questionSets.create(workspaceId, {
    name: 'SciFact claims',
    questions: sciFactQuestions(queries),
  });
  const during = searchLoad(svc.url, svc.key, workspaceId);
  const e0 = performance.now();
  const started = await client.evaluations.create({
    questionSetId: set.id,
    configurations: [{ name: 'lexical', search: { mode: 'lexical' }, answers: { mode: 'extractive' } }],
  });
  const done = await client.evaluations.wait(started.id, { intervalMs: 100, timeoutMs: 30 * 60_000 });
  const evaluationSeconds = (performance.now() - e0) / 1000;
  const searchDuring = await during.stop();
  let askedMs = 0;
  for await (const o of client.evaluations.allQuestions(done.id, { limit: 500 }))
    askedMs += o.searchMs + (o.chatMs ?? 0);
  log(
    `evaluation of ${queries.length} questions: ${evaluationSeconds.toFixed(1)} s; search meanwhile p50 ${fixed(searchDuring.p50, 1)} ms, p95 ${fixed(searchDuring.p95, 1)} ms, ${searchDuring.errors} errors`,
  );

  const result = {
    benchmark: 'evaluation-speed',
    label,
    date: new Date().toISOString(),
    machine: describeMachine(),
    serviceEnv: env,
    documents: test.corpus.length,
    questions: queries.length,
    clients,
    ingest: { seconds: ingestSeconds },
    evaluation: {
      id: done.id,
      seconds: evaluationSeconds,
      askingSeconds: askedMs / 1000,
      hitAt10: done.results?.[0]?.metrics.hitAt10?.value ?? null,
      answerP50Ms: done.results?.[0]?.metrics.chatP50Ms?.value ?? null,
      searchP50Ms: done.results?.[0]?.metrics.searchP50Ms?.value ?? null,
    },
    searchAlone,
    searchDuring,
  };
  const md = [
    `# Evaluation speed (${label})`,
    '',
    `${result.date}; ${result.machine.cpu}, ${result.machine.cores} cores, ${result.machine.memoryGiB} GiB, Node ${result.machine.node}.`,
    `${test.corpus.length} SciFact abstracts uploaded over HTTP into \`docslurp serve\` (server and worker in one process); a question set of ${queries.length} claims (the 300 test claims and train claims, seeded), one configuration: lexical search, extractive answers. ${clients} search clients (\`POST /v1/search\`, topK 10) ran for ${seconds} s alone, then for as long as the evaluation ran.`,
    `Service environment: \`${JSON.stringify(env)}\`.`,
    '',
    '| evaluation s | of it asking (worker) s | per question ms | search alone p50 / p95 ms | search meanwhile p50 / p95 ms | search errors |',
    '| --- | --- | --- | --- | --- | --- |',
    `| ${fixed(evaluationSeconds, 1)} | ${fixed(askedMs / 1000, 1)} | ${fixed((evaluationSeconds * 1000) / queries.length, 1)} | ${fixed(searchAlone.p50, 1)} / ${fixed(searchAlone.p95, 1)} | ${fixed(searchDuring.p50, 1)} / ${fixed(searchDuring.p95, 1)} | ${searchDuring.errors} |`,
    '',
    `Target (issue 40): at most 60 s, searches served meanwhile. Searches meanwhile: ${searchDuring.requests} answered (${fixed(searchDuring.requests / evaluationSeconds, 1)}/s; alone ${fixed(searchAlone.requests / seconds, 1)}/s).`,
  ].join('\n');
  log(`wrote ${writeResults(`evaluation-${label}`, result, md).join(', ')}`);
} finally {
  await svc.stop();
}
