import type { FastifyReply, FastifyRequest } from 'fastify';
import { actOnBehalfOf } from '../access/principals.js';
import type { QuotaStore } from '../accounts/quotas.js';
import type { Config } from '../config.js';
import type { Authenticator } from '../domain/keys.js';
import { requireAnyScope, requireScope } from '../domain/keys.js';
import type {
  ChatModel,
  Dictionaries,
  IdentityProvider,
  JobQueue,
  LanguageDetector,
  Lexicons,
  ObjectStore,
  RateLimiter,
  SearchIndex,
  StorageSpace,
  WebhookTargetGuard,
} from '../domain/ports.js';
import type { SecretBox } from '../domain/secrets.js';
import { CSRF_HEADER, resumeSession, SESSION_COOKIE, type SessionInfo } from '../domain/sessions.js';
import type {
  AccountStore,
  AuditStore,
  DocumentStore,
  GroupStore,
  OpsStore,
  OverviewStore,
  RunStore,
  UserStore,
  WebhookStore,
  WorkspaceDeletionStore,
  WorkspaceStore,
} from '../domain/stores.js';
import type { Tracer } from '../domain/tracing.js';
import type { Principal, QuotaLimits, Scope } from '../domain/types.js';
import { AppError, errors } from '../errors.js';
import type { EvaluationStore, QuestionSetStore } from '../evaluation/store.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../ops/metrics.js';
import type { DependencyCheck } from '../ops/readiness.js';
import type { EmbeddingService } from '../search/embeddings.js';
import type { RequestLimits } from '../search/request.js';
import type { RerankStage } from '../search/rerank.js';
import type { DocumentFilterStore, SearchOptions } from '../search/search.js';
import type { FolderRootGrant } from '../sources/grants.js';
import type { SourceConnectors } from '../sources/model.js';
import type { SourceStore } from '../sources/store.js';
import { addressBucket } from './connections.js';
import { secretEquals } from './secrets.js';
import type { FailureThrottle } from './throttle.js';

/**
 * Everything the HTTP layer needs, built once by createDeps. The repositories are named one by one:
 * a route reaches the records its operations need, never the worker's claiming and leases.
 */
export interface AppDeps {
  config: Config;
  log: Logger;
  accounts: AccountStore & OverviewStore;
  workspaces: WorkspaceStore;
  /** What deleted workspaces left in storage, removed by the request that deletes one. */
  deletions: WorkspaceDeletionStore;
  runs: RunStore;
  documents: DocumentStore;
  users: UserStore;
  groups: GroupStore;
  /** The audit log: who did what (sign-ins, people, access, keys, deletions, downloads). */
  audit: AuditStore;
  webhooks: WebhookStore;
  sources: SourceStore;
  /** Question sets, for evaluations (issue 40). */
  questionSets: QuestionSetStore;
  /** Evaluations of question sets and what each question got. */
  evaluations: EvaluationStore;
  /** Each source type's lister and reader (a folder source's path is checked against the allowed roots). */
  connectors: SourceConnectors;
  /** SOURCE_FOLDER_ROOTS: the folders each account may sync. */
  folderGrants: readonly FolderRootGrant[];
  /** The request-forgery guard, for webhook URLs at registration. */
  webhookTargets: WebhookTargetGuard;
  ops: Pick<OpsStore, 'schemaVersion'>;
  objects: ObjectStore;
  index: SearchIndex;
  jobs: Pick<JobQueue, 'enqueue' | 'enqueueMany'>;
  rateLimiter: RateLimiter;
  /** Failed sign-in attempts: per e-mail and address, per address (a larger budget), per e-mail (slows down). */
  loginLimits: { pair: RateLimiter; address: RateLimiter; email: RateLimiter };
  /** Wrong API keys, session tokens and metrics secrets per client address (AUTH_FAILURES_PER_MINUTE). */
  authFailures: FailureThrottle;
  /** Room on the disk uploads are written to (STORAGE_MIN_FREE_MB). */
  space: StorageSpace;
  metrics: Metrics;
  authenticator: Authenticator;
  /** Encrypts stored credentials; undefined in the stack when ENCRYPTION_KEY is unset. */
  secrets: SecretBox | undefined;
  readinessChecks: DependencyCheck[];
  /** Calls to `/ready` per client address (READY_RATE_LIMIT_PER_MINUTE), counted in this process. */
  readyLimiter: RateLimiter;
  /** Vectors for hybrid search, when an embedding model is configured. */
  embeddings: EmbeddingService | undefined;
  filters: DocumentFilterStore;
  /** QUERY_MAX_CHARS and SEARCH_MAX_TOP_K, which search and answer requests are checked against. */
  requestLimits: RequestLimits;
  searchOptions: SearchOptions;
  /** A second stage that reorders the best candidates, when RERANK_PROVIDER is set. */
  rerank: RerankStage | undefined;
  /** Answers from a chat model, when one is configured; extractive answers otherwise. */
  chatModel: ChatModel | undefined;
  /** Ordinary words of each language that has a lexicon (WordNet, word lists), for the extractive answerer. */
  lexicons: Lexicons | undefined;
  /** Bilingual dictionaries (DICTIONARIES_DIR) a question is translated by for a workspace in other languages. */
  dictionaries: Dictionaries | undefined;
  /** Tells the language a question is asked in. */
  languages: LanguageDetector | undefined;
  /** The organisation's identity provider, when OIDC_ISSUER is set. */
  identityProvider: IdentityProvider | undefined;
  /** Each account's own limits and what it used. */
  quotas: QuotaStore;
  /** The server's default quotas (ACCOUNT_MAX_*). */
  quotaDefaults: QuotaLimits;
  /** The operator's key (SERVICE_BOOTSTRAP_API_KEY), which alone may set accounts' quotas. */
  operatorKey: string | undefined;
  /** Traces (OTEL_EXPORTER_OTLP_ENDPOINT): every request in a span, its stages in spans under it. */
  tracer?: Tracer | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | undefined;
    session: SessionInfo | undefined;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Who is calling: an API key in the Authorization header, or else a console session cookie. A
 * session must also present its CSRF token on every state-changing request, because browsers attach
 * cookies to requests that other sites start.
 */
export async function authenticate(deps: AppDeps, request: FastifyRequest): Promise<Principal> {
  const principal = await throttled(deps, request, () => credentialOf(deps, request));
  principal.address = request.ip;
  const onBehalfOf = request.headers[ON_BEHALF_OF];
  if (onBehalfOf === undefined) return principal;
  if (typeof onBehalfOf !== 'string' || onBehalfOf.trim() === '')
    throw errors.onBehalfOfDenied(`Send one user id or e-mail address in ${ON_BEHALF_OF}.`);
  return actOnBehalfOf(deps.users, principal, onBehalfOf);
}

/** Credentials that were sent and are wrong: each cost a lookup, so they count against the address. */
const FAILED_AUTHENTICATION = new Set(['invalid_api_key', 'session_expired', 'invalid_metrics_secret']);

/**
 * Checks a credential unless the client's address has used up its failures (AUTH_FAILURES_PER_MINUTE):
 * then it is refused with 429 before any lookup. Shared with the metrics secret's check.
 */
export async function throttled<T>(
  deps: Pick<AppDeps, 'authFailures'>,
  request: FastifyRequest,
  check: () => Promise<T>,
): Promise<T> {
  const key = `auth:${addressBucket(request.ip)}`;
  const wait = deps.authFailures.retryAfter(key);
  if (wait > 0) throw errors.rateLimited(wait);
  try {
    return await check();
  } catch (err) {
    if (err instanceof AppError && FAILED_AUTHENTICATION.has(err.code)) await deps.authFailures.failed(key);
    throw err;
  }
}

/**
 * The header by which a key with the `act-as` scope serves a request for one of the account's users
 * (an application's signed-in person): it then sees what that user sees (decision 0017).
 */
export const ON_BEHALF_OF = 'docslurp-on-behalf-of';

async function credentialOf(deps: AppDeps, request: FastifyRequest): Promise<Principal> {
  if (request.headers.authorization !== undefined)
    return deps.authenticator.authenticate(request.headers.authorization);
  const token = request.cookies[SESSION_COOKIE];
  if (!token) throw errors.missingApiKey();
  const resumed = await resumeSession(deps.users, token, deps.config.console.sessionTtlHours);
  if (!resumed) throw errors.sessionExpired();
  if (!SAFE_METHODS.has(request.method)) {
    const sent = request.headers[CSRF_HEADER];
    if (typeof sent !== 'string' || !secretEquals(sent, resumed.session.csrfToken))
      throw errors.csrfTokenInvalid(CSRF_HEADER);
  }
  request.session = resumed.session;
  return resumed.principal;
}

/** Counts one request against the caller's rate limit; over it, a 429 with Retry-After. */
export async function limit(deps: AppDeps, principal: Principal, reply: FastifyReply): Promise<void> {
  const result = await deps.rateLimiter.consume(
    principal.keyId ? `key:${principal.keyId}` : `user:${principal.userId ?? principal.accountId}`,
  );
  if (!result.allowed) {
    reply.header('retry-after', String(result.retryAfterSeconds));
    throw errors.rateLimited(result.retryAfterSeconds);
  }
}

/**
 * An onRequest hook that authenticates the caller, applies the per-caller rate limit and checks one
 * scope (or one of several): before the body is read or validated, so a caller without a key neither
 * keeps a connection busy with a body nor learns the body's schema from validation errors.
 */
export function authorize(deps: AppDeps, scope: Scope | readonly Scope[]) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const principal = await authenticate(deps, request);
    await limit(deps, principal, reply);
    if (typeof scope === 'string') requireScope(principal, scope);
    else requireAnyScope(principal, scope);
    request.principal = principal;
  };
}

/** For what only a signed-in person may do (managing API keys): API keys are refused. */
export function authorizeSession(deps: AppDeps) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const principal = await authenticate(deps, request);
    await limit(deps, principal, reply);
    if (principal.keyId || !principal.userId) throw errors.sessionRequired();
    request.principal = principal;
  };
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw errors.missingApiKey();
  return request.principal;
}
