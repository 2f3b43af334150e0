import type * as Ort from 'onnxruntime-node';
import type { Reranker } from '../../domain/ports.js';
import { loadOnnxModel, type OnnxModelLocation } from './onnx-session.js';
import type { WordPieceTokenizer } from './wordpiece.js';

export interface OnnxRerankerOptions extends OnnxModelLocation {
  /** Tokens per (query, passage) pair; longer pairs are cut longest first. */
  maxTokens: number;
  batchSize: number;
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/**
 * A cross-encoder run locally with onnxruntime (CPU): a BERT-shaped sequence classifier with one
 * output (ms-marco-MiniLM and the like, exported to ONNX with their `tokenizer.json`). The query and
 * a passage are read as one sequence; the logit goes through a sigmoid, as sentence-transformers and
 * TEI do for one-label models, so that scores lie between 0 and 1.
 */
export class OnnxReranker implements Reranker {
  private constructor(
    readonly model: string,
    private readonly session: Ort.InferenceSession,
    private readonly ort: typeof Ort,
    private readonly tokenizer: WordPieceTokenizer,
    private readonly options: OnnxRerankerOptions,
  ) {}

  static async load(options: OnnxRerankerOptions): Promise<OnnxReranker> {
    const m = await loadOnnxModel(options, 'RERANK_MODEL_DIR');
    return new OnnxReranker(m.id, m.session, m.ort, m.tokenizer, options);
  }

  async score(query: string, passages: string[], signal?: AbortSignal): Promise<number[]> {
    // Similar lengths in one batch waste less work on padding.
    const order = passages.map((p, i) => [p.length, i] as const).sort((a, b) => a[0] - b[0]);
    const out: number[] = new Array(passages.length);
    for (let i = 0; i < order.length; i += this.options.batchSize) {
      signal?.throwIfAborted();
      const slice = order.slice(i, i + this.options.batchSize);
      const logits = await this.run(slice.map(([, idx]) => [query, passages[idx]!]));
      slice.forEach(([, idx], k) => {
        out[idx] = sigmoid(logits[k]!);
      });
    }
    return out;
  }

  private async run(pairs: [string, string][]): Promise<number[]> {
    const enc = this.tokenizer.encodePairBatch(pairs, this.options.maxTokens);
    const dims = [enc.batch, enc.length];
    const feeds: Record<string, Ort.Tensor> = {
      input_ids: new this.ort.Tensor('int64', enc.ids, dims),
      attention_mask: new this.ort.Tensor('int64', enc.attentionMask, dims),
    };
    if (this.session.inputNames.includes('token_type_ids')) {
      feeds.token_type_ids = new this.ort.Tensor('int64', enc.typeIds, dims);
    }
    const results = await this.session.run(feeds);
    const logits = results.logits ?? results[this.session.outputNames[0]!]!;
    const perPair = logits.dims.length === 1 ? 1 : logits.dims.slice(1).reduce((a, b) => a * b, 1);
    if (logits.dims[0] !== enc.batch || perPair !== 1) {
      throw new Error(
        `unexpected ONNX output shape [${logits.dims.join(', ')}]; a cross-encoder gives one relevance logit per pair ([batch, 1])`,
      );
    }
    return Array.from(logits.data as Float32Array);
  }
}
