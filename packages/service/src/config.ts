import path from 'node:path';
import { ConfigError, envSchema } from './config/environment.js';
import { parseFolderRoots } from './config/folder-roots.js';
import { embeddingsConfig, llmConfig, rerankConfig } from './config/models.js';
import { type OidcConfig, oidcConfig } from './config/oidc.js';
import { quotaDefaults } from './config/quotas.js';
import type {
  EmbeddingsConfig,
  LlmConfig,
  ModelsConfig,
  ParserConfig,
  RerankConfig,
} from './config/sections.js';
import { type TracingConfig, tracingConfig } from './config/tracing.js';
import { parseTrustedProxies } from './config/trusted-proxies.js';
import type { QuotaLimits } from './domain/types.js';
import { consoleDistDir } from './paths.js';
import type { FolderRootGrant } from './sources/grants.js';
import type { WebhookDeliverySettings } from './webhooks/dispatch.js';

export { deriveWorkflowUrl } from './config/database-urls.js';
export { ConfigError } from './config/environment.js';
export { pathsOverlap } from './config/folder-roots.js';
export type {
  EmbeddingsConfig,
  HubModelRef,
  LlmConfig,
  LocalModelSource,
  ModelRetryConfig,
  ModelsConfig,
  ParserConfig,
  ParserLimits,
  RerankConfig,
} from './config/sections.js';

import { withoutTrailingSlashes } from './strings.js';

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
    /**
     * Where `migrate` connects (MIGRATE_DATABASE_URL, default `url`): directly to PostgreSQL, since it
     * holds a session advisory lock that a pooler in transaction mode (PgBouncer) cannot keep.
     */
    migrateUrl: string | undefined;
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
    /** Whether people may sign in with a password (CONSOLE_PASSWORD_SIGNIN); false: the provider only. */
    passwordSignIn: boolean;
    /** Sign-in with the organisation's identity provider, when OIDC_ISSUER is set. */
    oidc: OidcConfig | undefined;
  };
  worker: {
    docConcurrency: number;
    /**
     * The worker process's own port for /health, /ready and /metrics (WORKER_HTTP_PORT, on
     * SERVER_BIND_ADDRESS); unset: none. `serve` never opens it: its server answers for both.
     */
    httpPort: number | undefined;
    /** Most documents of one workspace a consumer takes at once (1: one at a time). */
    batchDocuments: number;
    /** Most bytes of originals in one batch; a larger document is processed alone. */
    batchMaxBytes: number;
    /** Source syncs one worker runs at once (WORKER_SYNC_CONCURRENCY). */
    syncConcurrency: number;
    /** Questions of an evaluation a worker asks at once (WORKER_EVALUATION_CONCURRENCY). */
    evaluationConcurrency: number;
    /** Of those, at most this many of one account: half, at least one. */
    syncsPerAccount: number;
    /** Budgets of a text's chunking and index rows, in a thread of their own (CHUNKING_*). */
    chunking: { timeoutSeconds: number; memoryMb: number };
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
    /** `/ready` calls per minute of one client address, in each process; 0: no limit. */
    readyRateLimitPerMinute: number;
    /** Wrong API keys, session tokens and metrics secrets per minute of one client address; 0: no limit. */
    authFailuresPerMinute: number;
    /** Uploads are refused while they would leave less than this free on the local object store's disk. */
    storageMinFreeBytes: number;
  };
  urlFetch: {
    /** Hosts and CIDR ranges that may be fetched although they are private (URL_FETCH_ALLOW_HOSTS). */
    allowHosts: string[];
    timeoutMs: number;
    maxRedirects: number;
    maxBytes: number;
    maxUrlsPerRequest: number;
  };
  sources: {
    /**
     * Folders under which folder sources may read, each granted to an account or to all
     * (SOURCE_FOLDER_ROOTS); none by default.
     */
    folderRoots: FolderRootGrant[];
    /** Heap limit of the thread that lists a source (SOURCE_LISTING_MEMORY_MB). */
    listingMemoryMb: number;
    /** A listing whose thread stops turning for this long is ended (SOURCE_LISTING_STALL_SECONDS). */
    listingStallSeconds: number;
    /**
     * Bucket sources may ask for the server's own AWS credentials (the SDK's default chain) with
     * `serverCredentials: true` (SOURCE_S3_SERVER_CREDENTIALS); off by default: every account could.
     */
    s3ServerCredentials: boolean;
  };
  /** Webhook deliveries, sent by the worker (targets pass the urlFetch allow-list's guard). */
  webhooks: WebhookDeliverySettings & {
    /** At most this much of a receiver's answer is read and kept with the attempt. */
    maxResponseBytes: number;
  };
  logLevel: string;
  /** Traces to an OpenTelemetry collector (OTEL_EXPORTER_OTLP_ENDPOINT); unset: off, at no cost. */
  tracing: TracingConfig | undefined;
  /** How long the audit log keeps an event (AUDIT_RETENTION_DAYS); the reconciler removes older ones. */
  audit: { retentionDays: number };
  parser: ParserConfig;
  /** Where models named by their Hugging Face id are downloaded from and kept. */
  models: ModelsConfig;
  /**
   * Bilingual dictionaries (`<from>-<to>.tsv`, built at install time by scripts/dictionaries.mjs) a
   * question in a language the workspace's documents are not in is searched with (DICTIONARIES_DIR).
   */
  dictionariesDir: string;
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
  /** Every account's default quotas (ACCOUNT_MAX_*; null: unlimited); an operator overrides them per account. */
  quotas: QuotaLimits;
}

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
  return {
    mode,
    production,
    dataDir,
    database: {
      url: e.DATABASE_URL,
      migrateUrl: e.MIGRATE_DATABASE_URL ?? e.DATABASE_URL,
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
    audit: { retentionDays: e.AUDIT_RETENTION_DAYS },
    console: {
      sessionTtlHours: e.SESSION_TTL_HOURS,
      loginAttemptsPerMinute: e.LOGIN_ATTEMPTS_PER_MINUTE,
      adminEmail: e.CONSOLE_ADMIN_EMAIL,
      adminPassword: e.CONSOLE_ADMIN_PASSWORD,
      assetsDir: e.CONSOLE_DIR ? path.resolve(cwd, e.CONSOLE_DIR) : consoleDistDir(),
      passwordSignIn: e.CONSOLE_PASSWORD_SIGNIN,
      oidc: oidcConfig(e, e.SELFHOST_URL, 'default', (m) => new ConfigError(m)),
    },
    worker: {
      docConcurrency: e.WORKER_DOC_CONCURRENCY,
      httpPort: e.WORKER_HTTP_PORT,
      // One worker takes the whole queue in embedded mode: larger batches mean fewer index commits
      // (SciFact: 381 against 329 docs/s, decision 0016). With DATABASE_URL other workers may share
      // the queue, and a smaller batch spreads a backlog among them.
      batchDocuments: e.WORKER_BATCH_DOCUMENTS ?? (mode === 'embedded' ? 500 : 200),
      batchMaxBytes: e.WORKER_BATCH_MAX_BYTES,
      syncConcurrency: e.WORKER_SYNC_CONCURRENCY,
      evaluationConcurrency: e.WORKER_EVALUATION_CONCURRENCY,
      // An account's syncs waiting on the network leave at least half the slots to other accounts.
      syncsPerAccount: Math.max(1, Math.floor(e.WORKER_SYNC_CONCURRENCY / 2)),
      chunking: { timeoutSeconds: e.CHUNKING_TIMEOUT_SECONDS, memoryMb: e.CHUNKING_MEMORY_MB },
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
      readyRateLimitPerMinute: e.READY_RATE_LIMIT_PER_MINUTE,
      authFailuresPerMinute: e.AUTH_FAILURES_PER_MINUTE,
      storageMinFreeBytes: e.STORAGE_MIN_FREE_MB * MIB,
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
    sources: {
      folderRoots: parseFolderRoots(e.SOURCE_FOLDER_ROOTS, dataDir),
      listingMemoryMb: e.SOURCE_LISTING_MEMORY_MB,
      listingStallSeconds: e.SOURCE_LISTING_STALL_SECONDS,
      s3ServerCredentials: e.SOURCE_S3_SERVER_CREDENTIALS,
    },
    webhooks: {
      timeoutSeconds: e.WEBHOOK_TIMEOUT_SECONDS,
      maxResponseBytes: e.WEBHOOK_MAX_RESPONSE_BYTES,
      retryBaseSeconds: e.WEBHOOK_RETRY_BASE_SECONDS,
      retryHours: e.WEBHOOK_RETRY_HOURS,
      concurrency: e.WEBHOOK_CONCURRENCY,
      endpointConcurrency: e.WEBHOOK_ENDPOINT_CONCURRENCY,
      // Below a worker's slots, so that one account's slow endpoints always leave one to the others.
      accountConcurrency: e.WEBHOOK_ACCOUNT_CONCURRENCY ?? Math.max(1, e.WEBHOOK_CONCURRENCY - 1),
      pollIntervalSeconds: e.WEBHOOK_POLL_INTERVAL_SECONDS,
      retentionDays: e.WEBHOOK_RETENTION_DAYS,
    },
    logLevel: e.LOG_LEVEL,
    tracing: tracingConfig(e),
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
      hubUrl: withoutTrailingSlashes(e.MODEL_HUB_URL ?? 'https://huggingface.co'),
      dir: e.MODELS_DIR ? path.resolve(cwd, e.MODELS_DIR) : path.join(dataDir, 'models'),
      retrySeconds: e.MODEL_DOWNLOAD_RETRY_SECONDS,
    },
    dictionariesDir: e.DICTIONARIES_DIR
      ? path.resolve(cwd, e.DICTIONARIES_DIR)
      : path.join(dataDir, 'dictionaries'),
    embeddings,
    rerank: rerankConfig(e, cwd),
    search: {
      hybridVectorWeight: e.SEARCH_HYBRID_VECTOR_WEIGHT,
      documentEvidence: e.SEARCH_DOCUMENT_EVIDENCE,
      proximityWeight: e.SEARCH_PROXIMITY_WEIGHT,
      coverageWeight: e.SEARCH_COVERAGE_WEIGHT,
    },
    llm: llmConfig(e),
    quotas: quotaDefaults(e),
  };
}
