/** The records the service works with, independent of HTTP and of how they are stored. */

/**
 * What a key may be used for: `admin` manages people, groups and access; `act-as` lets a key name the
 * user it serves a request for (DocSlurp-On-Behalf-Of).
 */
export const SCOPES = ['ingest', 'search', 'artifacts', 'admin', 'act-as'] as const;
export type Scope = (typeof SCOPES)[number];

export const ROLES = ['owner', 'admin', 'editor', 'reader'] as const;
export type Role = (typeof ROLES)[number];

/**
 * What an account may hold and do (issue 43): documents and the bytes of their originals, files
 * added per day (UTC) by uploads and URL ingestion, and questions answered per day.
 */
export const QUOTAS = ['documents', 'storedBytes', 'uploadsPerDay', 'questionsPerDay'] as const;
export type QuotaName = (typeof QUOTAS)[number];
/** A limit per quota; null: unlimited. */
export type QuotaLimits = Record<QuotaName, number | null>;

/** Why something was refused: the quota, its limit and what the account had used of it. */
export interface QuotaRefusal {
  quota: QuotaName;
  limit: number;
  used: number;
}

/** Users and groups, by id. */
export interface Grants {
  users: string[];
  groups: string[];
}

/** A workspace's access: null, the whole account; else who may read it and who may edit it too. */
export type WorkspaceAccess = { read: Grants; edit: Grants } | null;

/** A document's access: null, its workspace's readers; else those of them it lists. */
export type DocumentAccess = Grants | null;

/** One person's view of an account: what a member who is neither owner nor admin may see. */
export interface Member {
  userId: string;
  role: Role;
  groupIds: readonly string[];
}

/**
 * Whose view a request is served with: the whole account (`member` undefined: an account key, an
 * owner or an admin), or one member's. Every read of workspaces, runs and documents takes one.
 */
export interface Audience {
  accountId: string;
  member?: Member | undefined;
}

/**
 * Which documents of a workspace a search may consider: every one, only those listed, or all but
 * those listed (whichever list is shorter). Passed into the index query, so ranking never sees the rest.
 */
export type Visibility = { only: string[] } | { except: string[] } | undefined;

/** Who is calling: resolved from an API key or from a console user's session. */
export interface Principal extends Audience {
  /** What the credential allows, narrowed by the role of the user it acts as. */
  scopes: ReadonlySet<Scope>;
  /** Set when the caller used an API key. */
  keyId: string | undefined;
  /** The user it acts as: a session's, a key's bound user, or the one named on behalf of. */
  userId: string | undefined;
  /** That user's role; undefined for an account key, which acts for the account as a whole. */
  role: Role | undefined;
  /** Who acted, for the audit log: the user's e-mail, the key's prefix, or both. */
  actor: string;
  /** The client's address, for the audit log (the HTTP layer's; undefined from the CLI). */
  address?: string | undefined;
}

/** A person of an account: signs in to the console, and may be the one a key acts as. */
export interface User {
  id: string;
  accountId: string;
  email: string;
  name: string | null;
  role: Role;
  /** The groups it belongs to, by id. */
  groupIds: string[];
  /** Whether it can sign in with a password (users of the identity provider may have none). */
  hasPassword: boolean;
  createdAt: Date;
  lastLoginAt: Date | null;
}

export interface Group {
  id: string;
  accountId: string;
  name: string;
  /** Its members, by user id. */
  memberIds: string[];
  createdAt: Date;
}

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  name: string | null;
  prefix: string;
  scopes: Scope[];
  /** The user the key acts as exactly (its role and access); null: it acts for the account. */
  userId: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export interface Workspace {
  id: string;
  accountId: string;
  /** Chosen by people; null for a workspace an upload created without one. */
  name: string | null;
  description: string | null;
  metadata: Record<string, unknown>;
  /** The language documents are read in: `auto` (each its own, detected) or an ISO 639-1 code. */
  language: string;
  /** The languages its documents were indexed in, as detected or set (ISO 639-1 codes). */
  languages: string[];
  /** Who may read and edit it; null for the whole account. */
  access: WorkspaceAccess;
  createdAt: Date;
  updatedAt: Date;
}

export const RUN_STATUSES = ['processing', 'completed', 'failed', 'paused', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** What a run was: an upload of files, a list of URLs, a source's sync, or documents processed again. */
export const RUN_KINDS = ['upload', 'urls', 'sync', 'reprocess'] as const;
export type RunKind = (typeof RUN_KINDS)[number];

export const DOCUMENT_STATUSES = [
  'queued',
  'processing',
  'ready',
  'needs_ocr',
  'failed',
  'cancelled',
  'deleted',
] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];
export const TERMINAL_DOCUMENT_STATUSES: ReadonlySet<DocumentStatus> = new Set([
  'ready',
  'needs_ocr',
  'failed',
  'cancelled',
  'deleted',
]);

export const DOCUMENT_STAGES = ['queued', 'fetching', 'parsing', 'chunking', 'indexing', 'done'] as const;
export type DocumentStage = (typeof DOCUMENT_STAGES)[number];

export interface Run {
  id: string;
  accountId: string;
  workspaceId: string;
  status: RunStatus;
  kind: RunKind;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
  /** The source a sync run synced; null for uploads and URL lists. */
  sourceId: string | null;
  /** Why the run failed as a whole (a sync that could not list its source), not a document's failure. */
  error: { code: string; message: string } | null;
  /** What a sync left out because no worker can read it; null for other runs and syncs that skipped nothing. */
  skipped?: SkippedItems | null;
  /** What a sync found when it listed its source; null for other runs and syncs that applied nothing. */
  changes?: SyncChanges | null;
}

/**
 * What a sync found in its source, counted when it applied the listing: items new to the workspace,
 * items processed again (changed, a failed one tried again, or a file whose size or time moved),
 * documents deleted because their item is gone, and items left as they were.
 */
export interface SyncChanges {
  added: number;
  changed: number;
  deleted: number;
  unchanged: number;
}

/** Items a sync skipped, by reason (at most five examples of each). */
export interface SkippedItems {
  total: number;
  reasons: { reason: string; count: number; examples: string[] }[];
}

export interface DocumentRecord {
  id: string;
  accountId: string;
  workspaceId: string;
  runId: string;
  filename: string;
  sourceUrl: string | null;
  declaredMediaType: string | null;
  mediaType: string | null;
  sizeBytes: number | null;
  sha256: string | null;
  storageKey: string;
  status: DocumentStatus;
  stage: DocumentStage;
  errorCode: string | null;
  errorMessage: string | null;
  pageCount: number | null;
  chunkCount: number | null;
  /** The language it was indexed in (ISO 639-1); null until processed. */
  language: string | null;
  metadata: Record<string, unknown>;
  attempts: number;
  /** The source the document was synced from (null for uploads and URL lists). */
  sourceId: string | null;
  /** The item of that source: an object key, a canonical page URL or a path under the folder. */
  sourceItem: string | null;
  /** 1, then one more each time a sync re-processes a changed item (same document id). */
  version: number;
  /** Those of its workspace's readers who may read it; null for all of them. */
  access: DocumentAccess;
  /**
   * While a sync re-queued the document because its file's size or time moved (the listing reads no
   * bytes): the hash of the version still indexed, which the worker compares the bytes it reads with.
   */
  indexedSha256?: string | null;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
}

export type DocumentCounts = Record<DocumentStatus, number> & { total: number };

export interface RunFailure {
  documentId: string;
  filename: string;
  /** The path, key or page within the source of a synced document; null for uploads and URL lists. */
  sourceItem: string | null;
  code: string;
  message: string;
}

/** How quickly a run's documents are being processed (finished by a worker, whatever the outcome). */
export interface RunActivity {
  /** Documents processed so far. */
  processed: number;
  /** From the first document's start to the last processed one's end. */
  busySeconds: number;
  /** Documents processed within the last `windowSeconds`. */
  recentlyProcessed: number;
  /** The last minute, or less when the first document started more recently (0 before it). */
  windowSeconds: number;
}

/** A later run that processed some of a run's documents again, and how many of them it took. */
export interface RunReprocessing {
  runId: string;
  documents: number;
}

/**
 * A run as clients see it: its state plus document counts and every failure with its reason. The
 * counts include the documents it handed on to later runs (`reprocessedBy`), in the state they left
 * in; `failures` lists those still in it.
 */
export interface RunView extends Run {
  counts: DocumentCounts;
  failures: RunFailure[];
  activity: RunActivity;
  /** The runs that processed its documents again, oldest first (the fakes of tests may leave it out). */
  reprocessedBy?: RunReprocessing[];
}

/** A passage of a document's extracted text, with where it came from. */
export interface Chunk {
  id: string;
  documentId: string;
  ordinal: number;
  text: string;
  /** Offsets into the document's extracted text: `text === documentText.slice(charStart, charEnd)`. */
  charStart: number;
  charEnd: number;
  pageStart: number | null;
  pageEnd: number | null;
  headingPath: string[];
}

export interface Citation {
  documentId: string;
  filename: string;
  sourceUrl: string | null;
  mediaType: string | null;
  page: number | null;
  pageEnd: number | null;
  charStart: number;
  charEnd: number;
  chunkId: string;
  headingPath: string[];
  score: number;
  /** The source the document was synced from (null for uploads and URL lists), and its item. */
  source: string | null;
  sourceItem: string | null;
  /** The version of the document the passage is from. */
  version: number;
}

export interface SearchHit {
  text: string;
  score: number;
  citation: Citation;
  /** The language the passage was indexed in (ISO 639-1); English when unknown. */
  language?: string | undefined;
}

/** What an account's webhook endpoints can be told about (docs/api.md#webhooks). */
export const WEBHOOK_EVENT_TYPES = [
  'run.completed',
  'run.failed',
  'run.cancelled',
  'document.ready',
  'document.failed',
  'evaluation.completed',
  'evaluation.failed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** A delivery is `pending` until an attempt succeeds or its retries run out (`failed`). */
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/** A URL an account registered to receive events, signed with a secret only its owner knows. */
export interface WebhookEndpoint {
  id: string;
  accountId: string;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  /** Its creator when a user: deliveries carry only what that user may see. Null: the whole account. */
  ownerUserId: string | null;
  createdAt: Date;
  /** Deliveries to this endpoint by status. */
  deliveries: Record<WebhookDeliveryStatus, number>;
}

/** One try at sending a delivery, as its owner sees it. */
export interface WebhookAttempt {
  number: number;
  /** Started by a manual redelivery rather than the retry schedule. */
  manual: boolean;
  startedAt: Date;
  /** Null while the attempt is in flight. */
  finishedAt: Date | null;
  /** The receiver's HTTP status; null when no answer came. */
  statusCode: number | null;
  /** Why the attempt failed when there was no 2xx answer (refused address, timeout, connection…). */
  error: string | null;
  /** The start of the receiver's answer (at most WEBHOOK_MAX_RESPONSE_BYTES). */
  response: string | null;
}

/** One event sent to one endpoint, with every attempt. */
export interface WebhookDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: WebhookEventType;
  /** The JSON body sent, the same bytes on every attempt. */
  body: string;
  status: WebhookDeliveryStatus;
  /** When the next attempt is due (pending deliveries only). */
  nextAttemptAt: Date | null;
  createdAt: Date;
  finishedAt: Date | null;
  attempts: WebhookAttempt[];
}
