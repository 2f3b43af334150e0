import { z } from 'zod';

/** A setting that is wrong: the message names it and says what it takes. */
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

/** Every environment variable the service reads, with its default and its check. */
export const envSchema = z.object({
  NODE_ENV: optionalString,
  DATA_DIR: optionalString,
  DATABASE_URL: optionalString,
  MIGRATE_DATABASE_URL: optionalString,
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
  AUTH_FAILURES_PER_MINUTE: int(60, 0),
  CONSOLE_ADMIN_EMAIL: optionalString,
  CONSOLE_ADMIN_PASSWORD: optionalString,
  CONSOLE_DIR: optionalString,
  CONSOLE_PASSWORD_SIGNIN: bool(true),
  OIDC_ISSUER: optionalString,
  OIDC_CLIENT_ID: optionalString,
  OIDC_CLIENT_SECRET: optionalString,
  OIDC_SCOPES: z.string().default('openid email profile'),
  OIDC_GROUPS_CLAIM: z.string().default('groups'),
  OIDC_ROLE_GROUPS: optionalString,
  OIDC_ALLOWED_DOMAINS: optionalString,
  OIDC_ACCOUNT: optionalString,
  OIDC_REDIRECT_URL: optionalString,
  OIDC_DISPLAY_NAME: optionalString,
  WORKER_DOC_CONCURRENCY: int(1, 1),
  WORKER_HTTP_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  // Default by mode (loadConfig): 500 in embedded mode, 200 with DATABASE_URL.
  WORKER_BATCH_DOCUMENTS: z.coerce.number().int().min(1).optional(),
  WORKER_BATCH_MAX_BYTES: int(1024 * 1024, 1),
  WORKER_SYNC_CONCURRENCY: int(3, 1),
  WORKER_EVALUATION_CONCURRENCY: int(2, 1).pipe(z.number().max(8)),
  CHUNKING_TIMEOUT_SECONDS: int(300, 1),
  CHUNKING_MEMORY_MB: int(1024, 64),
  DOCUMENT_LEASE_SECONDS: int(60, 2),
  DOCUMENT_MAX_ATTEMPTS: int(3, 1),
  RECONCILE_INTERVAL_SECONDS: int(15, 1),
  JOB_POLL_INTERVAL_SECONDS: z.coerce.number().min(0.5).default(0.5),
  UPLOAD_MAX_FILE_BYTES: int(512 * 1024 * 1024, 1),
  UPLOAD_MAX_FILES: int(1000, 1),
  STORAGE_MIN_FREE_MB: int(1024, 0),
  JSON_BODY_LIMIT_BYTES: int(1024 * 1024, 1024),
  QUERY_MAX_CHARS: int(2000, 1),
  SEARCH_MAX_TOP_K: int(100, 1),
  RATE_LIMIT_PER_MINUTE: int(600, 0),
  READY_RATE_LIMIT_PER_MINUTE: int(300, 0),
  // Unset: unlimited (config/quotas.ts parses them; the stored bytes take units such as 10GB).
  ACCOUNT_MAX_DOCUMENTS: optionalString,
  ACCOUNT_MAX_STORED_BYTES: optionalString,
  ACCOUNT_MAX_UPLOADS_PER_DAY: optionalString,
  ACCOUNT_MAX_QUESTIONS_PER_DAY: optionalString,
  URL_FETCH_ALLOW_HOSTS: optionalString,
  URL_FETCH_TIMEOUT_SECONDS: int(30, 1),
  URL_FETCH_MAX_REDIRECTS: int(5, 0),
  URL_FETCH_MAX_BYTES: z.coerce.number().int().min(1).optional(),
  URLS_PER_REQUEST: int(100, 1),
  SOURCE_FOLDER_ROOTS: optionalString,
  SOURCE_LISTING_MEMORY_MB: int(512, 64),
  SOURCE_LISTING_STALL_SECONDS: int(30, 1),
  SOURCE_S3_SERVER_CREDENTIALS: bool(false),
  WEBHOOK_TIMEOUT_SECONDS: int(15, 1),
  WEBHOOK_MAX_RESPONSE_BYTES: int(4096, 0),
  WEBHOOK_RETRY_BASE_SECONDS: z.coerce.number().min(0.05).default(30),
  WEBHOOK_RETRY_HOURS: z.coerce.number().positive().default(24),
  WEBHOOK_CONCURRENCY: int(4, 1),
  WEBHOOK_ENDPOINT_CONCURRENCY: int(2, 1),
  // Default (loadConfig): one less than WEBHOOK_CONCURRENCY, at least 1.
  WEBHOOK_ACCOUNT_CONCURRENCY: z.coerce.number().int().min(1).optional(),
  WEBHOOK_POLL_INTERVAL_SECONDS: z.coerce.number().min(0.1).default(1),
  WEBHOOK_RETENTION_DAYS: int(30, 1),
  AUDIT_RETENTION_DAYS: int(365, 1),
  PARSER_ISOLATION: blankable(['required', 'auto', 'process']),
  WORKER_PROFILE: blankable(['default', 'full']),
  PARSER_TIMEOUT_SECONDS: int(300, 1),
  PARSER_CPU_SECONDS: int(300, 1),
  PARSER_MEMORY_MB: int(1536, 64),
  PARSER_MAX_OUTPUT_MB: int(64, 1),
  PARSER_TMP_MB: int(1024, 16),
  PARSER_MAX_UNPACKED_MB: int(1024, 1),
  PARSER_BWRAP_PATH: optionalString,
  PARSER_DOCUMENTS_PER_PROCESS: int(1000, 1),
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
  DICTIONARIES_DIR: optionalString,
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
  // The OpenTelemetry SDK's own variables (issue 43); the SDK reads the rest of them itself.
  OTEL_SDK_DISABLED: bool(false),
  OTEL_TRACES_EXPORTER: blankable(['otlp', 'none']),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalString,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalString,
  OTEL_EXPORTER_OTLP_PROTOCOL: optionalString,
  OTEL_SERVICE_NAME: optionalString,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type Environment = z.infer<typeof envSchema>;
