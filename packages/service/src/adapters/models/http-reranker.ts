import type { Reranker } from '../../domain/ports.js';
import { fetchWithRetry, type RetryPolicy } from './http-retry.js';

export interface HttpRerankerOptions {
  /** The endpoint itself: TEI's `…/rerank`, Cohere's `…/v2/rerank` (or a server speaking either). */
  url: string;
  api: 'tei' | 'cohere';
  /** Sent as `model` (Cohere's shape; TEI serves one model and takes none). */
  model: string | undefined;
  apiKey: string | undefined;
  timeoutMs: number;
  retry: RetryPolicy;
}

/**
 * A reranking server. Two request shapes, chosen by `api`:
 * - `tei` (Hugging Face Text Embeddings Inference, also Infinity and others):
 *   `{"query", "texts": [...], "truncate": true}` → `[{"index", "score"}, …]`;
 * - `cohere` (Cohere's v2 API, also Jina, vLLM, LiteLLM):
 *   `{"model", "query", "documents": [...], "top_n"}` → `{"results": [{"index", "relevance_score"}, …]}`.
 * Either response is accepted whichever shape was sent. Every passage must come back with a score.
 */
export class HttpReranker implements Reranker {
  readonly model: string;

  constructor(private readonly options: HttpRerankerOptions) {
    this.model = `http:${options.model ?? options.url}`;
  }

  async score(query: string, passages: string[], signal?: AbortSignal): Promise<number[]> {
    const o = this.options;
    const body =
      o.api === 'tei'
        ? { query, texts: passages, truncate: true, raw_scores: false }
        : { model: o.model, query, documents: passages, top_n: passages.length };
    const res = await fetchWithRetry(
      o.url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}),
        },
        body: JSON.stringify(body),
      },
      { ...o.retry, timeoutMs: o.timeoutMs, what: 'reranking' },
      signal,
    );
    return scoresOf(await res.json(), passages.length);
  }
}

/** The scores of either response shape, in the passages' order. */
export function scoresOf(json: unknown, count: number): number[] {
  const items: unknown = Array.isArray(json) ? json : (json as { results?: unknown } | null)?.results;
  if (!Array.isArray(items))
    throw new Error('reranking endpoint answered neither [{index, score}] nor {results}');
  const scores: (number | undefined)[] = new Array(count).fill(undefined);
  for (const item of items as { index?: unknown; score?: unknown; relevance_score?: unknown }[]) {
    const index = item?.index;
    const score = item?.score ?? item?.relevance_score;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count) {
      throw new Error(`reranking endpoint returned an index outside 0…${count - 1}: ${String(index)}`);
    }
    if (typeof score !== 'number' || !Number.isFinite(score)) {
      throw new Error(`reranking endpoint returned no numeric score for passage ${index}`);
    }
    scores[index] = score;
  }
  const missing = scores.filter((s) => s === undefined).length;
  if (missing > 0) throw new Error(`reranking endpoint scored ${count - missing} of ${count} passages`);
  return scores as number[];
}
