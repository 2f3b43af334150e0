// Over 400 lines: the one composition root, where every adapter, model and readiness check is chosen
// from the configuration; split, the choices would be spread over files that each see part of it.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { MemoryRateLimiter } from './adapters/cache/memory.js';
import { RedisRateLimiter } from './adapters/cache/redis.js';
import { LanceSearchIndex } from './adapters/index/lancedb.js';
import { EldDetector } from './adapters/language/eld.js';
import { FolderDictionaries } from './adapters/lexicon/dictionaries.js';
import { BuiltLexicons } from './adapters/lexicon/word-list.js';
import { HttpReranker } from './adapters/models/http-reranker.js';
import { ensureHubModel, verifiedModelFolder } from './adapters/models/hub-download.js';
import { ModelSlot } from './adapters/models/model-slot.js';
import { OnnxEmbedder } from './adapters/models/onnx-embedder.js';
import { OnnxReranker } from './adapters/models/onnx-reranker.js';
import { OpenAiChatModel } from './adapters/models/openai-chat.js';
import { OpenAiEmbedder } from './adapters/models/openai-embedder.js';
import { guardIndexWrites } from './adapters/objects/commit-guard.js';
import { ConditionalWriteCheck, probeConditionalWrites } from './adapters/objects/conditional-writes.js';
import { FsObjectStore } from './adapters/objects/fs.js';
import { S3ObjectStore } from './adapters/objects/s3.js';
import { DiskSpace, unmeasuredSpace } from './adapters/objects/space.js';
import { OpenIdProvider } from './adapters/oidc/openid.js';
import { createPool, type Pool } from './adapters/postgres/db.js';
import { PgDocumentFilter } from './adapters/postgres/document-filter.js';
import { PgEmbeddingStateStore } from './adapters/postgres/embedding-state.js';
import { createRepositories, type Repositories } from './adapters/postgres/repositories.js';
import { PgBossQueue } from './adapters/queue/pgboss.js';
import { sandboxLayout } from './adapters/sandbox/bwrap.js';
import { SandboxedParser } from './adapters/sandbox/parser.js';
import { createSourceAdapters } from './adapters/sources/connectors.js';
import { INLINE_BELOW_CHARS, ThreadPreparer } from './adapters/threads/text-preparer.js';
import { startTracing } from './adapters/tracing/otel.js';
import { tracedWebhookSender } from './adapters/tracing/webhooks.js';
import { AllowList } from './adapters/web/address-policy.js';
import { GuardedFetcher } from './adapters/web/fetcher.js';
import { AddressGuard } from './adapters/web/guard.js';
import { GuardedWebhookSender } from './adapters/web/webhook-sender.js';
import type { Config, LocalModelSource } from './config.js';
import { Authenticator } from './domain/keys.js';
import type {
  ChatModel,
  ObjectStore,
  RateLimiter,
  Reranker,
  UrlFetcher,
  WebhookSender,
} from './domain/ports.js';
import { SecretBox } from './domain/secrets.js';
import type { AppDeps } from './http/context.js';
import { FailureThrottle } from './http/throttle.js';
import { Metrics } from './ops/metrics.js';
import type { DependencyCheck } from './ops/readiness.js';
import { packageRoot } from './paths.js';
import { EmbeddingService, type Embeddings, observedEmbeddings } from './search/embeddings.js';
import type { RerankStage } from './search/rerank.js';
import { DEFAULT_SEARCH } from './search/search.js';
import type { FolderRootGrant } from './sources/grants.js';
import { SourceItemReader } from './sources/items.js';
import type { SourceLister } from './sources/model.js';
import type { WebhookDeliverySettings } from './webhooks/dispatch.js';

/** What the server, the worker and the CLI are built from: the HTTP layer's deps and the worker's. */
export interface Deps extends Omit<AppDeps, keyof Repositories>, Repositories {
  pool: Pool;
  /** Whether the index's store honours conditional writes (the worker waits for it at start). */
  commitCheck: ConditionalWriteCheck;
  /** What a worker's `/ready` checks (WORKER_HTTP_PORT): no cache, the parser sandbox instead. */
  workerReadinessChecks: DependencyCheck[];
  jobs: PgBossQueue;
  parser: SandboxedParser;
  /** Chunks texts and makes their index rows in threads of their own, off the event loop. */
  preparer: ThreadPreparer;
  fetcher: UrlFetcher;
  webhookSender: WebhookSender;
  webhookDelivery: WebhookDeliverySettings;
  /** The same repository as `sources`, seen from the worker: schedules, leases, applied listings. */
  syncs: Repositories['sources'];
  sourceItems: SourceItemReader;
  /** Lists sources in a thread of their own, under a memory limit and a watchdog. */
  lister: SourceLister;
  folderGrants: readonly FolderRootGrant[];
  tmpDir: string;
  close(): Promise<void>;
}

export interface DatabaseUrls {
  service: string;
  workflow: string;
}

function createObjectStore(config: Config): ObjectStore & { close?(): Promise<void> } {
  if (config.objects.kind === 'fs') return new FsObjectStore(config.objects.dir);
  return new S3ObjectStore(config.objects);
}

/**
 * LanceDB reaches S3 through its own client, configured with object_store's option names; the
 * index shares the object store's bucket, endpoint and keys unless INDEX_URI points elsewhere.
 */
export function lanceStorageOptions(config: Config): Record<string, string> {
  if (config.objects.kind !== 's3' || !/^s3(\+ddb)?:\/\//.test(config.index.uri)) return {};
  const o = config.objects;
  return {
    aws_region: o.region,
    aws_virtual_hosted_style_request: String(!o.forcePathStyle),
    ...(o.endpoint ? { aws_endpoint: o.endpoint, allow_http: String(o.endpoint.startsWith('http://')) } : {}),
    ...(o.accessKeyId && o.secretAccessKey
      ? { aws_access_key_id: o.accessKeyId, aws_secret_access_key: o.secretAccessKey }
      : {}),
  };
}

/**
 * The conditional-write probe of the index's store: on S3 (`s3://bucket/prefix`) through the object
 * store's client, in the index's own bucket and prefix. None for a local folder (commits there are
 * atomic renames) nor for `s3+ddb://`, whose commits DynamoDB arbitrates.
 */
function createCommitCheck(config: Config, objects: ObjectStore): ConditionalWriteCheck {
  // s3://bucket/prefix: split at the first slash after the scheme, without a pattern that backtracks.
  const uri = config.index.uri;
  if (!uri.startsWith('s3://') || !(objects instanceof S3ObjectStore))
    return new ConditionalWriteCheck(undefined);
  const rest = uri.slice('s3://'.length);
  const slash = rest.indexOf('/');
  const bucket = slash < 0 ? rest : rest.slice(0, slash);
  const prefix = slash < 0 ? '' : rest.slice(slash + 1);
  if (!bucket) return new ConditionalWriteCheck(undefined);
  return new ConditionalWriteCheck(() => probeConditionalWrites(objects.client, bucket, prefix));
}

/** In Redis when configured (one count shared by every server process), else in this process. */
function createRateLimiter(config: Config, perMinute: number, keyPrefix: string): RateLimiter {
  if (config.cache.kind === 'redis')
    return new RedisRateLimiter({ url: config.cache.url, perMinute, keyPrefix });
  return new MemoryRateLimiter(perMinute);
}

/**
 * The encryption key for stored credentials: ENCRYPTION_KEY, or in embedded mode a key generated once
 * under DATA_DIR (mode 600). In the stack without a key, storing credentials is refused.
 */
async function loadSecretBox(config: Config): Promise<SecretBox | undefined> {
  let key = config.encryption.key;
  if (!key && config.mode === 'embedded') {
    const file = path.join(config.dataDir, 'encryption.key');
    key = await readFile(file, 'utf8')
      .then((k) => k.trim())
      .catch(async () => {
        const generated = SecretBox.generateKey();
        await mkdir(config.dataDir, { recursive: true });
        await writeFile(file, `${generated}\n`, { mode: 0o600, flag: 'wx' }).catch(() => {});
        return (await readFile(file, 'utf8')).trim();
      });
  }
  return key ? new SecretBox(key, config.encryption.previousKey) : undefined;
}

const MODEL_RETRY = { baseDelayMs: 500, maxDelayMs: 20_000 };
const USER_AGENT = 'DocSlurp/0.1 (document ingestion; +https://github.com/docslurp)';

/** A local model, ready now (a folder) or as soon as its download completes (a model by name). */
interface LocalModel<T> {
  get(): T | undefined;
  slot?: ModelSlot<T>;
}

/**
 * A folder is loaded at once and a wrong one stops the start. A model by name is loaded from its
 * verified copy, or downloaded in the background while the service runs without it.
 */
async function localModel<T>(
  config: Config,
  log: Logger,
  source: LocalModelSource,
  describe: { what: string; meanwhile: string },
  load: (dir: string, name?: string) => Promise<T>,
): Promise<LocalModel<T>> {
  if (source.kind === 'dir') {
    const value = await load(source.dir);
    return { get: () => value };
  }
  const { hubUrl, dir, retrySeconds } = config.models;
  const slot = new ModelSlot<T>({
    ...describe,
    name: source.repo,
    cached: () => verifiedModelFolder(dir, source),
    download: (signal) => ensureHubModel(source, { hubUrl, dir, log, signal }),
    load: (folder) => load(folder, source.repo),
    retrySeconds,
    log,
  });
  await slot.start();
  return { get: () => slot.value, slot };
}

async function createEmbeddings(
  config: Config,
  log: Logger,
): Promise<{ embeddings: Embeddings; slot?: ModelSlot<OnnxEmbedder> } | undefined> {
  const c = config.embeddings;
  if (c.provider === 'openai') {
    const current = new OpenAiEmbedder({ ...c, retry: { ...MODEL_RETRY, maxRetries: c.maxRetries } });
    // The same endpoint still embeds queries for vectors of the previous model while a rebuild runs.
    return {
      embeddings: {
        current,
        forModel: (model) => (model.startsWith('openai:') ? current.withModel(model) : undefined),
      },
    };
  }
  if (c.provider === 'local') {
    const model = await localModel(
      config,
      log,
      c.source,
      { what: 'embedding model', meanwhile: 'search is lexical-only' },
      (dir, name) =>
        OnnxEmbedder.load({
          ...c,
          dir,
          name,
          onnxFile: c.source.kind === 'hub' ? c.source.onnxFile : undefined,
        }),
    );
    return {
      embeddings: {
        get current() {
          return model.get();
        },
        forModel: (id) => (model.get()?.model === id ? model.get() : undefined),
      },
      ...(model.slot ? { slot: model.slot } : {}),
    };
  }
  return undefined;
}

async function createReranker(
  config: Config,
  log: Logger,
): Promise<
  { reranker: () => Reranker | undefined; candidates: number; slot?: ModelSlot<OnnxReranker> } | undefined
> {
  const c = config.rerank;
  if (c.provider === 'http') {
    const reranker = new HttpReranker({ ...c, retry: { ...MODEL_RETRY, maxRetries: c.maxRetries } });
    return { reranker: () => reranker, candidates: c.candidates };
  }
  if (c.provider === 'local') {
    const model = await localModel(
      config,
      log,
      c.source,
      { what: 'reranking model', meanwhile: 'search results are not reranked' },
      (dir, name) =>
        OnnxReranker.load({
          ...c,
          dir,
          name,
          onnxFile: c.source.kind === 'hub' ? c.source.onnxFile : undefined,
        }),
    );
    return { reranker: model.get, candidates: c.candidates, ...(model.slot ? { slot: model.slot } : {}) };
  }
  return undefined;
}

/** A model being downloaded (or that failed to) makes the service degraded, not unavailable. */
function modelCheck(name: string, slot: ModelSlot<unknown> | undefined): DependencyCheck[] {
  if (!slot) return [];
  return [
    {
      name,
      critical: false,
      run: async () => {
        if (slot.problem) throw new Error(slot.problem);
      },
    },
  ];
}

function createChatModel(config: Config): ChatModel | undefined {
  const c = config.llm;
  if (!c) return undefined;
  return new OpenAiChatModel({ ...c, retry: { ...MODEL_RETRY, maxRetries: c.maxRetries } });
}

export interface CreateDepsOptions {
  /** Load (and if needed download) the configured models; CLI commands that only need the database do not. */
  models?: boolean;
}

/** The one place where adapters are chosen from the configuration. */
export async function createDeps(
  config: Config,
  log: Logger,
  urls: DatabaseUrls,
  options: CreateDepsOptions = {},
): Promise<Deps> {
  const withModels = options.models ?? true;
  // Before anything that could run in a span; without OTEL_EXPORTER_OTLP_ENDPOINT no SDK is loaded.
  const tracer = config.tracing ? await startTracing(config.tracing) : undefined;
  const pool = createPool(urls.service, config.database.poolSize, 'docslurp');
  const repositories = createRepositories(pool);
  const { ops } = repositories;
  const objects = createObjectStore(config);
  // Commits are observed for the metrics, which are made below (they read the index's caches).
  let observeCommit: ((seconds: number, attempts: number) => void) | undefined;
  const lance = new LanceSearchIndex(config.index.uri, lanceStorageOptions(config), {
    onCommit: (seconds, attempts) => {
      observeCommit?.(seconds, attempts);
      const end = Date.now();
      tracer?.stage('index commit', end - seconds * 1000, end);
    },
    encoderEntry: path.join(packageRoot(), 'dist', 'encode.js'),
  });
  const commitCheck = createCommitCheck(config, objects);
  const index = guardIndexWrites(lance, commitCheck);
  const embedders = withModels ? await createEmbeddings(config, log) : undefined;
  const embeddings = embedders
    ? new EmbeddingService({
        embeddings: tracer ? observedEmbeddings(embedders.embeddings, tracer) : embedders.embeddings,
        index,
        state: new PgEmbeddingStateStore(pool),
        log,
      })
    : undefined;
  const reranking = withModels ? await createReranker(config, log) : undefined;
  const jobs = new PgBossQueue({
    url: urls.workflow,
    namespace: config.database.workflowNamespace,
    pollIntervalSeconds: config.worker.pollIntervalSeconds,
    onError: (err) => log.warn({ err }, 'job engine error'),
    traced: tracer !== undefined,
  });
  const rateLimiter = createRateLimiter(config, config.limits.rateLimitPerMinute, 'docslurp:rl');
  const loginLimits = {
    pair: createRateLimiter(config, config.console.loginAttemptsPerMinute, 'docslurp:login-pair'),
    address: createRateLimiter(config, config.console.loginAttemptsPerMinute * 5, 'docslurp:login-address'),
    email: createRateLimiter(config, config.console.loginAttemptsPerMinute, 'docslurp:login-email'),
  };
  const authFailureLimiter = createRateLimiter(
    config,
    config.limits.authFailuresPerMinute,
    'docslurp:auth-failures',
  );
  const authFailures = new FailureThrottle(authFailureLimiter, (key, seconds) =>
    log.warn(
      { address: key.slice('auth:'.length), seconds },
      'too many wrong credentials from this address: refused without a lookup for a while',
    ),
  );
  const space =
    config.objects.kind === 'fs' && config.limits.storageMinFreeBytes > 0
      ? new DiskSpace(config.dataDir, config.limits.storageMinFreeBytes, (free, floor) =>
          log.warn(
            { freeMb: Math.floor(free / 2 ** 20), floorMb: floor / 2 ** 20, dir: config.dataDir },
            'storage is short: uploads refused (STORAGE_MIN_FREE_MB)',
          ),
        )
      : unmeasuredSpace;
  // In this process's memory even with Redis: what it protects, the checks behind /ready, is this
  // process's own, and a probe should not wait on the cache it is checking.
  const readyLimiter = new MemoryRateLimiter(config.limits.readyRateLimitPerMinute);
  const tmpDir = path.join(os.tmpdir(), `docslurp-${process.pid}`);
  await mkdir(tmpDir, { recursive: true });
  const parser = new SandboxedParser({
    config: config.parser,
    layout: sandboxLayout(packageRoot()),
    tmpDir,
    log,
    maxIdleProcesses: config.worker.docConcurrency,
  });
  const languages = new EldDetector();
  const lexicons = await new BuiltLexicons((code, err) =>
    log.warn(
      { err, language: code },
      'no lexicon for this language (dist/): answers will not tell absent names apart',
    ),
  ).preload();
  const preparer = new ThreadPreparer({
    entry: path.join(packageRoot(), 'dist', 'prepare.js'),
    threads: config.worker.docConcurrency,
    memoryMb: config.worker.chunking.memoryMb,
    timeoutMs: config.worker.chunking.timeoutSeconds * 1000,
    detectLanguages: true,
    // Small texts on the event loop, with the detector and word lists search uses too.
    inline: { belowChars: INLINE_BELOW_CHARS, detector: languages, lexicons },
  });
  const metrics = new Metrics({
    documentCounts: () => ops.globalDocumentCounts(),
    runCounts: () => ops.globalRunCounts(),
    queueDepth: () => jobs.depth('processDocument'),
    searchIndexCacheBytes: () => Number(lance.session.sizeBytes()),
    parserProcessesStarted: () => parser.processesStarted,
    webhookBacklog: () => ops.webhookBacklog(),
  });
  observeCommit = metrics.observeCommit;
  // One request-forgery guard for everything the service fetches or sends on a user's behalf.
  const guard = new AddressGuard(new AllowList(config.urlFetch.allowHosts));
  const guardedSender = new GuardedWebhookSender({
    guard,
    timeoutMs: config.webhooks.timeoutSeconds * 1000,
    maxResponseBytes: config.webhooks.maxResponseBytes,
    userAgent: USER_AGENT,
  });
  const fetcher = new GuardedFetcher({
    guard,
    maxBytes: config.urlFetch.maxBytes,
    timeoutMs: config.urlFetch.timeoutMs,
    maxRedirects: config.urlFetch.maxRedirects,
    userAgent: USER_AGENT,
  });
  const { connectors, lister, folderGrants, limits } = await createSourceAdapters(config, USER_AGENT);
  const secrets = await loadSecretBox(config);
  const rerank: RerankStage | undefined = reranking && {
    reranker: reranking.reranker,
    candidates: reranking.candidates,
    observe: metrics.observeRerank,
  };
  const identityProvider = config.console.oidc ? new OpenIdProvider(config.console.oidc) : undefined;
  const commonChecks: DependencyCheck[] = [
    { name: 'database', critical: true, run: () => ops.ping() },
    { name: 'objectStore', critical: true, run: () => objects.check() },
    { name: 'searchIndex', critical: true, run: () => index.check() },
    // A store that ignores conditional writes loses index commits silently: unready, with the reason.
    ...(commitCheck.skipped
      ? []
      : [{ name: 'conditionalWrites', critical: true, run: () => commitCheck.check() }]),
    { name: 'jobEngine', critical: true, run: () => jobs.check() },
    ...modelCheck('embeddingModel', embedders?.slot),
    ...modelCheck('rerankModel', reranking?.slot),
  ];
  return {
    config,
    log,
    pool,
    commitCheck,
    ...repositories,
    objects,
    index,
    jobs,
    rateLimiter,
    loginLimits,
    authFailures,
    space,
    metrics,
    parser,
    preparer,
    fetcher,
    connectors,
    syncs: repositories.sources,
    sourceItems: new SourceItemReader({
      syncs: repositories.sources,
      connectors,
      secrets,
      folderGrants,
      limits,
    }),
    lister,
    folderGrants,
    webhookSender: tracer ? tracedWebhookSender(guardedSender) : guardedSender,
    webhookTargets: guardedSender,
    webhookDelivery: config.webhooks,
    embeddings,
    filters: new PgDocumentFilter(pool),
    requestLimits: { maxQueryChars: config.limits.maxQueryChars, maxTopK: config.limits.maxTopK },
    searchOptions: {
      ...DEFAULT_SEARCH,
      hybridVectorWeight: config.search.hybridVectorWeight,
      documentEvidence: config.search.documentEvidence,
      proximityWeight: config.search.proximityWeight,
      coverageWeight: config.search.coverageWeight,
    },
    rerank,
    chatModel: createChatModel(config),
    languages,
    lexicons,
    dictionaries: new FolderDictionaries(config.dictionariesDir, log),
    authenticator: new Authenticator(repositories.accounts, repositories.users),
    quotaDefaults: config.quotas,
    operatorKey: config.bootstrapApiKey,
    secrets,
    tmpDir,
    identityProvider,
    tracer,
    readinessChecks: [
      ...commonChecks,
      { name: 'cache', critical: false, run: () => rateLimiter.check() },
      // Not critical: without it people sign in with a password, or wait for the provider.
      ...(identityProvider
        ? [{ name: 'identityProvider', critical: false, run: () => identityProvider.check() }]
        : []),
    ],
    readyLimiter,
    workerReadinessChecks: [
      ...commonChecks,
      {
        name: 'parserSandbox',
        critical: true,
        // The isolation chosen at the worker's start (bubblewrap checked once then); a worker that
        // requires it and could not have it does not run at all.
        run: async () => {
          await parser.start();
        },
      },
    ],
    async close() {
      await embedders?.slot?.close();
      await reranking?.slot?.close();
      await jobs.stop().catch((err: unknown) => log.warn({ err }, 'job engine did not stop cleanly'));
      await parser.close();
      await preparer.close();
      await index.close().catch(() => {});
      for (const limiter of [rateLimiter, ...Object.values(loginLimits), authFailureLimiter, readyLimiter])
        await limiter.close().catch(() => {});
      await objects.close?.().catch(() => {});
      await pool.end().catch(() => {});
      await rm(tmpDir, { recursive: true, force: true });
      // Last: the spans of everything that stopped above are sent before the process ends.
      await tracer?.flush().catch((err: unknown) => log.warn({ err }, 'sending the last spans failed'));
    },
  };
}
