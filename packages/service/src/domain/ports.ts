import type { Readable } from 'node:stream';
import type {
  ApiKeyRecord,
  DocumentCounts,
  DocumentRecord,
  DocumentStage,
  DocumentStatus,
  Run,
  RunFailure,
  RunStatus,
  RunView,
  Scope,
  User,
  Workspace,
} from './types.js';

/** Raw and derived artifacts (originals, extracted text). A folder in embedded mode, S3 in the stack. */
export interface ObjectStore {
  put(key: string, body: Readable | Buffer | string, contentType?: string): Promise<void>;
  /** Resolves to undefined when the object does not exist. */
  get(key: string): Promise<Readable | undefined>;
  getBuffer(key: string): Promise<Buffer | undefined>;
  delete(keys: string[]): Promise<void>;
  check(): Promise<void>;
}

/** One chunk as stored in a workspace's search index. */
export interface IndexRow {
  id: string;
  documentId: string;
  ordinal: number;
  text: string;
  headingPath: string[];
  filename: string;
  sourceUrl: string | null;
  mediaType: string | null;
  pageStart: number | null;
  pageEnd: number | null;
  charStart: number;
  charEnd: number;
  /** The document's title and the chunk's heading path: searched as a separate, weighted field. */
  heading: string;
  /** The text's words as codes (search/word-codes.ts), for ranking; absent on rows indexed before them. */
  wordCodes?: Uint32Array | undefined;
}

export interface IndexHit {
  row: IndexRow;
  score: number;
}

export interface IndexQuery {
  text: string;
  limit: number;
  documentIds?: string[] | undefined;
  /**
   * Further words that count for a passage with less weight than the query's own (expansions of the
   * query: the words people use next to the words documents use).
   */
  expansions?: { text: string; weight: number }[] | undefined;
}

/**
 * The words of the language questions are asked in (a dictionary, not a workspace's vocabulary): a
 * question that names something that is neither an ordinary word nor in any retrieved passage asks
 * about something the workspace does not hold.
 */
export interface Lexicon {
  isWord(word: string): boolean;
}

/** A chunk's vector in one model's vector space. */
export interface VectorRow {
  id: string;
  documentId: string;
  vector: Float32Array;
}

/** Where a workspace's vectors of one model live: the model id and the vectors' length. */
export interface VectorSpace {
  model: string;
  dimension: number;
}

export interface VectorQuery {
  vector: Float32Array;
  limit: number;
  documentIds?: string[] | undefined;
}

/** A document's rows (chunks or vectors), for writing several documents at once. */
export interface DocumentRows<Row> {
  documentId: string;
  rows: Row[];
}

/** Per-workspace full-text index of chunks (LanceDB). */
export interface SearchIndex {
  /** Atomically replaces every row of one document with `rows` (an empty array removes it). */
  replaceDocument(workspaceId: string, documentId: string, rows: IndexRow[]): Promise<void>;
  /** The same for several documents in one commit (a batch): none is ever seen half-replaced. */
  replaceDocuments(workspaceId: string, documents: DocumentRows<IndexRow>[]): Promise<void>;
  countDocumentRows(workspaceId: string, documentId: string): Promise<number>;
  /** Rows of each of the documents (0 for one without any). */
  countRowsByDocument(workspaceId: string, documentIds: string[]): Promise<Map<string, number>>;
  deleteDocument(workspaceId: string, documentId: string): Promise<void>;
  search(workspaceId: string, query: IndexQuery): Promise<IndexHit[]>;
  /** Chunk vectors are kept per vector space, beside the chunks; each document's set is replaced whole. */
  replaceVectors(
    workspaceId: string,
    space: VectorSpace,
    documents: DocumentRows<VectorRow>[],
  ): Promise<void>;
  /** Nearest chunks by cosine similarity (score 1 = same direction); [] when the space has no vectors. */
  vectorSearch(workspaceId: string, space: VectorSpace, query: VectorQuery): Promise<IndexHit[]>;
  /** Ids of chunks that have a vector in `space`. */
  vectorIds(workspaceId: string, space: VectorSpace): Promise<Set<string>>;
  /** Every chunk of the workspace, a page at a time in id order (for re-embedding). */
  listRows(workspaceId: string, afterId: string | null, limit: number): Promise<IndexRow[]>;
  /** Adds or overwrites vectors without touching the document's others (re-embedding in pages). */
  upsertVectors(workspaceId: string, space: VectorSpace, rows: VectorRow[]): Promise<void>;
  /** Removes a workspace's vectors of every space but `keep`. */
  dropVectorSpaces(workspaceId: string, keep: VectorSpace | undefined): Promise<void>;
  /**
   * Folds recent writes into the index, compacts small fragments and removes versions replaced more
   * than `keptSeconds` ago; answers how many replaced versions remain (for a later run to remove).
   */
  optimize(workspaceId: string): Promise<{ oldVersions: number; keptSeconds: number }>;
  check(): Promise<void>;
  close(): Promise<void>;
}

/** Turns text into vectors of one model's space. */
export interface Embedder {
  /** Identifies the vector space: vectors of different ids are never compared. */
  readonly model: string;
  embedQuery(text: string, signal?: AbortSignal): Promise<Float32Array>;
  embedPassages(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

/** Scores passages against a query by reading both together (a cross-encoder): higher is more relevant. */
export interface Reranker {
  readonly model: string;
  /** One score per passage, in the passages' order, comparable within one call. */
  score(query: string, passages: string[], signal?: AbortSignal): Promise<number[]>;
}

/** The embedding model recorded for a workspace's vectors (`complete` once every chunk has one). */
export interface EmbeddingState extends VectorSpace {
  complete: boolean;
}

export interface EmbeddingStateStore {
  getEmbeddingState(workspaceId: string): Promise<EmbeddingState | undefined>;
  /** Records the state unless one exists; returns the state in force afterwards. */
  initEmbeddingState(workspaceId: string, state: EmbeddingState): Promise<EmbeddingState>;
  setEmbeddingState(workspaceId: string, state: EmbeddingState): Promise<void>;
  /** Ready documents of the workspace other than `exceptDocumentIds`. */
  countOtherReadyDocuments(workspaceId: string, exceptDocumentIds: string[]): Promise<number>;
  /** Workspaces with ready documents whose vectors are not complete in `model`. */
  workspacesNeedingEmbeddings(model: string, limit: number): Promise<string[]>;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface ChatRequest {
  messages: ChatMessage[];
  maxTokens?: number | undefined;
  temperature?: number | undefined;
  signal?: AbortSignal | undefined;
}

/** A chat model behind an OpenAI-compatible API. */
export interface ChatModel {
  readonly model: string;
  complete(req: ChatRequest): Promise<{ text: string; usage: ChatUsage | undefined }>;
  /** Text deltas as they arrive; the last item may carry usage. */
  stream(req: ChatRequest): AsyncIterable<{ delta: string } | { usage: ChatUsage }>;
}

export interface JobHandlers {
  /** The documents of up to `batchSize` jobs taken together (see startWorkers). */
  processDocuments(documentIds: string[]): Promise<void>;
  maintainWorkspace(workspaceId: string): Promise<void>;
}

export interface WorkerOptions {
  /** Consumers, each handling one batch at a time. */
  concurrency: number;
  /** Most document jobs a consumer takes at once. */
  batchSize: number;
}

/** Background jobs (pg-boss in its own database). Enqueueing the same document twice while queued is a no-op. */
export interface JobQueue {
  /** `ahead`: taken before the jobs already waiting (documents a batch had to leave). */
  enqueueDocuments(documentIds: string[], options?: { ahead?: boolean }): Promise<void>;
  /** Optimises the workspace's index after `delaySeconds` (default 5), folding a burst of writes into one run. */
  enqueueWorkspaceMaintenance(workspaceId: string, options?: { delaySeconds?: number }): Promise<void>;
  startWorkers(handlers: JobHandlers, options: WorkerOptions): Promise<void>;
  /** Stops taking jobs and waits for the handlers still running; enqueueing keeps working. */
  stopWorkers(): Promise<void>;
  depth(): Promise<{ queued: number; active: number }>;
  check(): Promise<void>;
  stop(): Promise<void>;
}

export interface RateLimiter {
  /** Counts one request for `key`; says whether it is allowed and, if not, when to retry. */
  consume(key: string): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }>;
  /** Gives one request back (a sign-in that succeeded should not count against the person). */
  reward(key: string): Promise<void>;
  check(): Promise<void>;
  close(): Promise<void>;
}

/** What a parser makes of a file: Markdown text with `<!-- page N -->` markers for paged formats. */
export interface ParsedDocument {
  mediaType: string;
  text: string;
  pageCount: number | null;
  title: string | null;
}

export interface ParseInput {
  /** Path of a local copy of the original bytes. */
  path: string;
  filename: string;
  declaredMediaType: string | null;
  /**
   * Documents of one group (the worker passes the workspace) may be parsed one after another by the
   * same sandboxed process; documents of different groups never are.
   */
  group?: string | undefined;
}

export interface DocumentParser {
  /** Throws DocumentFailure for input that cannot be parsed. */
  parse(input: ParseInput, signal: AbortSignal): Promise<ParsedDocument>;
}

// ---- records in the service database -------------------------------------------------------------

export interface NewApiKey {
  id: string;
  accountId: string;
  name: string | null;
  prefix: string;
  hash: string;
  scopes: Scope[];
}

export interface AccountStore {
  ensureAccount(name: string): Promise<{ id: string; name: string }>;
  findAccount(idOrName: string): Promise<{ id: string; name: string } | undefined>;
  insertApiKey(key: NewApiKey): Promise<ApiKeyRecord>;
  findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  listApiKeys(accountId: string | undefined): Promise<ApiKeyRecord[]>;
  /** Revokes by id or by the shown prefix; returns the revoked key, or undefined when none matched. */
  revokeApiKey(idOrPrefix: string, accountId: string | undefined): Promise<ApiKeyRecord | undefined>;
  touchApiKey(id: string): Promise<void>;
}

export interface StagedFile {
  documentId: string;
  storageKey: string;
  filename: string;
  declaredMediaType: string | null;
  /** Unknown (null) for a URL until the worker has fetched it. */
  sizeBytes: number | null;
  sha256: string | null;
  sourceUrl?: string | null;
  /** Encrypted headers for fetching `sourceUrl` (see SecretBox). */
  fetchHeaders?: string | null;
}

export interface FetchedResource {
  body: Readable;
  contentType: string | null;
  finalUrl: string;
  filename: string;
}

/** Fetches a URL for ingestion; throws DocumentFailure (url_forbidden, fetch_failed, …) when it must not or cannot. */
export interface UrlFetcher {
  /** `headers` go only to the URL's own origin, never to another host a redirect points at. */
  fetch(url: string, signal: AbortSignal, headers?: Record<string, string>): Promise<FetchedResource>;
}

export interface NewUpload {
  accountId: string;
  /** Append to this workspace; a new one is created when absent. */
  workspaceId: string | undefined;
  newWorkspaceId: string;
  runId: string;
  files: StagedFile[];
  metadata: Record<string, unknown>;
  idempotency: { key: string; requestHash: string } | undefined;
}

export type UploadOutcome =
  | { kind: 'created'; workspace: Workspace; run: Run; documents: DocumentRecord[] }
  | { kind: 'replayed'; workspace: Workspace; run: Run; documents: DocumentRecord[] }
  | { kind: 'idempotency_conflict' }
  | { kind: 'workspace_not_found' };

export interface FinishDocument {
  status: Extract<DocumentStatus, 'ready' | 'needs_ocr' | 'failed' | 'cancelled'>;
  errorCode?: string | null;
  errorMessage?: string | null;
  mediaType?: string | null;
  pageCount?: number | null;
  chunkCount?: number | null;
}

export interface IngestStore {
  workspaceExists(accountId: string, workspaceId: string): Promise<boolean>;
  createUpload(upload: NewUpload): Promise<UploadOutcome>;
}

export interface RunStore {
  getRun(accountId: string, runId: string): Promise<RunView | undefined>;
  listRunDocuments(runId: string): Promise<DocumentRecord[]>;
  /** Moves a run between states when it is in one of `from`; returns the run after the attempt. */
  transitionRun(
    accountId: string,
    runId: string,
    from: RunStatus[],
    to: RunStatus,
  ): Promise<{ changed: boolean; run: Run | undefined }>;
  /** Marks queued documents of a cancelled run as cancelled. */
  cancelQueuedDocuments(runId: string): Promise<void>;
  queuedDocumentIds(runId: string): Promise<string[]>;
  /** Completes or fails the run when every document is terminal. */
  settleRun(runId: string): Promise<void>;
}

export interface DocumentStore {
  getDocument(accountId: string, documentId: string): Promise<DocumentRecord | undefined>;
  listDocuments(accountId: string, workspaceId: string): Promise<DocumentRecord[]>;
  markDeleted(accountId: string, documentId: string): Promise<DocumentRecord | undefined>;
  /** Of the given ids, those still searchable (ready and not deleted). */
  liveDocumentIds(workspaceId: string, documentIds: string[]): Promise<Set<string>>;
  countsByStatus(workspaceId: string): Promise<DocumentCounts>;
  getWorkspace(accountId: string, workspaceId: string): Promise<Workspace | undefined>;
  listWorkspaces(accountId: string): Promise<(Workspace & { counts: DocumentCounts })[]>;
}

export interface ClaimOptions {
  leaseSeconds: number;
  maxAttempts: number;
  /** Most bytes of originals in one batch; a larger document is claimed alone. */
  maxBytes: number;
}

/** What claiming a batch gave this worker. */
export interface BatchClaim {
  /** Held by this worker now, in the order asked; all of one workspace. */
  claimed: DocumentRecord[];
  /** Could be processed, but not in this batch (another workspace, or over its budget). */
  deferred: string[];
  /** Every attempt started and none finished: to be failed. */
  exhausted: DocumentRecord[];
  /** Nothing to do here (gone, finished, leased by another worker, run paused or cancelled). */
  skipped: { documentId: string; reason: string }[];
}

export type StartOutcome =
  | { held: false }
  /** Started (attempt counted) when `runStatus` is `processing`; otherwise left as claimed. */
  | { held: true; runStatus: RunStatus; attempts: number };

export interface WorkStore {
  claimDocuments(documentIds: string[], workerId: string, options: ClaimOptions): Promise<BatchClaim>;
  startDocument(documentId: string, workerId: string, stage: DocumentStage): Promise<StartOutcome>;
  /** Moves held documents to a stage; answers, for each one still held, its run's status. */
  setStages(documentIds: string[], workerId: string, stage: DocumentStage): Promise<Map<string, RunStatus>>;
  /** Extends the leases; answers the documents this worker still holds (not deleted, cancelled, taken over). */
  renewLeases(documentIds: string[], workerId: string, leaseSeconds: number): Promise<Set<string>>;
  /** Lets started documents' leases lapse now, so that they are retried. */
  releaseLeases(documentIds: string[], workerId: string): Promise<void>;
  /** Returns claimed documents that were never started to the queue. */
  unclaimDocuments(documentIds: string[], workerId: string): Promise<void>;
  /** Finishes documents this worker holds and settles their runs in one transaction; answers those finished. */
  finishDocuments(
    workerId: string,
    results: { documentId: string; result: FinishDocument }[],
  ): Promise<Set<string>>;
  /** The encrypted fetch headers of a URL document, if any. */
  fetchHeadersOf(documentId: string): Promise<string | null>;
  /** Records what fetching a URL document produced (and erases its fetch headers); undefined when this worker no longer holds it. */
  recordFetched(
    documentId: string,
    workerId: string,
    fetched: { sizeBytes: number; sha256: string; declaredMediaType: string | null; filename: string },
  ): Promise<DocumentRecord | undefined>;
  /** Documents of processing runs that no live worker holds (candidates for re-enqueueing), by id. */
  findOrphanedDocuments(limit: number, afterId: string | null): Promise<string[]>;
  /** Fails a document nobody holds (its attempts are exhausted) and settles its run. */
  failUnleased(documentId: string, code: string, message: string): Promise<void>;
  /** Runs still `processing` whose documents are all terminal (after a crash between the two writes). */
  findUnsettledRuns(limit: number): Promise<string[]>;
  /** Forget every lease (embedded mode only: one process owns the database). */
  releaseAllLeases(): Promise<void>;
  isDeleted(documentId: string): Promise<boolean>;
}

/** Encrypted values at rest, for key rotation. */
export interface SecretStore {
  encryptedFetchHeaders(): Promise<{ documentId: string; value: string }[]>;
  replaceFetchHeaders(documentId: string, value: string): Promise<void>;
}

export interface OpsStore {
  ping(): Promise<void>;
  schemaVersion(): Promise<number>;
  globalDocumentCounts(): Promise<Record<string, number>>;
  globalRunCounts(): Promise<Record<string, number>>;
}

export interface StoredSession {
  sessionId: string;
  csrfToken: string;
  expiresAt: Date;
  lastSeenAt: Date;
  user: User;
}

/** Console users and their server-side sessions. */
export interface UserStore {
  insertUser(user: { id: string; accountId: string; email: string; passwordHash: string }): Promise<User>;
  findUserByEmail(email: string): Promise<{ user: User; passwordHash: string } | undefined>;
  listUsers(accountId: string | undefined): Promise<User[]>;
  insertSession(session: {
    id: string;
    userId: string;
    tokenHash: string;
    csrfToken: string;
    expiresAt: Date;
  }): Promise<void>;
  findSessionByTokenHash(tokenHash: string): Promise<StoredSession | undefined>;
  touchSession(sessionId: string, expiresAt: Date): Promise<void>;
  deleteSessionByTokenHash(tokenHash: string): Promise<void>;
}

/** The account's view for the console overview. */
export interface AccountOverview {
  documents: DocumentCounts;
  runsProcessing: number;
  /** Runs that are processing or paused, newest first: what the console links to as work in progress. */
  activeRuns: {
    id: string;
    workspaceId: string;
    status: RunStatus;
    createdAt: Date;
    documents: number;
    finished: number;
  }[];
  recentFailures: (RunFailure & { workspaceId: string; runId: string; failedAt: Date })[];
}

export interface OverviewStore {
  accountOverview(accountId: string): Promise<AccountOverview>;
}

/** Everything the service keeps in its database. */
export type ServiceStore = AccountStore &
  IngestStore &
  RunStore &
  DocumentStore &
  WorkStore &
  OpsStore &
  SecretStore &
  UserStore &
  OverviewStore;
