import type { Embedder } from '../../domain/ports.js';
import { withoutTrailingSlashes } from '../../strings.js';
import { fetchWithRetry, type RetryPolicy } from './http-retry.js';

export interface OpenAiEmbedderOptions {
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  /** Asks the server for vectors of this size (models that support shortening); unset = the model's own. */
  dimensions: number | undefined;
  batchSize: number;
  concurrency: number;
  queryPrefix: string;
  passagePrefix: string;
  retry: RetryPolicy;
  timeoutMs: number;
}

interface EmbeddingsResponse {
  data?: { embedding: number[]; index: number }[];
}

/**
 * Any server that speaks OpenAI's `POST /embeddings` (OpenAI, Ollama, vLLM, TEI, LiteLLM…). Texts go
 * in batches, at most `concurrency` requests at a time; 429 and 5xx are retried with back-off that
 * honours `Retry-After`.
 */
export class OpenAiEmbedder implements Embedder {
  readonly model: string;

  constructor(private readonly options: OpenAiEmbedderOptions) {
    this.model = `openai:${options.model}${options.dimensions ? `@${options.dimensions}` : ''}`;
  }

  /** The same endpoint asked for another model: how queries reach vectors of a previous model. */
  withModel(model: string): OpenAiEmbedder {
    const m = /^openai:(.+?)(?:@(\d+))?$/.exec(model);
    if (!m) throw new Error(`not an OpenAI-compatible model id: ${model}`);
    return new OpenAiEmbedder({
      ...this.options,
      model: m[1]!,
      dimensions: m[2] ? Number(m[2]) : undefined,
    });
  }

  async embedQuery(text: string, signal?: AbortSignal): Promise<Float32Array> {
    const [v] = await this.request([this.options.queryPrefix + text], signal);
    return v!;
  }

  async embedPassages(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const out: Float32Array[] = new Array(texts.length);
    const batches: number[] = [];
    for (let i = 0; i < texts.length; i += this.options.batchSize) batches.push(i);
    let next = 0;
    const lane = async () => {
      while (next < batches.length) {
        const start = batches[next++]!;
        const slice = texts
          .slice(start, start + this.options.batchSize)
          .map((t) => this.options.passagePrefix + t);
        const vectors = await this.request(slice, signal);
        vectors.forEach((v, i) => {
          out[start + i] = v;
        });
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.options.concurrency, batches.length) }, lane));
    return out;
  }

  private async request(input: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const url = `${withoutTrailingSlashes(this.options.baseUrl)}/embeddings`;
    const body = JSON.stringify({
      model: this.options.model,
      input,
      encoding_format: 'float',
      ...(this.options.dimensions ? { dimensions: this.options.dimensions } : {}),
    });
    const res = await fetchWithRetry(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
        },
        body,
      },
      { ...this.options.retry, timeoutMs: this.options.timeoutMs, what: 'embeddings' },
      signal,
    );
    const json = (await res.json()) as EmbeddingsResponse;
    const data = json.data;
    if (!Array.isArray(data) || data.length !== input.length) {
      throw new Error(
        `embeddings endpoint returned ${data?.length ?? 'no'} vectors for ${input.length} inputs`,
      );
    }
    const vectors: Float32Array[] = new Array(input.length);
    for (const d of data) {
      if (!Array.isArray(d.embedding) || d.embedding.length === 0)
        throw new Error('embeddings endpoint returned an empty vector');
      vectors[d.index] = Float32Array.from(d.embedding);
    }
    if (vectors.some((v) => v === undefined))
      throw new Error('embeddings endpoint returned vectors with wrong indexes');
    return vectors;
  }
}
