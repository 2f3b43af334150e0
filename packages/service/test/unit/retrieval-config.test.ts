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

  it('resolves a local model folder and refuses the local provider without one', () => {
    const c = loadConfig({ EMBEDDINGS_PROVIDER: 'local', EMBEDDINGS_MODEL_DIR: 'models/minilm' }, '/srv/app');
    expect(c.embeddings).toMatchObject({ provider: 'local', dir: '/srv/app/models/minilm', pooling: 'mean' });
    expect(() => loadConfig({ EMBEDDINGS_PROVIDER: 'local' })).toThrow(ConfigError);
    expect(() => loadConfig({ EMBEDDINGS_PROVIDER: 'cohere' })).toThrow(/EMBEDDINGS_PROVIDER/);
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
