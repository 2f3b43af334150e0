import path from 'node:path';
import { z } from 'zod';
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
  server: { host: string; port: number; publicUrl: string | undefined };
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
    /** Most documents of one workspace a consumer takes at once (1: one at a time). */
    batchDocuments: number;
    /** Most bytes of originals in one batch; a larger document is processed alone. */
    batchMaxBytes: number;
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
  embeddings: EmbeddingsConfig;
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
      dir: string;
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
  WORKER_BATCH_DOCUMENTS: int(50, 1),
  WORKER_BATCH_MAX_BYTES: int(1024 * 1024, 1),
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
  PARSER_DOCUMENTS_PER_PROCESS: int(200, 1),
  PARSER_PROCESS_IDLE_SECONDS: int(10, 1),
  PATH: optionalString,
  EMBEDDINGS_PROVIDER: z.enum(['none', 'openai', 'local']).default('none'),
  EMBEDDINGS_BASE_URL: optionalString,
  EMBEDDINGS_API_KEY: optionalString,
  EMBEDDINGS_MODEL: optionalString,
  EMBEDDINGS_DIMENSIONS: z.coerce.number().int().min(1).optional(),
  EMBEDDINGS_MODEL_DIR: optionalString,
  EMBEDDINGS_BATCH_SIZE: int(32, 1),
  EMBEDDINGS_CONCURRENCY: int(2, 1),
  EMBEDDINGS_MAX_TOKENS: int(256, 8),
  EMBEDDINGS_POOLING: z.enum(['mean', 'cls']).default('mean'),
  EMBEDDINGS_THREADS: int(1, 0),
  EMBEDDINGS_QUERY_PREFIX: z.string().default(''),
  EMBEDDINGS_PASSAGE_PREFIX: z.string().default(''),
  EMBEDDINGS_TIMEOUT_MS: int(60_000, 100),
  EMBEDDINGS_MAX_RETRIES: int(5, 0),
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
    server: { host, port: e.SERVER_PORT, publicUrl: e.SELFHOST_URL },
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
      batchDocuments: e.WORKER_BATCH_DOCUMENTS,
      batchMaxBytes: e.WORKER_BATCH_MAX_BYTES,
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
    embeddings,
    search: {
      hybridVectorWeight: e.SEARCH_HYBRID_VECTOR_WEIGHT,
      documentEvidence: e.SEARCH_DOCUMENT_EVIDENCE,
      proximityWeight: e.SEARCH_PROXIMITY_WEIGHT,
      coverageWeight: e.SEARCH_COVERAGE_WEIGHT,
    },
    llm,
  };
}

function embeddingsConfig(e: z.infer<typeof envSchema>, cwd: string): EmbeddingsConfig {
  const prefixes = { queryPrefix: e.EMBEDDINGS_QUERY_PREFIX, passagePrefix: e.EMBEDDINGS_PASSAGE_PREFIX };
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
    if (!e.EMBEDDINGS_MODEL_DIR) {
      throw new ConfigError(
        'EMBEDDINGS_PROVIDER=local needs EMBEDDINGS_MODEL_DIR (a folder with model.onnx and tokenizer.json)',
      );
    }
    return {
      provider: 'local',
      dir: path.resolve(cwd, e.EMBEDDINGS_MODEL_DIR),
      maxTokens: e.EMBEDDINGS_MAX_TOKENS,
      batchSize: e.EMBEDDINGS_BATCH_SIZE,
      pooling: e.EMBEDDINGS_POOLING,
      threads: e.EMBEDDINGS_THREADS,
      ...prefixes,
    };
  }
  return { provider: 'none' };
}

/** The job engine lives in its own database of the same instance: `<service db>_workflow` by default. */
export function deriveWorkflowUrl(databaseUrl: string): string {
  const u = new URL(databaseUrl);
  const db = decodeURIComponent(u.pathname.replace(/^\//, '')) || 'postgres';
  u.pathname = `/${encodeURIComponent(`${db}_workflow`)}`;
  return u.toString();
}
