import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataDir } from '../../../../bench/lib/data.js';
import { buildBertOnnx } from '../../../../bench/lib/onnx-bert.js';
import { OnnxReranker } from '../../src/adapters/models/onnx-reranker.js';
import { missingBenchData, skipWithout } from '../support/tools.js';

const noData = skipWithout(missingBenchData(), 'the local ONNX cross-encoder (its tokenizer.json)');

let dir: string;
let encoderDir: string;
const shape = {
  vocab: 30522,
  hidden: 32,
  heads: 4,
  layers: 2,
  intermediate: 64,
  maxPositions: 512,
  seed: 11,
  crossEncoder: true,
};
const options = (over: { batchSize?: number; dir?: string } = {}) => ({
  dir: over.dir ?? dir,
  maxTokens: 64,
  batchSize: over.batchSize ?? 4,
  threads: 1,
});

beforeAll(async () => {
  if (noData) return;
  const tokenizer = path.join(dataDir(), 'models/all-MiniLM-L6-v2-tokenizer/tokenizer.json');
  dir = await mkdtemp(path.join(os.tmpdir(), 'docslurp-ce-'));
  await writeFile(path.join(dir, 'model.onnx'), buildBertOnnx(shape));
  await copyFile(tokenizer, path.join(dir, 'tokenizer.json'));
  encoderDir = await mkdtemp(path.join(os.tmpdir(), 'docslurp-ce-encoder-'));
  await writeFile(path.join(encoderDir, 'model.onnx'), buildBertOnnx({ ...shape, crossEncoder: false }));
  await copyFile(tokenizer, path.join(encoderDir, 'tokenizer.json'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  if (encoderDir) await rm(encoderDir, { recursive: true, force: true });
});

/** The graph's logit for token ids written out by hand, straight from onnxruntime. */
async function logit(ids: number[], typeIds: number[]): Promise<number> {
  const session = await ort.InferenceSession.create(await readFile(path.join(dir, 'model.onnx')));
  const t = (v: number[]) => new ort.Tensor('int64', BigInt64Array.from(v.map(BigInt)), [1, v.length]);
  const out = await session.run({
    input_ids: t(ids),
    attention_mask: t(ids.map(() => 1)),
    token_type_ids: t(typeIds),
  });
  return (out.logits!.data as Float32Array)[0]!;
}

describe.skipIf(noData)(
  'local ONNX cross-encoder (a BERT classifier graph with random weights built by the test)',
  () => {
    it('scores a pair as the sigmoid of the logit the graph gives for [CLS] query [SEP] passage [SEP]', async () => {
      const r = await OnnxReranker.load(options());
      expect(r.model).toMatch(/^local:docslurp-ce-\w+:[0-9a-f]{12}$/);
      const [s] = await r.score('hello', ['hello world']);
      // [CLS] hello [SEP] hello world [SEP], token types 0 0 0 1 1 1.
      const expected =
        1 / (1 + Math.exp(-(await logit([101, 7592, 102, 7592, 2088, 102], [0, 0, 0, 1, 1, 1]))));
      expect(s).toBeCloseTo(expected, 5);
      expect(s).toBeGreaterThan(0);
      expect(s).toBeLessThan(1);
    });

    it('gives each passage its own score in the passages’ order, whatever the batches', async () => {
      const passages = ['unaffable', 'hello world', 'a much longer passage about ferries and harbours', 'x'];
      const one = await (await OnnxReranker.load(options({ batchSize: 1 }))).score('hello', passages);
      const all = await (await OnnxReranker.load(options({ batchSize: 4 }))).score('hello', passages);
      expect(all).toHaveLength(4);
      for (const [i, s] of all.entries()) expect(s).toBeCloseTo(one[i]!, 5);
      expect(new Set(all.map((s) => s.toFixed(6))).size).toBe(4);
    });

    it('refuses a model that does not give one logit per pair', async () => {
      const r = await OnnxReranker.load(options({ dir: encoderDir }));
      await expect(r.score('hello', ['world'])).rejects.toThrow(/one relevance logit per pair/);
    });
  },
);
