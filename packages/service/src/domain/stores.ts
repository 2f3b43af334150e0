// Over 400 lines: one interface per repository of the service database, the whole catalogue of its
// ports in one place (decision 0011), each small.
import type { DocumentFailureCode } from '../errors.js';
import type { PendingSignIn } from './ports.js';
import type {
  ApiKeyRecord,
  Audience,
  DocumentAccess,
  DocumentCounts,
  DocumentRecord,
  DocumentStage,
  DocumentStatus,
  Group,
  QuotaLimits,
  QuotaName,
  QuotaRefusal,
  Role,
  Run,
  RunFailure,
  RunKind,
  RunStatus,
  RunView,
  Scope,
  User,
  Visibility,
  WebhookDelivery,
  WebhookDeliveryStatus,
  WebhookEndpoint,
  WebhookEventType,
  Workspace,
  WorkspaceAccess,
} from './types.js';

/**
 * What the domain asks of the service database, one interface per repository (adapters/postgres).
 * Operations name the narrowest of these they need; HTTP routes never get the worker's WorkStore.
 */

export interface NewApiKey {
  id: string;
  accountId: string;
  name: string | null;
  prefix: string;
  hash: string;
  scopes: Scope[];
  /** The user the key acts as; null or absent: it acts for the account. */
  userId?: string | null | undefined;
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

export interface NewUpload {
  accountId: string;
  /** Append to this workspace; a new one is created when absent. */
  workspaceId: string | undefined;
  newWorkspaceId: string;
  /** The name of the workspace the upload creates (none when it appends). */
  newWorkspaceName?: string | undefined;
  runId: string;
  kind: Extract<RunKind, 'upload' | 'urls'>;
  files: StagedFile[];
  metadata: Record<string, unknown>;
  /** Who of the workspace's readers may read the documents (all of them when null). */
  access: DocumentAccess;
  idempotency: { key: string; requestHash: string } | undefined;
  /** The quota check, given what the account holds and uploaded today, read under the account's lock. */
  admit?:
    | ((use: Record<QuotaName, number>, overrides: Partial<QuotaLimits>) => QuotaRefusal | undefined)
    | undefined;
}

export type UploadOutcome =
  | { kind: 'created'; workspace: Workspace; run: RunView; documents: DocumentRecord[] }
  | { kind: 'replayed'; workspace: Workspace; run: RunView; documents: DocumentRecord[] }
  | { kind: 'idempotency_conflict' }
  | { kind: 'workspace_not_found' }
  | { kind: 'quota_exceeded'; refusal: QuotaRefusal };

export interface FinishDocument {
  status: Extract<DocumentStatus, 'ready' | 'needs_ocr' | 'failed' | 'cancelled'>;
  errorCode?: DocumentFailureCode | null;
  errorMessage?: string | null;
  mediaType?: string | null;
  pageCount?: number | null;
  chunkCount?: number | null;
  /** The language the document was indexed in. */
  language?: string | null;
}

export interface NewWorkspace {
  id: string;
  accountId: string;
  name: string;
  description: string | null;
  metadata: Record<string, unknown>;
  language?: string | undefined;
  access?: WorkspaceAccess | undefined;
}

/** Fields a rename or edit sets; those left out keep their value. */
export interface WorkspaceChanges {
  name?: string | undefined;
  description?: string | null | undefined;
  metadata?: Record<string, unknown> | undefined;
  language?: string | undefined;
  access?: WorkspaceAccess | undefined;
}

/** What a search needs to know of its workspace: how its documents and questions are read. */
export interface SearchContext {
  /** `auto` or the ISO 639-1 code the workspace's documents are read in. */
  language: string;
  /** Languages its documents were indexed in: of those the audience may see. */
  languages: string[];
  /** Which of its documents the audience may see (undefined: all of them). */
  visibility: Visibility;
}

/** What deleting a workspace removed from the database. */
export interface DeletedWorkspace {
  workspace: Workspace;
  /** Its documents (those not deleted before). */
  documents: number;
  /** Its runs that were processing or paused. */
  cancelledRuns: number;
}

/** Workspaces and the uploads that create or extend them. */
export interface WorkspaceStore {
  /**
   * How a search reads the workspace and what of it the audience may see; undefined when it may not
   * see the workspace. For the whole account it may answer from a cache that another process's
   * deletion reaches within seconds; a member's view is always read afresh (access changes at once).
   */
  searchContext(audience: Audience, workspaceId: string): Promise<SearchContext | undefined>;
  getWorkspace(audience: Audience, workspaceId: string): Promise<Workspace | undefined>;
  /** The workspaces the audience may see, its documents counted as it sees them. */
  listWorkspaces(audience: Audience): Promise<(Workspace & { counts: DocumentCounts })[]>;
  createWorkspace(workspace: NewWorkspace): Promise<Workspace>;
  /** Undefined when the account has no such workspace. */
  updateWorkspace(
    accountId: string,
    workspaceId: string,
    changes: WorkspaceChanges,
  ): Promise<Workspace | undefined>;
  /**
   * One transaction: cancels the workspace's runs in progress, records what it holds outside the
   * database (see WorkspaceDeletionStore), and deletes its row, which takes every row that names it,
   * its runs or its documents along. Undefined when the account has no such workspace.
   */
  deleteWorkspace(accountId: string, workspaceId: string): Promise<DeletedWorkspace | undefined>;
  /** One transaction: the workspace (found or created), the run, its documents and the idempotency key. */
  createUpload(upload: NewUpload): Promise<UploadOutcome>;
}

/**
 * What deleted workspaces left outside the database (index tables, stored objects) until it is
 * removed. A removal claims a deletion for a few minutes and finishes it only if nothing was handed
 * to it since (its generation), so writes a worker reports late are never forgotten.
 */
export interface WorkspaceDeletionStore {
  /** Claims one deletion now (the request that deleted the workspace); undefined when there is none. */
  claimDeletion(workspaceId: string): Promise<number | undefined>;
  /** Claims deletions nobody is carrying out (failed, or handed more work), with their generations. */
  claimDueDeletions(limit: number): Promise<{ workspaceId: string; generation: number }[]>;
  /** Up to `limit` keys of stored objects of a deleted workspace still to remove. */
  objectsToDelete(workspaceId: string, limit: number): Promise<string[]>;
  objectsDeleted(workspaceId: string, keys: string[]): Promise<void>;
  /** Forgets the deletion unless it was handed more since `generation`; says whether it did. */
  deletionFinished(workspaceId: string, generation: number): Promise<boolean>;
}

/** A run is seen by those who may see its workspace, and counts the documents they may see. */
export interface RunStore {
  getRun(audience: Audience, runId: string): Promise<RunView | undefined>;
  listRunDocuments(audience: Audience, runId: string): Promise<DocumentRecord[]>;
  /**
   * Moves a run between states when it is in one of `from`; returns the run after the attempt. A run
   * that becomes `cancelled` cancels its queued documents in the same transaction.
   */
  transitionRun(
    accountId: string,
    runId: string,
    from: RunStatus[],
    to: RunStatus,
  ): Promise<{ changed: boolean; run: Run | undefined }>;
  queuedDocumentIds(runId: string): Promise<string[]>;
  /** Completes or fails the run when every document is terminal. */
  settleRun(runId: string): Promise<void>;
  /** The workspace's runs, newest first; undefined when the audience may not see such a workspace. */
  listRuns(audience: Audience, workspaceId: string, limit: number): Promise<RunView[] | undefined>;
  /**
   * A `reprocess` run for those of the documents (of one workspace) still cancelled or failed, moved
   * into it and queued as new (same id and version); undefined when none of them is.
   */
  reprocessDocuments(
    accountId: string,
    documentIds: string[],
    newRunId: string,
  ): Promise<{ run: RunView; documents: DocumentRecord[] } | undefined>;
}

/** Where a searchable document came from, and which of its versions the index holds. */
export interface DocumentOrigin {
  source: string | null;
  sourceItem: string | null;
  version: number;
}

/** Documents as an audience sees them: one it may not read is one that does not exist. */
export interface DocumentStore {
  getDocument(audience: Audience, documentId: string): Promise<DocumentRecord | undefined>;
  listDocuments(audience: Audience, workspaceId: string): Promise<DocumentRecord[]>;
  markDeleted(accountId: string, documentId: string): Promise<DocumentRecord | undefined>;
  /** Sets who may read the document; undefined when the account has no such document. */
  setAccess(
    accountId: string,
    documentId: string,
    access: DocumentAccess,
  ): Promise<DocumentRecord | undefined>;
  /**
   * Of the given ids, those still searchable (ready, or a later version being processed while the
   * index still holds the previous one), with where they came from and the version indexed.
   */
  liveDocuments(workspaceId: string, documentIds: string[]): Promise<Map<string, DocumentOrigin>>;
  countsByStatus(audience: Audience, workspaceId: string): Promise<DocumentCounts>;
}

export interface ClaimOptions {
  leaseSeconds: number;
  maxAttempts: number;
  /** Most bytes of originals in one batch; a larger document is claimed alone. */
  maxBytes: number;
  /**
   * Most documents of a batch taken from the queue rather than from the jobs in hand, when another
   * workspace's turn has come (WORKER_BATCH_DOCUMENTS; by default as many as the jobs in hand).
   */
  maxDocuments?: number | undefined;
}

/** What claiming a batch gave this worker. */
export interface BatchClaim {
  /**
   * Held by this worker now, all of one workspace: of the documents asked for, in the order asked,
   * or, when another workspace's turn has come, its oldest waiting ones (their jobs still queued).
   */
  claimed: DocumentRecord[];
  /** Could be processed, but not in this batch (another workspace, or over its budget). */
  deferred: string[];
  /** Every attempt started and none finished: to be failed. */
  exhausted: DocumentRecord[];
  /** Nothing to do here (gone, finished, leased by another worker, run paused or cancelled). */
  skipped: { documentId: string; reason: string }[];
  /** The claimed documents' workspace's `language` setting (`auto` or a code). */
  workspaceLanguage?: string | undefined;
}

/** What fetching a document produced, as WorkStore.recordFetched records it. */
export interface FetchedBytes {
  documentId: string;
  sizeBytes: number;
  sha256: string;
  declaredMediaType: string | null;
  filename: string;
}

export interface RecordedFetch {
  document: DocumentRecord;
  runStatus: RunStatus;
}

export type StartOutcome =
  | { held: false }
  /** Started (attempt counted) when `runStatus` is `processing`; otherwise left as claimed. */
  | { held: true; runStatus: RunStatus; attempts: number };

export interface WorkStore {
  claimDocuments(documentIds: string[], workerId: string, options: ClaimOptions): Promise<BatchClaim>;
  /** Starts held documents in one write; answers each one asked for (`held: false` for those not held). */
  startDocuments(
    documentIds: string[],
    workerId: string,
    stage: DocumentStage,
  ): Promise<Map<string, StartOutcome>>;
  /** Moves held documents to a stage; answers, for each one still held, its run's status. */
  setStages(documentIds: string[], workerId: string, stage: DocumentStage): Promise<Map<string, RunStatus>>;
  /** Extends the leases; answers the documents this worker still holds (not deleted, cancelled, taken over). */
  renewLeases(documentIds: string[], workerId: string, leaseSeconds: number): Promise<Set<string>>;
  /** Lets started documents' leases lapse now, so that they are retried. */
  releaseLeases(documentIds: string[], workerId: string): Promise<void>;
  /**
   * Returns claimed documents whose work never began to the queue; those in `takeBackAttempt` were
   * started ahead of their turn (their attempt counted) and get the attempt back.
   */
  unclaimDocuments(
    documentIds: string[],
    workerId: string,
    takeBackAttempt?: ReadonlySet<string>,
  ): Promise<void>;
  /** Finishes documents this worker holds and settles their runs in one transaction; answers those finished. */
  finishDocuments(
    workerId: string,
    results: { documentId: string; result: FinishDocument }[],
  ): Promise<Set<string>>;
  /** The encrypted fetch headers of a URL document, if any. */
  fetchHeadersOf(documentId: string): Promise<string | null>;
  /**
   * Records what fetching documents produced (and erases their fetch headers) and moves them on to
   * `parsing`, in one write: each document and its run's status, by id; absent when this worker no
   * longer holds it.
   */
  recordFetched(workerId: string, documents: FetchedBytes[]): Promise<Map<string, RecordedFetch>>;
  /**
   * Finishes a synced document whose bytes, just read, are those of its version still indexed (see
   * DocumentRecord.indexedSha256): back to that version, ready, in the run it came from, its sync's run
   * settled; nothing is processed again and no event is written. False when the document is not such
   * a one or this worker no longer holds it.
   */
  keepIndexedVersion(documentId: string, workerId: string): Promise<boolean>;
  /**
   * Documents of processing runs whose job may have been lost, marked as handed back to the job
   * engine (the caller enqueues them): those whose lease lapsed, once per lapse, and those waiting
   * for longer than `waitingSeconds` since they were queued or last handed back. Up to `limit`, by id.
   */
  requeueLostDocuments(limit: number, waitingSeconds: number): Promise<string[]>;
  /** Documents of processing runs waiting in the queue since more than `olderThanSeconds` ago. */
  countWaitingDocuments(olderThanSeconds: number): Promise<number>;
  /** Fails a document nobody holds (its attempts are exhausted) and settles its run. */
  failUnleased(documentId: string, code: DocumentFailureCode, message: string): Promise<void>;
  /** Runs still `processing` whose documents are all terminal (after a crash between the two writes). */
  findUnsettledRuns(limit: number): Promise<string[]>;
  /** Completes or fails the run when every document is terminal. */
  settleRun(runId: string): Promise<void>;
  /** Runs of the workspace whose documents are done, waiting for the index to fold their rows in. */
  runsAwaitingIndex(workspaceId: string): Promise<string[]>;
  /** Completes (or fails) these runs, their rows now folded into the index. */
  completeIndexedRuns(runIds: string[]): Promise<void>;
  /** Workspaces with a run waiting for its index longer than this (its maintenance job lost). */
  workspacesAwaitingIndex(olderThanSeconds: number, limit: number): Promise<string[]>;
  /** Forget every lease (embedded mode only: one process owns the database). */
  releaseAllLeases(): Promise<void>;
  /**
   * Whether the workspace was deleted, and which of the documents were (or went with it): what a
   * worker wrote for those after the deletion must not stay.
   */
  deletedAmong(
    workspaceId: string,
    documentIds: string[],
  ): Promise<{ workspace: boolean; documents: Set<string> }>;
  /**
   * Hands what a worker wrote for a workspace deleted meanwhile (objects, and index tables it may have
   * created again) to the workspace's deletion, which reconcilers carry out (WorkspaceDeletionStore).
   */
  reopenDeletion(workspaceId: string, objectKeys: string[]): Promise<void>;
}

/** Encrypted values at rest of one kind (fetch headers, webhook secrets), for key rotation. */
export interface SecretStore {
  /** Every stored value, with the context it was encrypted with (see SecretBox). */
  encryptedValues(): Promise<{ id: string; context: string; value: string }[]>;
  replaceEncryptedValue(id: string, value: string): Promise<void>;
}

export interface NewWebhookEndpoint {
  id: string;
  accountId: string;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  /** The signing secret, encrypted (SecretBox, webhookSecretContext). */
  encryptedSecret: string;
  /** Its creator when a user (deliveries carry only what that user may see); null for the account. */
  ownerUserId: string | null;
}

export interface DeliveryPage {
  limit: number;
  /** Deliveries older than this one (ids sort by creation). */
  before: string | undefined;
  status: WebhookDeliveryStatus | undefined;
}

/** Webhook endpoints and their deliveries, as their owners manage and inspect them. */
export interface WebhookStore {
  /** Undefined when the account already has `maxPerAccount` endpoints. */
  insertEndpoint(endpoint: NewWebhookEndpoint, maxPerAccount: number): Promise<WebhookEndpoint | undefined>;
  listEndpoints(accountId: string): Promise<WebhookEndpoint[]>;
  getEndpoint(accountId: string, endpointId: string): Promise<WebhookEndpoint | undefined>;
  /** Deletes the endpoint with its deliveries (pending ones are never sent). */
  deleteEndpoint(accountId: string, endpointId: string): Promise<WebhookEndpoint | undefined>;
  /** Newest first; undefined when the endpoint is not the account's. */
  listDeliveries(
    accountId: string,
    endpointId: string,
    page: DeliveryPage,
  ): Promise<WebhookDelivery[] | undefined>;
  /** Makes the delivery due now (whatever its status), with a fresh retry window. */
  redeliver(accountId: string, endpointId: string, deliveryId: string): Promise<WebhookDelivery | undefined>;
}

/** A delivery a worker has claimed for one attempt. */
export interface ClaimedDelivery {
  id: string;
  /** Proves the claim when the attempt is recorded (a later claim replaces it). */
  claim: string;
  /** This attempt's number (1 for the first). */
  attempt: number;
  manual: boolean;
  eventId: string;
  eventType: WebhookEventType;
  body: string;
  endpointId: string;
  url: string;
  encryptedSecret: string;
  /** Seconds since the retry window opened (the event, or the last manual redelivery), by the database's clock. */
  retryingForSeconds: number;
}

export interface AttemptOutcome {
  statusCode: number | null;
  error: string | null;
  response: string | null;
}

export type DeliveryNext =
  | { status: 'succeeded' }
  | { status: 'failed' }
  | { status: 'pending'; retryInSeconds: number };

/** What an attempt said of its endpoint: `slow` pauses it, `healthy` ends a pause. */
export type EndpointHealth = 'slow' | 'healthy' | 'unchanged';

/** The worker's side of webhooks: the outbox of due deliveries. */
export interface WebhookOutbox {
  /**
   * Claims due deliveries, fairly across accounts and endpoints (an account with fewer in flight
   * first), at most `perEndpoint` and `perAccount` in flight across all workers, and opens an
   * attempt for each.
   */
  claimDue(
    limit: number,
    leaseSeconds: number,
    perEndpoint?: number,
    perAccount?: number,
  ): Promise<ClaimedDelivery[]>;
  /** Closes the attempt and sets what follows, unless the claim was taken over meanwhile. */
  finishAttempt(d: ClaimedDelivery, o: AttemptOutcome, n: DeliveryNext, e?: EndpointHealth): Promise<void>;
  /** Removes events older than `days` with nothing left to send; answers how many. */
  purgeOlderThan(days: number): Promise<number>;
  /** Makes every claimed delivery due now (embedded mode only: one process owns the database). */
  releaseAllClaims(): Promise<void>;
}
/**
 * Work that one worker at a time does for the whole stack (the reconciler's pass, a workspace's
 * index maintenance), held by name for a time.
 */
export interface LeaseStore {
  /** Takes or renews the lease; false when another holder's lease has not lapsed. */
  acquire(name: string, holder: string, seconds: number): Promise<boolean>;
  /** Lets go of it now (only if `holder` still has it). */
  release(name: string, holder: string): Promise<void>;
}

export interface OpsStore {
  ping(): Promise<void>;
  schemaVersion(): Promise<number>;
  globalDocumentCounts(): Promise<Record<string, number>>;
  globalRunCounts(): Promise<Record<string, number>>;
  /** Webhook deliveries not sent yet, and those of them whose next attempt is due now. */
  webhookBacklog(): Promise<{ pending: number; due: number }>;
}

export interface StoredSession {
  sessionId: string;
  csrfToken: string;
  expiresAt: Date;
  lastSeenAt: Date;
  user: User;
  /** Signed in through the identity provider: its ID token (to end its session too); null otherwise. */
  idToken: string | null;
  /** Whether use extends it (password sessions); one through the provider ends at a fixed time. */
  sliding: boolean;
}

/** A sign-in through the identity provider under way, until its callback (one use). */
export type PendingSignInRecord = PendingSignIn & { returnTo: string };

export interface NewUser {
  id: string;
  accountId: string;
  email: string;
  name?: string | null | undefined;
  role: Role;
  /** Null for a user who signs in through the identity provider only. */
  passwordHash: string | null;
  groupIds?: readonly string[] | undefined;
  oidc?: { issuer: string; subject: string } | undefined;
}

export interface UserChanges {
  role?: Role | undefined;
  name?: string | null | undefined;
  passwordHash?: string | undefined;
  /** Replaces its groups. */
  groupIds?: readonly string[] | undefined;
  /** Links the user to the identity provider's subject (first sign-in with it). */
  oidc?: { issuer: string; subject: string } | undefined;
}

/** The people of an account, their groups, and their server-side sessions. */
export interface UserStore {
  insertUser(user: NewUser): Promise<User>;
  findUserByEmail(email: string): Promise<{ user: User; passwordHash: string | null } | undefined>;
  findUserBySubject(issuer: string, subject: string): Promise<User | undefined>;
  getUser(accountId: string, userId: string): Promise<User | undefined>;
  listUsers(accountId: string | undefined): Promise<User[]>;
  /** Undefined when the account has no such user. */
  updateUser(accountId: string, userId: string, changes: UserChanges): Promise<User | undefined>;
  /**
   * Deletes the user with its sessions, its keys and its webhook endpoints, and takes it off every
   * access list, in one transaction. Undefined when the account has no such user.
   */
  deleteUser(accountId: string, userId: string): Promise<User | undefined>;
  /** Ends every session of the user (a role or group change takes effect on the next request anyway). */
  deleteSessionsOf(userId: string): Promise<void>;
  insertSession(session: {
    id: string;
    userId: string;
    tokenHash: string;
    csrfToken: string;
    expiresAt: Date;
    idToken?: string | undefined;
    sliding?: boolean | undefined;
  }): Promise<void>;
  savePendingSignIn(pending: PendingSignInRecord): Promise<void>;
  /** Takes the sign-in begun with `state` (forgotten at once: a replayed callback finds nothing). */
  takePendingSignIn(state: string, maxAgeSeconds: number): Promise<PendingSignInRecord | undefined>;
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
    kind: RunKind;
    /** The name of the source a sync run syncs, when it has one. */
    sourceName: string | null;
    createdAt: Date;
    documents: number;
    finished: number;
  }[];
  recentFailures: (RunFailure & { workspaceId: string; runId: string; failedAt: Date })[];
}

export interface OverviewStore {
  accountOverview(audience: Audience): Promise<AccountOverview>;
}

/** An account's groups of users. */
export interface GroupStore {
  /** Undefined when the name is taken in the account (names are unique without regard to case). */
  insertGroup(group: { id: string; accountId: string; name: string }): Promise<Group | undefined>;
  getGroup(accountId: string, groupId: string): Promise<Group | undefined>;
  listGroups(accountId: string): Promise<Group[]>;
  /** Undefined when there is no such group; `conflict` when the new name is another group's. */
  renameGroup(accountId: string, groupId: string, name: string): Promise<Group | 'conflict' | undefined>;
  /** Deletes the group and takes it off every access list, in one transaction. */
  deleteGroup(accountId: string, groupId: string): Promise<Group | undefined>;
  /** Undefined when the group or the user is not the account's. */
  addMember(accountId: string, groupId: string, userId: string): Promise<Group | undefined>;
  removeMember(accountId: string, groupId: string, userId: string): Promise<Group | undefined>;
  /**
   * Groups by id or by name (without regard to case); `create` makes those named that do not exist
   * (an identity provider's claim). Names and ids not found are left out.
   */
  resolveGroups(accountId: string, idsOrNames: readonly string[], create?: boolean): Promise<Group[]>;
}

export interface AuditEvent {
  id: string;
  at: Date;
  actor: string;
  actorUserId: string | null;
  actorKeyId: string | null;
  clientAddress: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  outcome: 'success' | 'failure' | 'denied';
  details: Record<string, unknown>;
}

export type NewAuditEvent = Omit<AuditEvent, 'id' | 'at'> & { accountId: string };

export interface AuditQuery {
  actor?: string | undefined;
  action?: string | undefined;
  targetId?: string | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
  /** Events older than the one with this id (the page's cursor). */
  before?: string | undefined;
  limit: number;
}

/** The audit log: appended to, read by the account's owners and admins, never changed. */
export interface AuditStore {
  append(event: NewAuditEvent): Promise<void>;
  list(accountId: string, query: AuditQuery): Promise<AuditEvent[]>;
  /** Removes events older than `days` (AUDIT_RETENTION_DAYS); answers how many. */
  purgeOlderThan(days: number): Promise<number>;
}
