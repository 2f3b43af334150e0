import net from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { MODEL_CATALOG } from './adapters/models/catalog.js';
import { consoleDistDir } from './paths.js';

/**
 * The whole configuration, parsed once from the environment at start-up and passed down.
 * Nothing else in the service reads `process.env`.
 */
export interface Config {
  /** `embedded`: everything local under DATA_DIR. `stack`: external PostgreSQL (DATABASE_URL) and friends. */
  mode: 'embedded' | 'stack';
  production: boolean;
  dataDir: string;
  database: {
    /** Unset in embedded mode until the embedded PostgreSQL has started. */
    url: string | undefined;
    /** The job engine's database in the same instance; derived from `url` when unset. */
    workflowUrl: string | undefined;
    /** Schema that holds the job engine's tables (WORKFLOW_NAMESPACE). */
    workflowNamespace: string;
    poolSize: number;
  };
  server: {
    host: string;
    port: number;
    publicUrl: string | undefined;
    /**
     * Reverse proxies (addresses or CIDR ranges) whose X-Forwarded-For, -Proto and -Host headers are
     * believed (TRUSTED_PROXIES). Empty: the socket's address is the client, whatever a header says.
     */
    trustedProxies: string[];
    /** The whole request (headers and body, uploads included) must arrive within this. */
    requestTimeoutMs: number;
    /**
     * The headers, and a body that is not an upload, must arrive within this; an upload may pause
     * for at most this long.
     */
    bodyTimeoutMs: number;
    /** An idle keep-alive connection is closed after this. */
    keepAliveTimeoutMs: number;
    /** Open connections one client address may hold (configured proxies excepted); 0: no cap. */
    maxConnectionsPerAddress: number;
  };
  objects:
    | { kind: 'fs'; dir: string }
    | {
        kind: 's3';
        bucket: string;
        region: string;
        endpoint: string | undefined;
        forcePathStyle: boolean;
        accessKeyId: string | undefined;
        secretAccessKey: string | undefined;
      };
  index: { uri: string };
  cache: { kind: 'memory' } | { kind: 'redis'; url: string };
  encryption: {
    /** 64 hex characters; in embedded mode generated under DATA_DIR when unset. */
    key: string | undefined;
    /** The key before the last rotation: still decrypts until `docslurp secrets rotate` has run. */
    previousKey: string | undefined;
  };
  metricsSecret: string | undefined;
  hostedPlatformAppName: string | undefined;
  bootstrapApiKey: string | undefined;
  console: {
    sessionTtlHours: number;
    loginAttemptsPerMinute: number;
    /** First console user, ensured at server start (written by selfhost-init.mjs). */
    adminEmail: string | undefined;
    adminPassword: string | undefined;
    /** The built web console served under `/` (CONSOLE_DIR; default packages/console/dist). */
    assetsDir: string;
  };
  worker: {
    docConcurrency: number;
    leaseSeconds: number;
    maxAttempts: number;
    reconcileIntervalSeconds: number;
    pollIntervalSeconds: number;
  };
  limits: {
    maxFileBytes: number;
    maxFilesPerUpload: number;
    jsonBodyBytes: number;
    maxQueryChars: number;
    maxTopK: number;
    rateLimitPerMinute: number;
  };
  urlFetch: {
    /** Hosts and CIDR ranges that may be fetched although they are private (URL_FETCH_ALLOW_HOSTS). */
    allowHosts: string[];
    timeoutMs: number;
    maxRedirects: number;
    maxBytes: number;
    maxUrlsPerRequest: number;
  };
  logLevel: string;
  parser: ParserConfig;
  /** Where models named by their Hugging Face id are downloaded from and kept. */
  models: ModelsConfig;
  embeddings: EmbeddingsConfig;
  /** A second stage that reorders the best candidates of each search; off by default. */
  rerank: RerankConfig;
  search: {
    hybridVectorWeight: number;
    documentEvidence: number;
    proximityWeight: number;
    coverageWeight: number;
  };
  /** An OpenAI-compatible chat model for answers; extractive answers when unset. */
  llm: LlmConfig | undefined;
}

/** How documents are parsed: in a sandbox, with which tools, within which limits. */
export interface ParserConfig {
  /** `required`: the worker refuses to start without bubblewrap. `auto`: falls back to a plain child process. */
  isolation: 'required' | 'auto';
  /** `full` adds OCR (tesseract) and legacy Office conversion (LibreOffice). */
  profile: 'default' | 'full';
  limits: ParserLimits;
  /** Documents of one workspace one parser process may parse before it ends (1: a process each). */
  documentsPerProcess: number;
  /** How long a parser process waits for its workspace's next document before it ends. */
  idleSeconds: number;
  /** Where to look for bubblewrap: PARSER_BWRAP_PATH, else the PATH the worker was started with. */
  bwrapSearchPath: string;
}

export interface ParserLimits {
  /** Wall-clock time for one document. */
  timeoutSeconds: number;
  /** CPU time of the sandboxed process tree for one document. */
  cpuSeconds: number;
  /** Resident memory of the whole sandboxed process tree. */
  memoryBytes: number;
  /** Size of the extracted text (and of everything the parser writes back). */
  outputBytes: number;
  /** Size of the sandbox's private temporary folder. */
  tmpBytes: number;
  /** Total inflated size of the parts of a zip-based file (DOCX, XLSX, EPUB…). */
  unpackedBytes: number;
}

export interface ModelRetryConfig {
  timeoutMs: number;
  maxRetries: number;
}

export interface ModelsConfig {
  /** Base URL of a Hugging Face-compatible hub (MODEL_HUB_URL). */
  hubUrl: string;
  /** Verified copies live in `<dir>/<repo>/<revision>/` (MODELS_DIR, default DATA_DIR/models). */
  dir: string;
  /** After a failed download (hub unreachable), the next attempt; 0 = only at the next start. */
  retrySeconds: number;
}

/** A model repository on the hub, pinned to a commit and to the SHA-256 of every file used. */
export interface HubModelRef {
  repo: string;
  revision: string;
  /** The ONNX graph's path in the repository. */
  onnxFile: string;
  /** Every file downloaded (the graph and tokenizer.json). */
  files: { path: string; sha256: string }[];
}

/** An ONNX model and its tokenizer.json: in a folder, or downloaded once from the hub by name. */
export type LocalModelSource = { kind: 'dir'; dir: string } | ({ kind: 'hub' } & HubModelRef);

export type RerankConfig =
  | { provider: 'none' }
  | {
      provider: 'local';
      source: LocalModelSource;
      candidates: number;
      maxTokens: number;
      batchSize: number;
      threads: number;
    }
  | ({
      provider: 'http';
      /** The endpoint itself, e.g. http://tei:8080/rerank or https://api.cohere.com/v2/rerank. */
      url: string;
      /** The request and response shape: TEI's `/rerank` or Cohere's `/v2/rerank`. */
      api: 'tei' | 'cohere';
      model: string | undefined;
      apiKey: string | undefined;
      candidates: number;
    } & ModelRetryConfig);

export type EmbeddingsConfig =
  | { provider: 'none' }
  | ({
      provider: 'openai';
      baseUrl: string;
      apiKey: string | undefined;
      model: string;
      dimensions: number | undefined;
      batchSize: number;
      concurrency: number;
      queryPrefix: string;
      passagePrefix: string;
    } & ModelRetryConfig)
  | {
      provider: 'local';
      source: LocalModelSource;
      maxTokens: number;
      batchSize: number;
      pooling: 'mean' | 'cls';
      threads: number;
      queryPrefix: string;
      passagePrefix: string;
    };

export interface LlmConfig extends ModelRetryConfig {
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  maxTokens: number;
  temperature: number;
}

export class ConfigError extends Error {}

const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);
const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));
const bool = (def: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
    .optional()
    .transform((v) => (v === undefined || v === '' ? def : v === 'true' || v === '1' || v === 'yes'));

/** An enumerated setting where an empty value (as compose files pass them through) means unset. */
const blankable = <T extends string>(values: readonly [T, ...T[]]) =>
  z
    .enum([...values, ''] as [T | '', ...(T | '')[]])
    .optional()
    .transform((v): T | undefined => (v ? (v as T) : undefined));

const envSchema = z.object({
  NODE_ENV: optionalString,
  DATA_DIR: optionalString,
  DATABASE_URL: optionalString,
  WORKFLOW_DATABASE_URL: optionalString,
  WORKFLOW_NAMESPACE: optionalString,
  DATABASE_POOL_SIZE: int(10, 1),
  SERVER_BIND_ADDRESS: optionalString,
  SERVER_PORT: int(8080, 0).pipe(z.number().max(65535)),
  SELFHOST_URL: optionalString,
  TRUSTED_PROXIES: optionalString,
  HTTP_REQUEST_TIMEOUT_SECONDS: int(600, 1),
  HTTP_BODY_TIMEOUT_SECONDS: int(30, 1),
  HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: int(72, 1),
  HTTP_MAX_CONNECTIONS_PER_ADDRESS: int(100, 0),
  OBJECT_STORE: z.enum(['fs', 's3']).optional(),
  S3_BUCKET: optionalString,
  S3_REGION: optionalString,
  S3_ENDPOINT: optionalString,
  S3_FORCE_PATH_STYLE: bool(true),
  AWS_ACCESS_KEY_ID: optionalString,
  AWS_SECRET_ACCESS_KEY: optionalString,
  INDEX_URI: optionalString,
  REDIS_URL: optionalString,
  METRICS_SECRET: optionalString,
  ENCRYPTION_KEY: optionalString.pipe(
    z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters')
      .optional(),
  ),
  ENCRYPTION_KEY_PREVIOUS: optionalString.pipe(
    z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters')
      .optional(),
  ),
  HOSTED_PLATFORM_APP_NAME: optionalString,
  SERVICE_BOOTSTRAP_API_KEY: optionalString,
  SESSION_TTL_HOURS: int(12, 1),
  LOGIN_ATTEMPTS_PER_MINUTE: int(10, 1),
  CONSOLE_ADMIN_EMAIL: optionalString,
  CONSOLE_ADMIN_PASSWORD: optionalString,
  CONSOLE_DIR: optionalString,
  WORKER_DOC_CONCURRENCY: int(1, 1),
  DOCUMENT_LEASE_SECONDS: int(60, 2),
  DOCUMENT_MAX_ATTEMPTS: int(3, 1),
  RECONCILE_INTERVAL_SECONDS: int(15, 1),
  JOB_POLL_INTERVAL_SECONDS: z.coerce.number().min(0.5).default(0.5),
  UPLOAD_MAX_FILE_BYTES: int(512 * 1024 * 1024, 1),
  UPLOAD_MAX_FILES: int(1000, 1),
  JSON_BODY_LIMIT_BYTES: int(1024 * 1024, 1024),
  QUERY_MAX_CHARS: int(2000, 1),
  SEARCH_MAX_TOP_K: int(100, 1),
  RATE_LIMIT_PER_MINUTE: int(600, 0),
  URL_FETCH_ALLOW_HOSTS: optionalString,
  URL_FETCH_TIMEOUT_SECONDS: int(30, 1),
  URL_FETCH_MAX_REDIRECTS: int(5, 0),
  URL_FETCH_MAX_BYTES: z.coerce.number().int().min(1).optional(),
  URLS_PER_REQUEST: int(100, 1),
  PARSER_ISOLATION: blankable(['required', 'auto']),
  WORKER_PROFILE: blankable(['default', 'full']),
  PARSER_TIMEOUT_SECONDS: int(300, 1),
  PARSER_CPU_SECONDS: int(300, 1),
  PARSER_MEMORY_MB: int(1536, 64),
  PARSER_MAX_OUTPUT_MB: int(64, 1),
  PARSER_TMP_MB: int(1024, 16),
  PARSER_MAX_UNPACKED_MB: int(1024, 1),
  PARSER_BWRAP_PATH: optionalString,
  PARSER_DOCUMENTS_PER_PROCESS: int(20, 1),
  PARSER_PROCESS_IDLE_SECONDS: int(10, 1),
  PATH: optionalString,
  EMBEDDINGS_PROVIDER: z.enum(['none', 'openai', 'local']).default('none'),
  EMBEDDINGS_BASE_URL: optionalString,
  EMBEDDINGS_API_KEY: optionalString,
  EMBEDDINGS_MODEL: optionalString,
  EMBEDDINGS_DIMENSIONS: z.coerce.number().int().min(1).optional(),
  EMBEDDINGS_MODEL_DIR: optionalString,
  EMBEDDINGS_MODEL_REVISION: optionalString,
  EMBEDDINGS_MODEL_SHA256: optionalString,
  EMBEDDINGS_MODEL_FILE: optionalString,
  EMBEDDINGS_BATCH_SIZE: int(32, 1),
  EMBEDDINGS_CONCURRENCY: int(2, 1),
  EMBEDDINGS_MAX_TOKENS: int(256, 8),
  EMBEDDINGS_POOLING: blankable(['mean', 'cls']),
  EMBEDDINGS_THREADS: int(1, 0),
  // Unset means the model's own (from the built-in table); set, even to nothing, it is used as is.
  EMBEDDINGS_QUERY_PREFIX: z.string().optional(),
  EMBEDDINGS_PASSAGE_PREFIX: z.string().default(''),
  EMBEDDINGS_TIMEOUT_MS: int(60_000, 100),
  EMBEDDINGS_MAX_RETRIES: int(5, 0),
  MODEL_HUB_URL: optionalString.pipe(z.string().url().optional()),
  MODELS_DIR: optionalString,
  MODEL_DOWNLOAD_RETRY_SECONDS: int(300, 0),
  RERANK_PROVIDER: z.enum(['none', 'local', 'http']).default('none'),
  RERANK_CANDIDATES: int(30, 2),
  RERANK_MODEL: optionalString,
  RERANK_MODEL_DIR: optionalString,
  RERANK_MODEL_REVISION: optionalString,
  RERANK_MODEL_SHA256: optionalString,
  RERANK_MODEL_FILE: optionalString,
  RERANK_MAX_TOKENS: int(512, 8),
  RERANK_BATCH_SIZE: int(16, 1),
  RERANK_THREADS: int(1, 0),
  RERANK_URL: optionalString.pipe(z.string().url().optional()),
  RERANK_API: z.enum(['tei', 'cohere']).default('tei'),
  RERANK_API_KEY: optionalString,
  RERANK_TIMEOUT_MS: int(10_000, 100),
  RERANK_MAX_RETRIES: int(1, 0),
  SEARCH_HYBRID_VECTOR_WEIGHT: z.coerce.number().min(0).max(1).default(0.5),
  SEARCH_DOCUMENT_EVIDENCE: z.coerce.number().min(0).max(1).default(0),
  SEARCH_PROXIMITY_WEIGHT: z.coerce.number().min(0).max(10).default(0.2),
  SEARCH_COVERAGE_WEIGHT: z.coerce.number().min(0).max(10).default(0),
  LLM_BASE_URL: optionalString,
  LLM_API_KEY: optionalString,
  LLM_MODEL: optionalString,
  LLM_MAX_TOKENS: int(800, 1),
  LLM_TEMPERATURE: z.coerce.number().min(0).max(2).default(0.1),
  LLM_TIMEOUT_MS: int(120_000, 100),
  LLM_MAX_RETRIES: int(2, 0),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export const DEFAULT_WORKFLOW_NAMESPACE = 'service';
const MIB = 1024 * 1024;

export function loadConfig(env: Record<string, string | undefined>, cwd = process.cwd()): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  const production = e.NODE_ENV === 'production';
  const mode = e.DATABASE_URL ? 'stack' : 'embedded';
  const dataDir = path.resolve(cwd, e.DATA_DIR ?? './data');

  // In production the namespace must be chosen explicitly: a shared `default` namespace lets two
  // deployments on one database steal each other's jobs.
  if (production && (e.WORKFLOW_NAMESPACE === undefined || e.WORKFLOW_NAMESPACE === 'default')) {
    throw new ConfigError(
      'the workflow namespace must be non-default in production: set WORKFLOW_NAMESPACE (compose sets "service")',
    );
  }
  const namespace = e.WORKFLOW_NAMESPACE ?? DEFAULT_WORKFLOW_NAMESPACE;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(namespace)) {
    throw new ConfigError(`WORKFLOW_NAMESPACE must be a lower-case SQL identifier, got "${namespace}"`);
  }

  const objectKind = e.OBJECT_STORE ?? (e.S3_ENDPOINT || e.S3_BUCKET ? 's3' : 'fs');
  const bucket = e.S3_BUCKET ?? 'service-files';
  const objects: Config['objects'] =
    objectKind === 'fs'
      ? { kind: 'fs', dir: path.join(dataDir, 'objects') }
      : {
          kind: 's3',
          bucket,
          region: e.S3_REGION ?? 'us-east-1',
          endpoint: e.S3_ENDPOINT,
          forcePathStyle: e.S3_FORCE_PATH_STYLE,
          accessKeyId: e.AWS_ACCESS_KEY_ID,
          secretAccessKey: e.AWS_SECRET_ACCESS_KEY,
        };
  const indexUri =
    e.INDEX_URI ?? (objectKind === 's3' ? `s3://${bucket}/lancedb` : path.join(dataDir, 'index'));

  const host = e.SERVER_BIND_ADDRESS ?? '127.0.0.1';
  const trustedProxies = parseTrustedProxies(e.TRUSTED_PROXIES);
  if (e.HTTP_BODY_TIMEOUT_SECONDS > e.HTTP_REQUEST_TIMEOUT_SECONDS) {
    throw new ConfigError('HTTP_BODY_TIMEOUT_SECONDS may not exceed HTTP_REQUEST_TIMEOUT_SECONDS');
  }
  const embeddings = embeddingsConfig(e, cwd);
  if ((e.LLM_BASE_URL === undefined) !== (e.LLM_MODEL === undefined)) {
    throw new ConfigError(
      'LLM_BASE_URL and LLM_MODEL are set together (LLM_API_KEY when the server needs one)',
    );
  }
  const llm: LlmConfig | undefined =
    e.LLM_BASE_URL && e.LLM_MODEL
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
  return {
    mode,
    production,
    dataDir,
    database: {
      url: e.DATABASE_URL,
      workflowUrl: e.WORKFLOW_DATABASE_URL,
      workflowNamespace: namespace,
      poolSize: e.DATABASE_POOL_SIZE,
    },
    server: {
      host,
      port: e.SERVER_PORT,
      publicUrl: e.SELFHOST_URL,
      trustedProxies,
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_SECONDS * 1000,
      bodyTimeoutMs: e.HTTP_BODY_TIMEOUT_SECONDS * 1000,
      keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_SECONDS * 1000,
      maxConnectionsPerAddress: e.HTTP_MAX_CONNECTIONS_PER_ADDRESS,
    },
    objects,
    index: { uri: indexUri },
    cache: e.REDIS_URL ? { kind: 'redis', url: e.REDIS_URL } : { kind: 'memory' },
    encryption: { key: e.ENCRYPTION_KEY, previousKey: e.ENCRYPTION_KEY_PREVIOUS },
    metricsSecret: e.METRICS_SECRET,
    hostedPlatformAppName: e.HOSTED_PLATFORM_APP_NAME,
    bootstrapApiKey: e.SERVICE_BOOTSTRAP_API_KEY,
    console: {
      sessionTtlHours: e.SESSION_TTL_HOURS,
      loginAttemptsPerMinute: e.LOGIN_ATTEMPTS_PER_MINUTE,
      adminEmail: e.CONSOLE_ADMIN_EMAIL,
      adminPassword: e.CONSOLE_ADMIN_PASSWORD,
      assetsDir: e.CONSOLE_DIR ? path.resolve(cwd, e.CONSOLE_DIR) : consoleDistDir(),
    },
    worker: {
      docConcurrency: e.WORKER_DOC_CONCURRENCY,
      leaseSeconds: e.DOCUMENT_LEASE_SECONDS,
      maxAttempts: e.DOCUMENT_MAX_ATTEMPTS,
      reconcileIntervalSeconds: e.RECONCILE_INTERVAL_SECONDS,
      pollIntervalSeconds: e.JOB_POLL_INTERVAL_SECONDS,
    },
    limits: {
      maxFileBytes: e.UPLOAD_MAX_FILE_BYTES,
      maxFilesPerUpload: e.UPLOAD_MAX_FILES,
      jsonBodyBytes: e.JSON_BODY_LIMIT_BYTES,
      maxQueryChars: e.QUERY_MAX_CHARS,
      maxTopK: e.SEARCH_MAX_TOP_K,
      rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    },
    urlFetch: {
      allowHosts: (e.URL_FETCH_ALLOW_HOSTS ?? '')
        .split(',')
        .map((h) => h.trim())
        .filter(Boolean),
      timeoutMs: e.URL_FETCH_TIMEOUT_SECONDS * 1000,
      maxRedirects: e.URL_FETCH_MAX_REDIRECTS,
      maxBytes: e.URL_FETCH_MAX_BYTES ?? e.UPLOAD_MAX_FILE_BYTES,
      maxUrlsPerRequest: e.URLS_PER_REQUEST,
    },
    logLevel: e.LOG_LEVEL,
    parser: {
      // A stack worker handles other people's files on a server: isolation is not optional there.
      isolation: e.PARSER_ISOLATION ?? (mode === 'stack' ? 'required' : 'auto'),
      profile: e.WORKER_PROFILE ?? 'default',
      bwrapSearchPath: e.PARSER_BWRAP_PATH ?? e.PATH ?? '/usr/local/bin:/usr/bin:/bin',
      documentsPerProcess: e.PARSER_DOCUMENTS_PER_PROCESS,
      idleSeconds: e.PARSER_PROCESS_IDLE_SECONDS,
      limits: {
        timeoutSeconds: e.PARSER_TIMEOUT_SECONDS,
        cpuSeconds: e.PARSER_CPU_SECONDS,
        memoryBytes: e.PARSER_MEMORY_MB * MIB,
        outputBytes: e.PARSER_MAX_OUTPUT_MB * MIB,
        tmpBytes: e.PARSER_TMP_MB * MIB,
        unpackedBytes: e.PARSER_MAX_UNPACKED_MB * MIB,
      },
    },
    models: {
      hubUrl: (e.MODEL_HUB_URL ?? 'https://huggingface.co').replace(/\/+$/, ''),
      dir: e.MODELS_DIR ? path.resolve(cwd, e.MODELS_DIR) : path.join(dataDir, 'models'),
      retrySeconds: e.MODEL_DOWNLOAD_RETRY_SECONDS,
    },
    embeddings,
    rerank: rerankConfig(e, cwd),
    search: {
      hybridVectorWeight: e.SEARCH_HYBRID_VECTOR_WEIGHT,
      documentEvidence: e.SEARCH_DOCUMENT_EVIDENCE,
      proximityWeight: e.SEARCH_PROXIMITY_WEIGHT,
      coverageWeight: e.SEARCH_COVERAGE_WEIGHT,
    },
    llm,
  };
}

/** `10.0.0.5, 172.16.0.0/12, ::1`: addresses and CIDR ranges, nothing else (no names, no wildcards). */
function parseTrustedProxies(raw: string | undefined): string[] {
  const entries = (raw ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [address, prefix, extra] = entry.split('/');
    const family = net.isIP(address ?? '');
    const validPrefix =
      prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
    if (!family || !validPrefix || extra !== undefined) {
      throw new ConfigError(
        `TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR range (e.g. 10.0.0.5 or 172.16.0.0/12)`,
      );
    }
  }
  return entries;
}

function embeddingsConfig(e: z.infer<typeof envSchema>, cwd: string): EmbeddingsConfig {
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

function rerankConfig(e: z.infer<typeof envSchema>, cwd: string): RerankConfig {
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

/** The job engine lives in its own database of the same instance: `<service db>_workflow` by default. */
export function deriveWorkflowUrl(databaseUrl: string): string {
  const u = new URL(databaseUrl);
  const db = decodeURIComponent(u.pathname.replace(/^\//, '')) || 'postgres';
  u.pathname = `/${encodeURIComponent(`${db}_workflow`)}`;
  return u.toString();
}
