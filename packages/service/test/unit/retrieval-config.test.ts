import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('retrieval configuration', () => {
  it('defaults to BM25 only, extractive answers and the measured search settings', () => {
    const c = loadConfig({}, '/srv/app');
    expect(c.embeddings).toEqual({ provider: 'none' });
    expect(c.llm).toBeUndefined();
    expect(c.search).toEqual({
      hybridVectorWeight: 0.5,
      documentEvidence: 0,
      proximityWeight: 0.2,
      coverageWeight: 0,
    });
  });

  it('reads an OpenAI-compatible embeddings endpoint and refuses one without a model', () => {
    const c = loadConfig({
      EMBEDDINGS_PROVIDER: 'openai',
      EMBEDDINGS_BASE_URL: 'http://ollama:11434/v1',
      EMBEDDINGS_MODEL: 'nomic-embed-text',
      EMBEDDINGS_DIMENSIONS: '256',
    });
    expect(c.embeddings).toMatchObject({
      provider: 'openai',
      baseUrl: 'http://ollama:11434/v1',
      model: 'nomic-embed-text',
      dimensions: 256,
      batchSize: 32,
      concurrency: 2,
      maxRetries: 5,
    });
    expect(() => loadConfig({ EMBEDDINGS_PROVIDER: 'openai' })).toThrow(/needs EMBEDDINGS_MODEL/);
  });

  it('resolves a local model folder and refuses the local provider without a folder or a name', () => {
    const c = loadConfig({ EMBEDDINGS_PROVIDER: 'local', EMBEDDINGS_MODEL_DIR: 'models/minilm' }, '/srv/app');
    expect(c.embeddings).toMatchObject({
      provider: 'local',
      source: { kind: 'dir', dir: '/srv/app/models/minilm' },
      pooling: 'mean',
      queryPrefix: '',
    });
    expect(() => loadConfig({ EMBEDDINGS_PROVIDER: 'local' })).toThrow(ConfigError);
    expect(() => loadConfig({ EMBEDDINGS_PROVIDER: 'local' })).toThrow(
      /needs EMBEDDINGS_MODEL .* or EMBEDDINGS_MODEL_DIR/,
    );
    expect(() => loadConfig({ EMBEDDINGS_PROVIDER: 'cohere' })).toThrow(/EMBEDDINGS_PROVIDER/);
    expect(() =>
      loadConfig({
        EMBEDDINGS_PROVIDER: 'local',
        EMBEDDINGS_MODEL: 'BAAI/bge-small-en-v1.5',
        EMBEDDINGS_MODEL_DIR: 'm',
      }),
    ).toThrow(/not both/);
  });

  it('pins a model of the built-in table by its name alone, with its model card’s pooling and instruction', () => {
    const c = loadConfig(
      { EMBEDDINGS_PROVIDER: 'local', EMBEDDINGS_MODEL: 'BAAI/bge-small-en-v1.5' },
      '/srv/app',
    );
    expect(c.embeddings).toMatchObject({
      provider: 'local',
      source: {
        kind: 'hub',
        repo: 'BAAI/bge-small-en-v1.5',
        revision: '5c38ec7c405ec4b44b94cc5a9bb96e735b38267a',
        onnxFile: 'onnx/model.onnx',
        files: [
          { path: 'onnx/model.onnx', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
          { path: 'tokenizer.json', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
        ],
      },
      pooling: 'cls',
      queryPrefix: 'Represent this sentence for searching relevant passages: ',
    });
    expect(c.models).toEqual({
      hubUrl: 'https://huggingface.co',
      dir: '/srv/app/data/models',
      retrySeconds: 300,
    });
    // Explicit settings win over the table's, an empty prefix included.
    const own = loadConfig({
      EMBEDDINGS_PROVIDER: 'local',
      EMBEDDINGS_MODEL: 'BAAI/bge-small-en-v1.5',
      EMBEDDINGS_POOLING: 'mean',
      EMBEDDINGS_QUERY_PREFIX: '',
      MODEL_HUB_URL: 'http://mirror.internal:8080/',
      MODELS_DIR: '/var/models',
    });
    expect(own.embeddings).toMatchObject({ pooling: 'mean', queryPrefix: '' });
    expect(own.models).toMatchObject({ hubUrl: 'http://mirror.internal:8080', dir: '/var/models' });
    // A cross-encoder of the table is not an embedder.
    expect(() =>
      loadConfig({ EMBEDDINGS_PROVIDER: 'local', EMBEDDINGS_MODEL: 'cross-encoder/ms-marco-MiniLM-L6-v2' }),
    ).toThrow(/a cross-encoder; it cannot serve as EMBEDDINGS_MODEL/);
  });

  it('takes any other model only with a commit and a checksum for each downloaded file', () => {
    const sha = (c: string) => c.repeat(64);
    const env = {
      EMBEDDINGS_PROVIDER: 'local',
      EMBEDDINGS_MODEL: 'intfloat/e5-small-v2',
      EMBEDDINGS_MODEL_REVISION: 'ffb93f3bd4047442299a41ebb6fa998a38507c52',
      EMBEDDINGS_MODEL_SHA256: `onnx/model.onnx=${sha('a')}, tokenizer.json=${sha('B')}`,
    };
    expect(loadConfig(env).embeddings).toMatchObject({
      source: {
        kind: 'hub',
        repo: 'intfloat/e5-small-v2',
        revision: 'ffb93f3bd4047442299a41ebb6fa998a38507c52',
        files: [
          { path: 'onnx/model.onnx', sha256: sha('a') },
          { path: 'tokenizer.json', sha256: sha('b') },
        ],
      },
      pooling: 'mean',
    });
    const quantized = loadConfig({
      ...env,
      EMBEDDINGS_MODEL_FILE: 'onnx/model_quantized.onnx',
      EMBEDDINGS_MODEL_SHA256: `onnx/model_quantized.onnx=${sha('c')},tokenizer.json=${sha('d')}`,
    });
    expect(quantized.embeddings).toMatchObject({ source: { onnxFile: 'onnx/model_quantized.onnx' } });

    const without = { EMBEDDINGS_PROVIDER: 'local', EMBEDDINGS_MODEL: 'intfloat/e5-small-v2' };
    expect(() => loadConfig(without)).toThrow(
      /not in the table of pinned models \(BAAI\/bge-small-en-v1.5, sentence-transformers\/all-MiniLM-L6-v2\); pin it with EMBEDDINGS_MODEL_REVISION/,
    );
    expect(() => loadConfig({ ...env, EMBEDDINGS_MODEL_REVISION: 'main' })).toThrow(/full commit id/);
    expect(() => loadConfig({ ...env, EMBEDDINGS_MODEL_SHA256: `onnx/model.onnx=${sha('a')}` })).toThrow(
      /missing: tokenizer.json/,
    );
    expect(() => loadConfig({ ...env, EMBEDDINGS_MODEL_SHA256: 'onnx/model.onnx=abc' })).toThrow(
      /64 hex digits/,
    );
    expect(() => loadConfig({ ...env, EMBEDDINGS_MODEL: '../../etc' })).toThrow(/Hugging Face model id/);
    expect(() => loadConfig({ ...env, EMBEDDINGS_MODEL_FILE: '../model.onnx' })).toThrow(/not a path/);
    // Another revision of a catalogued model needs its own checksums.
    expect(() =>
      loadConfig({
        EMBEDDINGS_PROVIDER: 'local',
        EMBEDDINGS_MODEL: 'BAAI/bge-small-en-v1.5',
        EMBEDDINGS_MODEL_REVISION: 'ffb93f3bd4047442299a41ebb6fa998a38507c52',
      }),
    ).toThrow(/with another revision or file must be pinned/);
  });

  it('leaves reranking off by default and reads the local and HTTP rerankers', () => {
    expect(loadConfig({}).rerank).toEqual({ provider: 'none' });
    expect(
      loadConfig({ RERANK_PROVIDER: 'local', RERANK_MODEL: 'cross-encoder/ms-marco-MiniLM-L-6-v2' }).rerank,
    ).toMatchObject({
      provider: 'local',
      candidates: 30,
      maxTokens: 512,
      source: { kind: 'hub', repo: 'cross-encoder/ms-marco-MiniLM-L-6-v2', onnxFile: 'onnx/model.onnx' },
    });
    expect(loadConfig({ RERANK_PROVIDER: 'local', RERANK_MODEL_DIR: 'ce' }, '/srv').rerank).toMatchObject({
      source: { kind: 'dir', dir: '/srv/ce' },
    });
    expect(
      loadConfig({ RERANK_PROVIDER: 'http', RERANK_URL: 'http://tei:8080/rerank', RERANK_CANDIDATES: '50' })
        .rerank,
    ).toEqual({
      provider: 'http',
      url: 'http://tei:8080/rerank',
      api: 'tei',
      model: undefined,
      apiKey: undefined,
      candidates: 50,
      timeoutMs: 10_000,
      maxRetries: 1,
    });
    expect(() => loadConfig({ RERANK_PROVIDER: 'http' })).toThrow(/needs RERANK_URL/);
    expect(() =>
      loadConfig({
        RERANK_PROVIDER: 'http',
        RERANK_API: 'cohere',
        RERANK_URL: 'https://api.cohere.com/v2/rerank',
      }),
    ).toThrow(/needs RERANK_MODEL/);
    expect(() => loadConfig({ RERANK_PROVIDER: 'local', RERANK_MODEL: 'BAAI/bge-small-en-v1.5' })).toThrow(
      /an embedding model; it cannot serve as RERANK_MODEL/,
    );
  });

  it('takes a chat model only with both its base URL and its name', () => {
    const c = loadConfig({ LLM_BASE_URL: 'http://vllm:8000/v1', LLM_MODEL: 'qwen', LLM_API_KEY: 'k' });
    expect(c.llm).toMatchObject({
      baseUrl: 'http://vllm:8000/v1',
      model: 'qwen',
      apiKey: 'k',
      maxTokens: 800,
    });
    expect(() => loadConfig({ LLM_BASE_URL: 'http://vllm:8000/v1' })).toThrow(/LLM_BASE_URL and LLM_MODEL/);
  });
});
