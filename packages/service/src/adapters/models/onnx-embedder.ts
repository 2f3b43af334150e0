import type * as Ort from 'onnxruntime-node';
import type { Embedder } from '../../domain/ports.js';
import { loadOnnxModel, type OnnxModelLocation } from './onnx-session.js';
import type { WordPieceTokenizer } from './wordpiece.js';

export interface OnnxEmbedderOptions extends OnnxModelLocation {
  maxTokens: number;
  batchSize: number;
  pooling: 'mean' | 'cls';
  queryPrefix: string;
  passagePrefix: string;
}

/** Mean of the token vectors that the mask keeps, or the first ([CLS]) token's; then unit length. */
export function pool(
  hidden: Float32Array,
  mask: BigInt64Array,
  batch: number,
  length: number,
  width: number,
  mode: 'mean' | 'cls',
): Float32Array[] {
  const out: Float32Array[] = [];
  for (let b = 0; b < batch; b++) {
    const v = new Float32Array(width);
    if (mode === 'cls') {
      v.set(hidden.subarray(b * length * width, b * length * width + width));
    } else {
      let kept = 0;
      for (let t = 0; t < length; t++) {
        if (mask[b * length + t] === 0n) continue;
        kept++;
        const base = (b * length + t) * width;
        for (let d = 0; d < width; d++) v[d]! += hidden[base + d]!;
      }
      if (kept > 0) for (let d = 0; d < width; d++) v[d]! /= kept;
    }
    out.push(normalize(v));
  }
  return out;
}

export function normalize(v: Float32Array): Float32Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}

/**
 * A sentence-embedding model run locally with onnxruntime (CPU): BERT-shaped encoders such as
 * all-MiniLM-L6-v2, bge-small or e5-small exported to ONNX, with their `tokenizer.json`.
 */
export class OnnxEmbedder implements Embedder {
  private constructor(
    readonly model: string,
    private readonly session: Ort.InferenceSession,
    private readonly ort: typeof Ort,
    private readonly tokenizer: WordPieceTokenizer,
    private readonly options: OnnxEmbedderOptions,
  ) {}

  static async load(options: OnnxEmbedderOptions): Promise<OnnxEmbedder> {
    // The vector space is this exact file: a different model in the same folder gets another id.
    const m = await loadOnnxModel(options, 'EMBEDDINGS_MODEL_DIR');
    return new OnnxEmbedder(m.id, m.session, m.ort, m.tokenizer, options);
  }

  async embedQuery(text: string): Promise<Float32Array> {
    const [v] = await this.run([this.options.queryPrefix + text]);
    return v!;
  }

  async embedPassages(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    // Similar lengths in one batch waste less work on padding.
    const order = texts.map((t, i) => [t.length, i] as const).sort((a, b) => a[0] - b[0]);
    const out: Float32Array[] = new Array(texts.length);
    for (let i = 0; i < order.length; i += this.options.batchSize) {
      signal?.throwIfAborted();
      const slice = order.slice(i, i + this.options.batchSize);
      const vectors = await this.run(slice.map(([, idx]) => this.options.passagePrefix + texts[idx]!));
      slice.forEach(([, idx], k) => {
        out[idx] = vectors[k]!;
      });
    }
    return out;
  }

  private async run(texts: string[]): Promise<Float32Array[]> {
    const enc = this.tokenizer.encodeBatch(texts, this.options.maxTokens);
    const dims = [enc.batch, enc.length];
    const feeds: Record<string, Ort.Tensor> = {
      input_ids: new this.ort.Tensor('int64', enc.ids, dims),
      attention_mask: new this.ort.Tensor('int64', enc.attentionMask, dims),
    };
    if (this.session.inputNames.includes('token_type_ids')) {
      feeds.token_type_ids = new this.ort.Tensor('int64', enc.typeIds, dims);
    }
    const results = await this.session.run(feeds);
    // Models exported with pooling built in give `sentence_embedding` [batch, width]; others give
    // the token states [batch, length, width], pooled here.
    const pooled = results.sentence_embedding;
    if (pooled) {
      const width = pooled.dims[1]!;
      const data = pooled.data as Float32Array;
      return Array.from({ length: enc.batch }, (_, b) => normalize(data.slice(b * width, (b + 1) * width)));
    }
    const hidden = results.last_hidden_state ?? results[this.session.outputNames[0]!]!;
    if (hidden.dims.length !== 3) {
      throw new Error(
        `unexpected ONNX output shape [${hidden.dims.join(', ')}]; expected [batch, tokens, width]`,
      );
    }
    return pool(
      hidden.data as Float32Array,
      enc.attentionMask,
      enc.batch,
      enc.length,
      hidden.dims[2]!,
      this.options.pooling,
    );
  }
}
