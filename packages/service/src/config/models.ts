import path from 'node:path';
import { ConfigError, type Environment } from './environment.js';
import { MODEL_CATALOG } from './model-catalog.js';
import type { EmbeddingsConfig, LlmConfig, LocalModelSource, RerankConfig } from './sections.js';

/** The embedding and reranking settings: a provider, and for local models a folder or a pinned hub model. */

export function embeddingsConfig(e: Environment, cwd: string): EmbeddingsConfig {
  const prefixes = {
    queryPrefix: e.EMBEDDINGS_QUERY_PREFIX ?? '',
    passagePrefix: e.EMBEDDINGS_PASSAGE_PREFIX,
  };
  if (e.EMBEDDINGS_PROVIDER === 'openai') {
    if (!e.EMBEDDINGS_MODEL) {
      throw new ConfigError(
        'EMBEDDINGS_PROVIDER=openai needs EMBEDDINGS_MODEL (e.g. text-embedding-3-small)',
      );
    }
    return {
      provider: 'openai',
      baseUrl: e.EMBEDDINGS_BASE_URL ?? 'https://api.openai.com/v1',
      apiKey: e.EMBEDDINGS_API_KEY,
      model: e.EMBEDDINGS_MODEL,
      dimensions: e.EMBEDDINGS_DIMENSIONS,
      batchSize: e.EMBEDDINGS_BATCH_SIZE,
      concurrency: e.EMBEDDINGS_CONCURRENCY,
      timeoutMs: e.EMBEDDINGS_TIMEOUT_MS,
      maxRetries: e.EMBEDDINGS_MAX_RETRIES,
      ...prefixes,
    };
  }
  if (e.EMBEDDINGS_PROVIDER === 'local') {
    const source = localModelSource('EMBEDDINGS', 'embedder', cwd, {
      model: e.EMBEDDINGS_MODEL,
      dir: e.EMBEDDINGS_MODEL_DIR,
      revision: e.EMBEDDINGS_MODEL_REVISION,
      sha256: e.EMBEDDINGS_MODEL_SHA256,
      file: e.EMBEDDINGS_MODEL_FILE,
    });
    // A catalogued model brings the pooling and query instruction of its model card.
    const catalogued = source.kind === 'hub' ? MODEL_CATALOG[source.repo] : undefined;
    return {
      provider: 'local',
      source,
      maxTokens: e.EMBEDDINGS_MAX_TOKENS,
      batchSize: e.EMBEDDINGS_BATCH_SIZE,
      pooling: e.EMBEDDINGS_POOLING ?? catalogued?.pooling ?? 'mean',
      threads: e.EMBEDDINGS_THREADS,
      queryPrefix: e.EMBEDDINGS_QUERY_PREFIX ?? catalogued?.queryPrefix ?? '',
      passagePrefix: e.EMBEDDINGS_PASSAGE_PREFIX,
    };
  }
  return { provider: 'none' };
}

export function rerankConfig(e: Environment, cwd: string): RerankConfig {
  const candidates = e.RERANK_CANDIDATES;
  if (e.RERANK_PROVIDER === 'local') {
    const source = localModelSource('RERANK', 'cross-encoder', cwd, {
      model: e.RERANK_MODEL,
      dir: e.RERANK_MODEL_DIR,
      revision: e.RERANK_MODEL_REVISION,
      sha256: e.RERANK_MODEL_SHA256,
      file: e.RERANK_MODEL_FILE,
    });
    return {
      provider: 'local',
      source,
      candidates,
      maxTokens: e.RERANK_MAX_TOKENS,
      batchSize: e.RERANK_BATCH_SIZE,
      threads: e.RERANK_THREADS,
    };
  }
  if (e.RERANK_PROVIDER === 'http') {
    if (!e.RERANK_URL) {
      throw new ConfigError(
        'RERANK_PROVIDER=http needs RERANK_URL (the endpoint, e.g. http://tei:8080/rerank or https://api.cohere.com/v2/rerank)',
      );
    }
    if (e.RERANK_API === 'cohere' && !e.RERANK_MODEL) {
      throw new ConfigError('RERANK_API=cohere needs RERANK_MODEL (e.g. rerank-v3.5)');
    }
    return {
      provider: 'http',
      url: e.RERANK_URL,
      api: e.RERANK_API,
      model: e.RERANK_MODEL,
      apiKey: e.RERANK_API_KEY,
      candidates,
      timeoutMs: e.RERANK_TIMEOUT_MS,
      maxRetries: e.RERANK_MAX_RETRIES,
    };
  }
  return { provider: 'none' };
}

const REPO_ID = /^[A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*$/;
const COMMIT = /^[0-9a-f]{40}$/;
const TOKENIZER_FILE = 'tokenizer.json';

/**
 * A local model from `<P>_MODEL_DIR` (a folder) or `<P>_MODEL` (a Hugging Face id, downloaded once).
 * A model by name is always pinned: by the built-in table, or by `<P>_MODEL_REVISION` (a commit) and
 * `<P>_MODEL_SHA256` (`path=sha256` for the ONNX file and tokenizer.json).
 */
function localModelSource(
  prefix: 'EMBEDDINGS' | 'RERANK',
  kind: 'embedder' | 'cross-encoder',
  cwd: string,
  v: {
    model: string | undefined;
    dir: string | undefined;
    revision: string | undefined;
    sha256: string | undefined;
    file: string | undefined;
  },
): LocalModelSource {
  const provider = `${prefix}_PROVIDER=local`;
  if (v.model && v.dir) {
    throw new ConfigError(
      `${provider} takes ${prefix}_MODEL (a model downloaded by name) or ${prefix}_MODEL_DIR (a folder), not both`,
    );
  }
  if (v.dir) return { kind: 'dir', dir: path.resolve(cwd, v.dir) };
  const example = kind === 'embedder' ? 'BAAI/bge-small-en-v1.5' : 'cross-encoder/ms-marco-MiniLM-L6-v2';
  if (!v.model) {
    throw new ConfigError(
      `${provider} needs ${prefix}_MODEL (a Hugging Face model id, e.g. ${example}) or ${prefix}_MODEL_DIR (a folder with model.onnx and tokenizer.json)`,
    );
  }
  const repo = v.model;
  if (!REPO_ID.test(repo) || repo.includes('..')) {
    throw new ConfigError(
      `${prefix}_MODEL must be a Hugging Face model id such as ${example}, got "${repo}"`,
    );
  }
  const catalogued = MODEL_CATALOG[repo];
  if (catalogued && catalogued.kind !== kind) {
    throw new ConfigError(
      `${repo} is ${catalogued.kind === 'embedder' ? 'an embedding model' : 'a cross-encoder'}; it cannot serve as ${prefix}_MODEL`,
    );
  }
  const pinnedByTable = catalogued && v.revision === undefined && v.sha256 === undefined;
  if (pinnedByTable && (v.file === undefined || v.file === catalogued.onnxFile)) {
    return {
      kind: 'hub',
      repo,
      revision: catalogued.revision,
      onnxFile: catalogued.onnxFile,
      files: catalogued.files.map((f) => ({ ...f })),
    };
  }
  const onnxFile = v.file ?? 'onnx/model.onnx';
  if (!isRepoPath(onnxFile))
    throw new ConfigError(`${prefix}_MODEL_FILE is not a path in a repository: ${onnxFile}`);
  const howToPin = `${prefix}_MODEL_REVISION (a commit id) and ${prefix}_MODEL_SHA256 (${onnxFile}=<sha256>,${TOKENIZER_FILE}=<sha256>)`;
  if (v.revision === undefined || v.sha256 === undefined) {
    const known = Object.entries(MODEL_CATALOG)
      .filter(([, m]) => m.kind === kind)
      .map(([id]) => id)
      .join(', ');
    throw new ConfigError(
      catalogued
        ? `${prefix}_MODEL=${repo} with another revision or file must be pinned: set ${howToPin}`
        : `${prefix}_MODEL=${repo} is not in the table of pinned models (${known}); pin it with ${howToPin}`,
    );
  }
  if (!COMMIT.test(v.revision)) {
    throw new ConfigError(
      `${prefix}_MODEL_REVISION must be a full commit id (40 hex digits), got "${v.revision}"`,
    );
  }
  const checksums = new Map<string, string>();
  for (const entry of v.sha256
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)) {
    const m = /^(.+?)=([0-9a-fA-F]{64})$/.exec(entry);
    if (!m) throw new ConfigError(`${prefix}_MODEL_SHA256: "${entry}" is not <path>=<64 hex digits>`);
    checksums.set(m[1]!.trim(), m[2]!.toLowerCase());
  }
  const wanted = [onnxFile, TOKENIZER_FILE];
  const missing = wanted.filter((f) => !checksums.has(f));
  const extra = [...checksums.keys()].filter((f) => !wanted.includes(f));
  if (missing.length || extra.length) {
    throw new ConfigError(
      `${prefix}_MODEL_SHA256 must give exactly ${wanted.join(' and ')}` +
        (missing.length ? `; missing: ${missing.join(', ')}` : '') +
        (extra.length ? `; not downloaded: ${extra.join(', ')}` : ''),
    );
  }
  return {
    kind: 'hub',
    repo,
    revision: v.revision,
    onnxFile,
    files: wanted.map((f) => ({ path: f, sha256: checksums.get(f)! })),
  };
}

/** A relative path inside a repository: no leading slash, no empty, `.` or `..` segments. */
function isRepoPath(p: string): boolean {
  return p.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..' && !seg.includes('\\'));
}

/** An OpenAI-compatible chat model for answers (LLM_*); undefined: extractive answers. */
export function llmConfig(e: Environment): LlmConfig | undefined {
  if ((e.LLM_BASE_URL === undefined) !== (e.LLM_MODEL === undefined)) {
    throw new ConfigError(
      'LLM_BASE_URL and LLM_MODEL are set together (LLM_API_KEY when the server needs one)',
    );
  }
  return e.LLM_BASE_URL && e.LLM_MODEL
    ? {
        baseUrl: e.LLM_BASE_URL,
        apiKey: e.LLM_API_KEY,
        model: e.LLM_MODEL,
        maxTokens: e.LLM_MAX_TOKENS,
        temperature: e.LLM_TEMPERATURE,
        timeoutMs: e.LLM_TIMEOUT_MS,
        maxRetries: e.LLM_MAX_RETRIES,
      }
    : undefined;
}
