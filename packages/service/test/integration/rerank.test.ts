import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataDir } from '../../../../bench/lib/data.js';
import { buildBertOnnx } from '../../../../bench/lib/onnx-bert.js';
import { modelFolder } from '../../src/adapters/models/hub-download.js';
import { OnnxReranker } from '../../src/adapters/models/onnx-reranker.js';
import { passageText } from '../../src/search/embeddings.js';
import { client } from '../support/http.js';
import { capturingLog, WARN } from '../support/log.js';
import { type FakeHub, sha256, startFakeHub } from '../support/model-hub.js';
import { conceptOverlap, type ModelServer, startModelServer } from '../support/model-servers.js';
import { startTestService, type TestService } from '../support/service.js';
import { missingBenchData, skipWithout } from '../support/tools.js';

const noData = skipWithout(missingBenchData(), 'reranking with a local cross-encoder (its tokenizer.json)');

// RERANK_PROVIDER reorders the best candidates of every search (and so of every answer) by a
// reranker's scores: an HTTP endpoint in TEI's or Cohere's shape, or a local ONNX cross-encoder.

const DOCS: Record<string, string> = {
  'x.txt': 'Car parking: car spaces, car permits and the car schedule.',
  'y.txt': 'Every automobile is serviced on a fixed schedule.',
  'z.txt': 'The cafeteria schedule changes in summer.',
};
const Q = 'car maintenance schedule';

let models: ModelServer;
let base: string;
const services: TestService[] = [];
const cleanups: (() => Promise<void>)[] = [];

async function start(env: Record<string, string>) {
  const { log, lines } = capturingLog();
  const svc = await startTestService({ env: { METRICS_SECRET: 'metrics-secret', ...env }, log });
  services.push(svc);
  const api = client(svc.url, await svc.key());
  const up = await api.upload(Object.entries(DOCS).map(([name, content]) => ({ name, content })));
  await api.waitForRun(up.body.run.id);
  return { svc, lines, api, ws: up.body.workspace.id as string };
}

/** The first stage's candidates, best first: BM25 straight from the index. */
async function lexical(svc: TestService, ws: string) {
  return (await svc.deps.index.search(ws, { text: Q, limit: 10 })).sort((a, b) => b.score - a.score);
}
const lexicalOrder = async (svc: TestService, ws: string) =>
  (await lexical(svc, ws)).map((h) => h.row.filename);

async function search(api: ReturnType<typeof client>, ws: string) {
  const r = await api.post('/v1/search', { workspaceId: ws, q: Q, topK: 3 });
  expect(r.status).toBe(200);
  return r.body.results as { score: number; citation: { filename: string } }[];
}

async function rerankCount(svc: TestService, outcome: 'ok' | 'failed'): Promise<number> {
  const res = await fetch(`${svc.url}/metrics`, { headers: { authorization: 'Bearer metrics-secret' } });
  const m = new RegExp(`docslurp_search_rerank_duration_seconds_count\\{outcome="${outcome}"\\} (\\d+)`).exec(
    await res.text(),
  );
  return m ? Number(m[1]) : 0;
}

beforeAll(async () => {
  models = await startModelServer();
  base = models.url.replace(/\/v1$/, '');
});
afterAll(async () => {
  for (const svc of services) await svc.close();
  await models?.close();
  for (const c of cleanups) await c();
});

describe('reranking over HTTP', () => {
  it('reorders search results and answer sources as a TEI /rerank endpoint scores them, and times it', async () => {
    const { svc, api, ws } = await start({
      RERANK_PROVIDER: 'http',
      RERANK_URL: `${base}/rerank`,
      LLM_BASE_URL: models.url,
      LLM_MODEL: 'chat',
    });
    // BM25 puts the passage that repeats "car" first.
    expect((await lexicalOrder(svc, ws))[0]).toBe('x.txt');

    const results = await search(api, ws);
    expect(results.map((r) => r.citation.filename)).toEqual(['y.txt', 'x.txt', 'z.txt']);
    for (const r of results) expect(r.score).toBeCloseTo(conceptOverlap(Q, DOCS[r.citation.filename]!), 6);
    const sent = models.rerankRequests.at(-1)!;
    expect(sent.path).toBe('/rerank');
    expect(sent.body).toMatchObject({ query: Q, truncate: true });
    expect((sent.body.texts as string[]).map((t) => t.split('\n\n').at(-1))).toEqual([
      DOCS['x.txt'],
      ...(await lexicalOrder(svc, ws)).slice(1).map((f) => DOCS[f]),
    ]);

    // Answers are built from the reranked passages: the chat model's first source is y.txt.
    const chat = await api.post('/v1/search/chat', { workspaceId: ws, q: Q });
    expect(chat.status).toBe(200);
    const prompt = models.chatRequests.at(-1)!.messages.at(-1)!.content;
    expect(/\[1\] \([^)]*\)\n([^\n]*)/.exec(prompt)?.[1]).toBe(DOCS['y.txt']);

    expect(await rerankCount(svc, 'ok')).toBe(2);
    expect(await rerankCount(svc, 'failed')).toBe(0);
  });

  it('speaks Cohere’s /v2/rerank shape with RERANK_API=cohere', async () => {
    const { api, ws } = await start({
      RERANK_PROVIDER: 'http',
      RERANK_API: 'cohere',
      RERANK_URL: `${base}/v2/rerank`,
      RERANK_MODEL: 'rerank-test',
    });
    const results = await search(api, ws);
    expect(results.map((r) => r.citation.filename)).toEqual(['y.txt', 'x.txt', 'z.txt']);
    expect(models.rerankRequests.at(-1)).toMatchObject({
      path: '/v2/rerank',
      body: { model: 'rerank-test', query: Q, top_n: 3, documents: expect.any(Array) },
    });
  });

  it('falls back to the first stage’s order, with a warning, when the reranker fails', async () => {
    const { svc, api, ws, lines } = await start({
      RERANK_PROVIDER: 'http',
      RERANK_URL: `${base}/rerank`,
      RERANK_MAX_RETRIES: '0',
    });
    models.failures.push({ status: 503 });
    const fallback = await search(api, ws);
    expect(fallback.map((r) => r.citation.filename)).toEqual(await lexicalOrder(svc, ws));
    expect(fallback[0]!.citation.filename).toBe('x.txt');
    expect(
      lines.find((l) => l.msg === 'reranking skipped: the reranker failed; results keep their order'),
    ).toMatchObject({
      level: WARN,
      err: expect.objectContaining({ message: expect.stringMatching(/HTTP 503/) }),
    });
    expect(await rerankCount(svc, 'failed')).toBe(1);
    // The next search is reranked again.
    expect((await search(api, ws)).map((r) => r.citation.filename)).toEqual(['y.txt', 'x.txt', 'z.txt']);
  });
});

describe.skipIf(noData)('reranking with a local cross-encoder downloaded by name', () => {
  const REPO = 'test-org/tiny-reranker';
  const REVISION = '7e2b4d6f8a0c1e3b5d7f9a1c3e5b7d9f0a2c4e6b';
  let hub: FakeHub;
  let modelsDir: string;
  const graph = buildBertOnnx({
    vocab: 30522,
    hidden: 32,
    heads: 4,
    layers: 2,
    intermediate: 64,
    maxPositions: 512,
    seed: 3,
    crossEncoder: true,
  });

  beforeAll(async () => {
    const tokenizer = await readFile(
      path.join(dataDir(), 'models/all-MiniLM-L6-v2-tokenizer/tokenizer.json'),
    );
    hub = await startFakeHub({
      [REPO]: {
        revision: REVISION,
        files: { 'onnx/model.onnx': { bytes: graph, lfs: true }, 'tokenizer.json': { bytes: tokenizer } },
      },
    });
    modelsDir = await mkdtemp(path.join(os.tmpdir(), 'docslurp-rerank-models-'));
    cleanups.push(
      () => hub.close(),
      () => rm(modelsDir, { recursive: true, force: true }),
    );
    DOCS['w.txt'] = 'Bicycles follow a different schedule on holidays.';
    DOCS['v.txt'] = 'Staff can read the car schedule in the staff handbook.';
  });

  it('reorders the candidates as the cross-encoder scores them', async () => {
    const { svc, api, ws } = await start({
      RERANK_PROVIDER: 'local',
      RERANK_MODEL: REPO,
      RERANK_MODEL_REVISION: REVISION,
      RERANK_MODEL_SHA256: `onnx/model.onnx=${sha256(graph)},tokenizer.json=${sha256(
        await readFile(path.join(dataDir(), 'models/all-MiniLM-L6-v2-tokenizer/tokenizer.json')),
      )}`,
      MODEL_HUB_URL: hub.url,
      MODELS_DIR: modelsDir,
    });
    const deadline = Date.now() + 20_000;
    while ((await client(svc.url).get('/ready')).body.checks.rerankModel?.ok !== true) {
      if (Date.now() > deadline) throw new Error('the reranking model did not become ready');
      await new Promise((r) => setTimeout(r, 100));
    }

    // The same model, loaded by the test, scores every candidate passage.
    const candidates = await lexical(svc, ws);
    expect(candidates).toHaveLength(5);
    const reranker = await OnnxReranker.load({
      dir: modelFolder(modelsDir, { repo: REPO, revision: REVISION, onnxFile: 'onnx/model.onnx', files: [] }),
      maxTokens: 512,
      batchSize: 16,
      threads: 1,
    });
    const scores = await reranker.score(
      Q,
      candidates.map((h) => passageText(h.row)),
    );
    const expected = candidates
      .map((h, i) => ({ file: h.row.filename, score: scores[i]! }))
      .sort((a, b) => b.score - a.score);
    // Random weights, but not BM25's order: the test would show nothing otherwise.
    expect(expected.map((e) => e.file)).not.toEqual(candidates.map((h) => h.row.filename));

    const r = await api.post('/v1/search', { workspaceId: ws, q: Q, topK: 5 });
    expect(r.status).toBe(200);
    const got = r.body.results as { score: number; citation: { filename: string } }[];
    expect(got.map((h) => h.citation.filename)).toEqual(expected.map((e) => e.file));
    for (const [i, h] of got.entries()) expect(h.score).toBeCloseTo(expected[i]!.score, 5);
    expect(await rerankCount(svc, 'ok')).toBe(1);
  });
});
