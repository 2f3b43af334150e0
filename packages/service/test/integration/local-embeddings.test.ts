import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataDir } from '../../../../bench/lib/data.js';
import { buildBertOnnx } from '../../../../bench/lib/onnx-bert.js';
import { PgEmbeddingStateStore } from '../../src/adapters/postgres/embedding-state.js';
import { client } from '../support/http.js';
import { startTestService, type TestService } from '../support/service.js';
import { missingBenchData, skipWithout } from '../support/tools.js';

const noData = skipWithout(missingBenchData(), 'EMBEDDINGS_PROVIDER=local (a tokenizer.json)');

let modelDir: string;
let svc: TestService;
let api: ReturnType<typeof client>;
let workspaceId: string;
const texts = [
  'Quarterly revenue grew in the northern region.',
  'The staff handbook lists twelve public holidays.',
  'Backups run every night at two o’clock.',
];

beforeAll(async () => {
  if (noData) return;
  modelDir = await mkdtemp(path.join(os.tmpdir(), 'docslurp-local-model-'));
  await writeFile(
    path.join(modelDir, 'model.onnx'),
    buildBertOnnx({
      vocab: 30522,
      hidden: 32,
      heads: 4,
      layers: 2,
      intermediate: 64,
      maxPositions: 512,
      seed: 9,
    }),
  );
  await copyFile(
    path.join(dataDir(), 'models/all-MiniLM-L6-v2-tokenizer/tokenizer.json'),
    path.join(modelDir, 'tokenizer.json'),
  );
  svc = await startTestService({ env: { EMBEDDINGS_PROVIDER: 'local', EMBEDDINGS_MODEL_DIR: modelDir } });
  api = client(svc.url, await svc.key());
  const up = await api.upload(texts.map((content, i) => ({ name: `t${i}.txt`, content })));
  workspaceId = up.body.workspace.id;
  await api.waitForRun(up.body.run.id);
});
afterAll(async () => {
  await svc?.close();
  if (modelDir) await rm(modelDir, { recursive: true, force: true });
});

describe.skipIf(noData)('EMBEDDINGS_PROVIDER=local through the service', () => {
  it('embeds every chunk with the local model and records it for the workspace', async () => {
    const state = await new PgEmbeddingStateStore(svc.deps.pool).getEmbeddingState(workspaceId);
    expect(state).toMatchObject({ dimension: 32, complete: true });
    expect(state?.model).toMatch(/^local:docslurp-local-model-\w+:[0-9a-f]{12}$/);
    expect((await svc.deps.index.vectorIds(workspaceId, state!)).size).toBe(3);
  });

  it('finds a passage by its own vector (same text, same vector) in vector mode', async () => {
    for (const [i, text] of texts.entries()) {
      const r = await api.post('/v1/search', { workspaceId, q: text, mode: 'vector', topK: 3 });
      expect(r.status).toBe(200);
      expect(r.body.results[0].citation.filename).toBe(`t${i}.txt`);
      expect(r.body.results[0].score).toBeCloseTo(1, 4);
    }
  });
});
