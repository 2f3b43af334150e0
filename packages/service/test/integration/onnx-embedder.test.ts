import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataDir } from '../../../../bench/lib/data.js';
import { buildBertOnnx } from '../../../../bench/lib/onnx-bert.js';
import { OnnxEmbedder, pool } from '../../src/adapters/models/onnx-embedder.js';
import { missingBenchData, skipWithout } from '../support/tools.js';

const noData = skipWithout(missingBenchData(), 'the local ONNX embedder (its tokenizer.json)');

let dir: string;
const shape = { vocab: 30522, hidden: 32, heads: 4, layers: 2, intermediate: 64, maxPositions: 512, seed: 5 };
const options = () => ({
  dir,
  maxTokens: 64,
  batchSize: 3,
  pooling: 'mean' as const,
  queryPrefix: '',
  passagePrefix: '',
  threads: 1,
});
const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

beforeAll(async () => {
  if (noData) return;
  dir = await mkdtemp(path.join(os.tmpdir(), 'docslurp-onnx-'));
  await writeFile(path.join(dir, 'model.onnx'), buildBertOnnx(shape));
  await copyFile(
    path.join(dataDir(), 'models/all-MiniLM-L6-v2-tokenizer/tokenizer.json'),
    path.join(dir, 'tokenizer.json'),
  );
});
afterAll(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));

describe.skipIf(noData)(
  'local ONNX embedder (a BERT-shaped graph with random weights built by the test)',
  () => {
    it('loads the model and its tokenizer and makes unit-length vectors of the hidden size', async () => {
      const e = await OnnxEmbedder.load(options());
      expect(e.model).toMatch(/^local:docslurp-onnx-\w+:[0-9a-f]{12}$/);
      const [v] = await e.embedPassages(['Vacation days expire in March.']);
      expect(v).toHaveLength(32);
      expect(Math.hypot(...v!)).toBeCloseTo(1, 5);
    });

    it('gives a text the same vector alone or batched with longer texts (padding is masked)', async () => {
      const e = await OnnxEmbedder.load(options());
      const texts = [
        'short text',
        'a considerably longer passage that forces padding of the short one in its batch',
        'another passage, of middling length',
        'short text',
        'the fifth text lands in a second batch',
      ];
      const batched = await e.embedPassages(texts);
      const [alone] = await e.embedPassages(['short text']);
      expect(batched).toHaveLength(5);
      for (let d = 0; d < 32; d++) expect(batched[0]![d]).toBeCloseTo(alone![d]!, 5);
      expect(cosine(batched[0]!, batched[3]!)).toBeCloseTo(1, 5);
      expect(cosine(batched[0]!, batched[1]!)).toBeLessThan(0.9999);
      expect(cosine(await e.embedQuery('short text'), alone!)).toBeCloseTo(1, 5);
    });

    it('names a different model file in the same folder as a different vector space', async () => {
      const first = (await OnnxEmbedder.load(options())).model;
      const other = await mkdtemp(path.join(os.tmpdir(), 'docslurp-onnx-'));
      await writeFile(path.join(other, 'model.onnx'), buildBertOnnx({ ...shape, seed: 6 }));
      await copyFile(path.join(dir, 'tokenizer.json'), path.join(other, 'tokenizer.json'));
      const second = (await OnnxEmbedder.load({ ...options(), dir: other })).model;
      await rm(other, { recursive: true, force: true });
      expect(second.split(':')[2]).not.toBe(first.split(':')[2]);
    });

    it('fails clearly when the folder has no model', async () => {
      await expect(OnnxEmbedder.load({ ...options(), dir: os.tmpdir() })).rejects.toThrow(
        /has no model\.onnx/,
      );
    });
  },
);

describe('pooling', () => {
  it('averages the tokens the mask keeps, or takes the first, then normalises', () => {
    // batch 1, 3 tokens (the last is padding), width 2
    const hidden = Float32Array.from([3, 0, 1, 4, 100, 100]);
    const mask = BigInt64Array.from([1n, 1n, 0n]);
    const [mean] = pool(hidden, mask, 1, 3, 2, 'mean');
    expect([...mean!].map((x) => Number(x.toFixed(6)))).toEqual([
      Number((2 / Math.hypot(2, 2)).toFixed(6)),
      Number((2 / Math.hypot(2, 2)).toFixed(6)),
    ]);
    const [cls] = pool(hidden, mask, 1, 3, 2, 'cls');
    expect([...cls!]).toEqual([1, 0]);
  });
});
