import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataDir } from '../../../../bench/lib/data.js';
import { buildBertOnnx } from '../../../../bench/lib/onnx-bert.js';
import { PgEmbeddingStateStore } from '../../src/adapters/postgres/embedding-state.js';
import { createDeps } from '../../src/deps.js';
import { startWorker } from '../../src/main/worker.js';
import { client } from '../support/http.js';
import { capturingLog, ERROR, WARN } from '../support/log.js';
import { type FakeHub, sha256, startFakeHub } from '../support/model-hub.js';
import { startTestService, type TestService } from '../support/service.js';
import { missingBenchData, skipWithout } from '../support/tools.js';
import { waitFor } from '../support/wait.js';

const noData = skipWithout(missingBenchData(), 'local models downloaded by name (a tokenizer.json)');

// EMBEDDINGS_PROVIDER=local with EMBEDDINGS_MODEL=<hub id>: the model is downloaded once from a
// local server that behaves like huggingface.co, verified against its pinned checksums, kept under
// MODELS_DIR, and used as a folder model would be.

const REPO = 'test-org/tiny-embedder';
const REVISION = '0f3c9a1e5b7d2c4a6e8f0b1d3c5a7e9f1b3d5c7a';
const model = buildBertOnnx({
  vocab: 30522,
  hidden: 32,
  heads: 4,
  layers: 2,
  intermediate: 64,
  maxPositions: 512,
  seed: 21,
});
let tokenizer: Buffer;
let hub: FakeHub;
const dirs: string[] = [];
const services: TestService[] = [];

const pins = (over: { model?: string; tokenizer?: string } = {}) =>
  `onnx/model.onnx=${over.model ?? sha256(model)},tokenizer.json=${over.tokenizer ?? sha256(tokenizer)}`;

const envFor = (modelsDir: string, extra: Record<string, string> = {}) => ({
  EMBEDDINGS_PROVIDER: 'local',
  EMBEDDINGS_MODEL: REPO,
  EMBEDDINGS_MODEL_REVISION: REVISION,
  EMBEDDINGS_MODEL_SHA256: pins(),
  MODEL_HUB_URL: hub.url,
  MODELS_DIR: modelsDir,
  MODEL_DOWNLOAD_RETRY_SECONDS: '1',
  ...extra,
});

async function freshDir(): Promise<string> {
  const d = await mkdtemp(path.join(os.tmpdir(), 'docslurp-models-'));
  dirs.push(d);
  return d;
}

async function start(env: Record<string, string>) {
  const { log, lines } = capturingLog();
  const svc = await startTestService({ env, log });
  services.push(svc);
  return { svc, lines, api: client(svc.url, await svc.key()) };
}

async function stop(svc: TestService) {
  services.splice(services.indexOf(svc), 1);
  await svc.close();
}

/** Polls /ready until the embedding model check reports `ok` (or fails the test after `ms`). */
async function readiness(svc: TestService, ok: boolean, ms = 20_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const r = await client(svc.url).get('/ready');
    if (r.body.checks.embeddingModel?.ok === ok) return r.body;
    if (Date.now() > deadline)
      throw new Error(`embeddingModel still ${JSON.stringify(r.body.checks.embeddingModel)}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

async function ingest(api: ReturnType<typeof client>, texts: string[]) {
  const up = await api.upload(texts.map((content, i) => ({ name: `d${i}.txt`, content })));
  expect(up.status).toBe(202);
  await api.waitForRun(up.body.run.id);
  return up.body.workspace.id as string;
}

const modelId = () => `local:${REPO}:${sha256(model).slice(0, 12)}`;
const folderOf = (modelsDir: string) => path.join(modelsDir, 'test-org', 'tiny-embedder', REVISION);
const messages = (lines: { msg: string }[]) => lines.map((l) => l.msg);

beforeAll(async () => {
  if (noData) return;
  tokenizer = await readFile(path.join(dataDir(), 'models/all-MiniLM-L6-v2-tokenizer/tokenizer.json'));
  hub = await startFakeHub({
    [REPO]: {
      revision: REVISION,
      files: { 'onnx/model.onnx': { bytes: model, lfs: true }, 'tokenizer.json': { bytes: tokenizer } },
    },
  });
});
afterAll(async () => {
  for (const svc of services) await svc.close();
  await hub?.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe.skipIf(noData)('a local embedding model by name, downloaded from the hub', () => {
  let sharedModels: string;

  it('is downloaded on the first start (progress logged), verified, kept, and used for vectors', async () => {
    sharedModels = await freshDir();
    const { svc, lines, api } = await start(envFor(sharedModels));
    await readiness(svc, true);

    const modelLog = lines.filter((l) => l.file === 'onnx/model.onnx');
    expect(modelLog.find((l) => l.msg === 'downloading model file')).toMatchObject({
      model: REPO,
      totalBytes: model.length,
    });
    const percents = modelLog.filter((l) => l.msg === 'model download progress').map((l) => l.percent);
    expect(percents).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90].filter((p) => percents.includes(p)));
    expect(percents.length).toBeGreaterThanOrEqual(5);
    expect(messages(lines)).toContain('model downloaded and verified');

    // The hub redirected the LFS file to its CDN and served the small file itself.
    expect(hub.requests.map((r) => [r.server, r.status])).toEqual([
      ['hub', 302],
      ['cdn', 200],
      ['hub', 200],
    ]);
    const folder = folderOf(sharedModels);
    expect(sha256(await readFile(path.join(folder, 'onnx/model.onnx')))).toBe(sha256(model));
    expect(sha256(await readFile(path.join(folder, 'tokenizer.json')))).toBe(sha256(tokenizer));
    // Nothing half-written is left behind.
    expect(await readdir(path.join(sharedModels, '.downloads'))).toEqual([]);

    const texts = ['Ferries to Lanmore leave at nine.', 'The archive closes on Sundays.'];
    const ws = await ingest(api, texts);
    const state = await waitFor('vectors', async () => {
      const s = await new PgEmbeddingStateStore(svc.deps.pool).getEmbeddingState(ws);
      return s?.complete ? s : undefined;
    });
    expect(state).toMatchObject({ model: modelId(), dimension: 32 });
    const r = await api.post('/v1/search', { workspaceId: ws, q: texts[1], mode: 'vector', topK: 2 });
    expect(r.status).toBe(200);
    expect(r.body.results[0].citation.filename).toBe('d1.txt');
    await stop(svc);
  });

  it('uses the verified copy on the next start, without the network', async () => {
    await hub.stop();
    const before = hub.requests.length;
    try {
      const { svc, lines, api } = await start(envFor(sharedModels));
      // Loaded while the service started: ready at once, not after a download.
      const ready = await client(svc.url).get('/ready');
      expect(ready.body.checks.embeddingModel).toMatchObject({ ok: true });
      expect(messages(lines)).not.toContain('downloading model file');
      const ws = await ingest(api, ['Ferries to Lanmore leave at nine.']);
      const r = await api.post('/v1/search', {
        workspaceId: ws,
        q: 'Ferries to Lanmore leave at nine.',
        mode: 'vector',
        topK: 1,
      });
      expect(r.status).toBe(200);
      expect(r.body.results[0].score).toBeCloseTo(1, 4);
      expect(hub.requests.length).toBe(before);
      await stop(svc);
    } finally {
      await hub.start();
    }
  });

  it('continues an interrupted download where it stopped, with a Range request', async () => {
    const modelsDir = await freshDir();
    const half = Math.floor(model.length / 2);
    hub.cutAfter.set(sha256(model), half);
    const from = hub.requests.length;
    const { svc, lines } = await start(envFor(modelsDir));
    await readiness(svc, true);

    // The second request asks for the rest of what the first delivered (at most the half sent: a
    // dropped connection may lose bytes in flight), and the two add up to the file.
    const cdn = hub.requests.slice(from).filter((r) => r.server === 'cdn');
    expect(cdn).toHaveLength(2);
    expect(cdn[0]).toMatchObject({ range: undefined, status: 200, bytes: half });
    const kept = Number(/^bytes=(\d+)-$/.exec(cdn[1]!.range ?? '')?.[1]);
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThanOrEqual(half);
    expect(cdn[1]).toMatchObject({ status: 206, bytes: model.length - kept });
    expect(
      lines.find((l) => l.msg === 'model download interrupted; continuing where it stopped'),
    ).toMatchObject({
      level: WARN,
      bytes: kept,
    });
    expect(lines.find((l) => l.msg === 'continuing model download')).toMatchObject({ resumeFromBytes: kept });
    expect(sha256(await readFile(path.join(folderOf(modelsDir), 'onnx/model.onnx')))).toBe(sha256(model));
    await stop(svc);
  });

  it('refuses a file whose bytes do not match its pinned checksum and stays lexical-only', async () => {
    const modelsDir = await freshDir();
    const wrong = sha256(Buffer.from('another tokenizer'));
    const from = hub.requests.length;
    const { svc, lines, api } = await start(
      envFor(modelsDir, { EMBEDDINGS_MODEL_SHA256: pins({ tokenizer: wrong }) }),
    );
    const ready = await readiness(svc, false);
    await waitFor('the refusal', async () =>
      lines.some((l) => l.level === ERROR && /tokenizer\.json .* not the pinned .*refused/.test(l.msg))
        ? true
        : undefined,
    );
    // /ready's answer may be a second older than the log line (its checks are shared for a second).
    const refusal = new RegExp(`SHA-256 ${sha256(tokenizer)}, not the pinned ${wrong}`);
    await waitFor('/ready to name the refusal', async () =>
      refusal.test((await client(svc.url).get('/ready')).body.checks.embeddingModel.error ?? '')
        ? true
        : undefined,
    );
    expect(ready.status).toBe('degraded');
    // Nothing refused is kept: no model folder, no partial file.
    await expect(stat(folderOf(modelsDir))).rejects.toThrow();
    const staged = await readdir(path.join(modelsDir, '.downloads'), { recursive: true });
    expect(staged.filter((f) => String(f).endsWith('tokenizer.json') || String(f).endsWith('.part'))).toEqual(
      [],
    );
    // A refusal is not retried (it would only repeat): one download of the tokenizer.
    await new Promise((r) => setTimeout(r, 1500));
    expect(hub.requests.slice(from).filter((r) => r.path.endsWith('/tokenizer.json'))).toHaveLength(1);

    const ws = await ingest(api, ['The archive closes on Sundays.']);
    const r = await api.post('/v1/search', { workspaceId: ws, q: 'archive Sundays', topK: 3 });
    expect(r.status).toBe(200);
    expect(r.body.results).toHaveLength(1);
    expect(await new PgEmbeddingStateStore(svc.deps.pool).getEmbeddingState(ws)).toBeUndefined();
    await stop(svc);
  });

  it('refuses an LFS file at once when the hub states another SHA-256 than the pin', async () => {
    const modelsDir = await freshDir();
    const wrong = sha256(Buffer.from('another model'));
    const from = hub.requests.length;
    const { svc } = await start(envFor(modelsDir, { EMBEDDINGS_MODEL_SHA256: pins({ model: wrong }) }));
    const ready = await readiness(svc, false);
    await waitFor('the refusal', async () => {
      const r = await client(svc.url).get('/ready');
      return /the hub gives .*onnx\/model\.onnx.* not the pinned/.test(
        r.body.checks.embeddingModel.error ?? '',
      )
        ? true
        : undefined;
    });
    expect(ready.status).toBe('degraded');
    // The CDN was never asked for the file's bytes.
    expect(hub.requests.slice(from).filter((r) => r.server === 'cdn')).toEqual([]);
    await stop(svc);
  });

  it('starts lexical-only with a warning while the hub cannot be reached, then downloads when it can', async () => {
    const modelsDir = await freshDir();
    await hub.stop();
    let restarted = false;
    try {
      const { svc, lines, api } = await start(envFor(modelsDir));
      const warning = await waitFor('the warning', async () =>
        lines.find((l) => l.level === WARN && l.msg.includes('could not be reached')),
      );
      expect(warning.msg).toMatch(
        new RegExp(
          `embedding model ${REPO} could not be downloaded: .* Search is lexical-only until it is; next attempt in 1 s`,
        ),
      );
      const ready = await client(svc.url).get('/ready');
      expect(ready.status).toBe(200);
      expect(ready.body.status).toBe('degraded');
      expect(ready.body.checks.embeddingModel.error).toMatch(/could not be reached/);

      const ws = await ingest(api, ['The archive closes on Sundays.', 'Ferries to Lanmore leave at nine.']);
      const lexical = await api.post('/v1/search', { workspaceId: ws, q: 'archive Sundays', topK: 3 });
      expect(lexical.status).toBe(200);
      expect(lexical.body.results[0].citation.filename).toBe('d0.txt');
      const vector = await api.post('/v1/search', { workspaceId: ws, q: 'archive', mode: 'vector', topK: 3 });
      expect(vector.status).toBe(400);
      expect(vector.body.error.code).toBe('vector_search_unavailable');

      // The hub is back: the next attempt downloads the model, and the workspace gets its vectors.
      await hub.start();
      restarted = true;
      await readiness(svc, true);
      const state = await waitFor('vectors', async () => {
        const s = await new PgEmbeddingStateStore(svc.deps.pool).getEmbeddingState(ws);
        return s?.complete ? s : undefined;
      });
      expect(state.model).toBe(modelId());
      const r = await api.post('/v1/search', {
        workspaceId: ws,
        q: 'Ferries to Lanmore leave at nine.',
        mode: 'vector',
        topK: 1,
      });
      expect(r.body.results[0].citation.filename).toBe('d1.txt');
      await stop(svc);
    } finally {
      if (!restarted) await hub.start();
    }
  });

  it('gives a document indexed while the model was missing its vectors once the model arrives', async () => {
    const { svc, api } = await start(envFor(await freshDir()));
    await readiness(svc, true);
    const states = new PgEmbeddingStateStore(svc.deps.pool);
    const ws = await ingest(api, ['The archive closes on Sundays.']);
    await waitFor('vectors', async () => ((await states.getEmbeddingState(ws))?.complete ? true : undefined));

    // A worker of the same deployment that has not got the model yet (the hub is down) indexes the
    // workspace's next document: it cannot embed it, so the workspace is no longer complete.
    await svc.worker?.stop();
    await hub.stop();
    let restarted = false;
    const { log } = capturingLog();
    const deps = await createDeps(
      { ...svc.config, models: { ...svc.config.models, dir: await freshDir() } },
      log,
      svc.dbs.urls,
    );
    const worker = await startWorker({
      ...deps,
      evaluating: deps,
      concurrency: 1,
      batchDocuments: 1,
      batchMaxBytes: 1 << 20,
      syncConcurrency: 1,
      evaluationConcurrency: 1,
      syncsPerAccount: 1,
      reconcileIntervalSeconds: 1,
      leaseSeconds: 30,
      maxAttempts: 3,
      auditRetentionDays: 365,
    });
    try {
      const up = await api.upload([{ name: 'late.txt', content: 'Ferries to Lanmore leave at nine.' }], {
        workspaceId: ws,
      });
      await api.waitForRun(up.body.run.id);
      expect(await states.getEmbeddingState(ws)).toMatchObject({ model: modelId(), complete: false });

      // The hub is back: that worker downloads the model and fills in the missing vector.
      await hub.start();
      restarted = true;
      await waitFor('complete vectors', async () =>
        (await states.getEmbeddingState(ws))?.complete ? true : undefined,
      );
      const state = (await states.getEmbeddingState(ws))!;
      expect((await deps.index.vectorIds(ws, state)).size).toBe(2);
    } finally {
      await worker.stop();
      await deps.close();
      if (!restarted) await hub.start();
      await stop(svc);
    }
  });
});
