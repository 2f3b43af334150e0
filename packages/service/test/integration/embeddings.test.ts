import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelHttpError } from '../../src/adapters/models/http-retry.js';
import { OpenAiEmbedder } from '../../src/adapters/models/openai-embedder.js';
import { PgEmbeddingStateStore } from '../../src/adapters/postgres/embedding-state.js';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createDeps } from '../../src/deps.js';
import { createLogger } from '../../src/logger.js';
import { startWorker } from '../../src/main/worker.js';
import { client } from '../support/http.js';
import { conceptVector, type ModelServer, startModelServer } from '../support/model-servers.js';
import { startTestService, type TestService } from '../support/service.js';
import { waitFor } from '../support/wait.js';

/** Re-embedding a workspace in the background takes a while on a loaded machine. */
const LONG = { timeoutMs: 120_000 };

let models: ModelServer;
beforeAll(async () => {
  models = await startModelServer();
  models.dimensions.set('m1', 16);
  models.dimensions.set('m2', 24);
});
afterAll(() => models?.close());

const embedder = (overrides: Partial<ConstructorParameters<typeof OpenAiEmbedder>[0]> = {}) =>
  new OpenAiEmbedder({
    baseUrl: models.url,
    apiKey: 'k',
    model: 'm1',
    dimensions: undefined,
    batchSize: 3,
    concurrency: 2,
    queryPrefix: '',
    passagePrefix: '',
    retry: { maxRetries: 3, baseDelayMs: 10, maxDelayMs: 2000 },
    timeoutMs: 5000,
    ...overrides,
  });

describe('OpenAI-compatible embeddings client (against a local server speaking the API)', () => {
  it('sends batches with bounded concurrency and returns vectors in input order', async () => {
    models.embeddingRequests.length = 0;
    models.maxInFlight = 0;
    const texts = Array.from({ length: 10 }, (_, i) => `text number ${i} about cars`);
    const vectors = await embedder().embedPassages(texts);
    expect(models.embeddingRequests.map((r) => r.inputs).sort()).toEqual([1, 3, 3, 3]);
    expect(models.maxInFlight).toBe(2);
    // The server answers the batch in reverse order: the client must place vectors by index.
    vectors.forEach((v, i) => {
      expect([...v].map((x) => x.toFixed(5))).toEqual(conceptVector(texts[i]!, 16).map((x) => x.toFixed(5)));
    });
  });

  it('waits as long as Retry-After says on 429, and retries 5xx', async () => {
    models.embeddingRequests.length = 0;
    models.failures.push({ status: 429, retryAfter: '1' }, { status: 503 });
    const t0 = Date.now();
    const [v] = await embedder().embedPassages(['a car']);
    expect(v).toHaveLength(16);
    // Two refused attempts were not recorded as embedding requests; the served one came after the wait.
    expect(models.embeddingRequests).toHaveLength(1);
    expect(models.embeddingRequests[0]!.at - t0).toBeGreaterThanOrEqual(950);
  });

  it('does not retry a client error and reports it', async () => {
    models.embeddingRequests.length = 0;
    const err = await embedder({ model: 'bad-request' })
      .embedQuery('x')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelHttpError);
    expect((err as ModelHttpError).status).toBe(400);
    expect(models.embeddingRequests).toHaveLength(1);
  });

  it('gives up after the retry budget with the last status', async () => {
    models.failures.push({ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 });
    const err = await embedder()
      .embedQuery('x')
      .catch((e: unknown) => e);
    expect((err as ModelHttpError).status).toBe(500);
    expect(models.failures).toHaveLength(0);
  });
});

describe('hybrid search and a change of embedding model', () => {
  let svc: TestService;
  let api: ReturnType<typeof client>;
  let workspaceId: string;
  const env = (model: string) => ({
    EMBEDDINGS_PROVIDER: 'openai',
    EMBEDDINGS_BASE_URL: models.url,
    EMBEDDINGS_MODEL: model,
    EMBEDDINGS_MAX_RETRIES: '0',
  });

  beforeAll(async () => {
    svc = await startTestService({ env: env('m1') });
    api = client(svc.url, await svc.key());
    const up = await api.upload([
      { name: 'fleet.txt', content: 'The automobile fleet is looked after every spring by the garage.' },
      { name: 'time-off.txt', content: 'Staff receive twenty days of holiday per year.' },
      { name: 'kitchen.txt', content: 'The espresso machine on the second floor is cleaned on Fridays.' },
    ]);
    workspaceId = up.body.workspace.id;
    await api.waitForRun(up.body.run.id);
  });
  afterAll(() => svc?.close());

  const search = (q: string, extra: Record<string, unknown> = {}) =>
    api.post('/v1/search', { workspaceId, q, topK: 3, ...extra });
  const files = (r: { body: { results: { citation: { filename: string } }[] } }) =>
    r.body.results.map((h) => h.citation.filename);

  it('records the model that built the workspace vectors', async () => {
    const state = await new PgEmbeddingStateStore(svc.deps.pool).getEmbeddingState(workspaceId);
    expect(state).toEqual({ model: 'openai:m1', dimension: 16, complete: true });
  });

  it('finds by meaning with vectors what BM25 cannot find by words, and fuses both', async () => {
    const lexical = await search('car repairs', { mode: 'lexical' });
    expect(lexical.status).toBe(200);
    expect(files(lexical)).not.toContain('fleet.txt');
    const vector = await search('car repairs', { mode: 'vector' });
    expect(files(vector)[0]).toBe('fleet.txt');
    expect(vector.body.results[0].score).toBeGreaterThan(0.5);
    const hybrid = await search('car repairs');
    expect(files(hybrid)[0]).toBe('fleet.txt');
    // A query with an exact word match still ranks it first in hybrid mode.
    expect(files(await search('espresso machine'))[0]).toBe('kitchen.txt');
  });

  it('keeps default search working when the embedding model fails, and says so when vectors were asked for', async () => {
    models.failures.push({ status: 500 });
    const lexicalOnly = await search('espresso machine');
    expect(lexicalOnly.status).toBe(200);
    expect(files(lexicalOnly)[0]).toBe('kitchen.txt');
    models.failures.push({ status: 500 });
    const vector = await search('espresso machine', { mode: 'vector' });
    expect([vector.status, vector.body.error.code]).toEqual([502, 'model_unavailable']);
  });

  it('re-embeds in the background after a model change while search keeps using the old vectors', async () => {
    // The service restarts with another model (another dimension, too) on the same data.
    for (const w of [svc.worker]) await w?.stop();
    const release = models.hold('m2');
    const config = loadConfig({ ...configEnv(svc), ...env('m2') });
    const deps = await createDeps(config, createLogger('silent'), svc.dbs.urls);
    const app = await buildApp(deps);
    await app.listen({ host: '127.0.0.1', port: 0 });
    const port = (app.server.address() as { port: number }).port;
    const api2 = client(`http://127.0.0.1:${port}`, await svc.key());
    const worker = await startWorker({
      ...deps,
      evaluating: deps,
      concurrency: 1,
      batchDocuments: config.worker.batchDocuments,
      batchMaxBytes: config.worker.batchMaxBytes,
      syncConcurrency: config.worker.syncConcurrency,
      evaluationConcurrency: config.worker.evaluationConcurrency,
      syncsPerAccount: config.worker.syncsPerAccount,
      reconcileIntervalSeconds: 1,
      leaseSeconds: 30,
      maxAttempts: 3,
      auditRetentionDays: 365,
    });
    const states = new PgEmbeddingStateStore(deps.pool);
    try {
      // The re-embedding is under way (held at the model server); the workspace still records m1.
      await waitFor('requests for m2', () => models.embeddingRequests.some((r) => r.model === 'm2'), LONG);
      expect(await states.getEmbeddingState(workspaceId)).toMatchObject({
        model: 'openai:m1',
        dimension: 16,
      });
      const during = await api2.post('/v1/search', {
        workspaceId,
        q: 'car repairs',
        topK: 3,
        mode: 'vector',
      });
      expect(during.status).toBe(200);
      expect(files(during)[0]).toBe('fleet.txt');
      expect((await api2.post('/v1/search', { workspaceId, q: 'holiday days' })).status).toBe(200);

      release();
      await waitFor(
        'the state to name m2',
        async () => (await states.getEmbeddingState(workspaceId))?.model === 'openai:m2',
        LONG,
      );
      expect(await states.getEmbeddingState(workspaceId)).toEqual({
        model: 'openai:m2',
        dimension: 24,
        complete: true,
      });
      const after = await api2.post('/v1/search', { workspaceId, q: 'car repairs', topK: 3, mode: 'vector' });
      expect(files(after)[0]).toBe('fleet.txt');
      // The old space is gone.
      expect((await deps.index.vectorIds(workspaceId, { model: 'openai:m1', dimension: 16 })).size).toBe(0);
      expect((await deps.index.vectorIds(workspaceId, { model: 'openai:m2', dimension: 24 })).size).toBe(3);
    } finally {
      release();
      await worker.stop();
      await app.close();
      await deps.close();
    }
  }, 300_000);
});

function configEnv(svc: TestService): Record<string, string> {
  return {
    DATA_DIR: svc.dataDir,
    DATABASE_URL: svc.dbs.urls.service,
    WORKFLOW_DATABASE_URL: svc.dbs.urls.workflow,
    SERVER_PORT: '0',
    LOG_LEVEL: 'silent',
    JOB_POLL_INTERVAL_SECONDS: '0.5',
    RECONCILE_INTERVAL_SECONDS: '1',
    RATE_LIMIT_PER_MINUTE: '0',
  };
}
