// Over 400 lines: every wire type of the API in one place, as the service answers them (issue 27
// plans to generate them from the OpenAPI document instead).
/** The API's records as the SDK returns them (docs/api.md of the service is the contract). */

export type RunStatus = 'processing' | 'completed' | 'failed' | 'paused' | 'cancelled';

export type DocumentStatus =
  | 'queued'
  | 'processing'
  | 'ready'
  | 'needs_ocr'
  | 'failed'
  | 'cancelled'
  | 'deleted';

/** `fetching` only for documents ingested by URL. */
export type DocumentStage = 'queued' | 'fetching' | 'parsing' | 'chunking' | 'indexing' | 'done';

export interface Workspace {
  id: string;
  /** Null for a workspace an upload created without a name. */
  name: string | null;
  description: string | null;
  metadata: Record<string, unknown>;
  /** `auto` (each document read in its own, detected language) or the ISO 639-1 code set for it. */
  language: string;
  /** Languages its documents were indexed in (ISO 639-1 codes). */
  languages: string[];
  createdAt: string;
  updatedAt: string;
}

/** What `deleteWorkspace` removed. */
export interface WorkspaceDeletion {
  workspace: Workspace;
  /** Documents deleted with it. */
  documents: number;
  /** Its runs that were processing or paused, ended by the deletion. */
  cancelledRuns: number;
  /** `done`: its stored files and index are gone too; `pending`: the service's workers remove them. */
  storage: 'done' | 'pending';
}

/** A format the service reads; `full`: only where workers run WORKER_PROFILE=full (OCR, LibreOffice). */
export interface Format {
  name: string;
  extensions: string[];
  mediaTypes: string[];
  profile: 'default' | 'full';
}

export interface Formats {
  formats: Format[];
  /** What an upload refuses (UnsupportedMediaTypeError), whatever the file is called. */
  refused: string[];
  /** Languages read with their own word forms and stop words (a workspace's `language` may be one of these codes). */
  languages: { code: string; name: string }[];
}

/** A file an upload refused (`UnsupportedMediaTypeError.files`). */
export interface RefusedFile {
  /** Its position among the upload's files, from 0. */
  index: number;
  filename: string;
  /** What its document would have failed with: `empty_document` or `unsupported_media_type`. */
  code: string;
  reason: string;
}

/** Number of documents in each state, plus the total. */
export type DocumentCounts = { total: number } & Record<DocumentStatus, number>;

export interface WorkspaceSummary extends Workspace {
  counts: DocumentCounts;
}

export interface RunFailure {
  documentId: string;
  filename: string;
  /** Where a synced document is in its source (path, object key or page URL); null if not synced. */
  sourceItem: string | null;
  code: string;
  message: string;
}

/** What started a run: an upload of files, a list of URLs, a source's sync, or documents processed again. */
export type RunKind = 'upload' | 'urls' | 'sync' | 'reprocess';

export interface Run {
  id: string;
  workspaceId: string;
  status: RunStatus;
  kind: RunKind;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
  /** The source a sync run synced; null for uploads and URL lists. */
  sourceId: string | null;
  /** Why a sync run failed as a whole (credentials refused, unreachable, deletion limit); null otherwise. */
  error: DocumentError | null;
  /**
   * Items a sync left out because no worker can read them (archives, binary content, files over the
   * size limit), by reason with a few examples; null when none (and for other runs).
   */
  skipped: { total: number; reasons: { reason: string; count: number; examples: string[] }[] } | null;
  counts: DocumentCounts;
  failures: RunFailure[];
  /**
   * Documents processed per second over the last minute of work (over the whole run once it is
   * finished); null while nothing was processed in that minute, and while the run is paused.
   */
  documentsPerSecond: number | null;
  /** Estimated seconds until every document is finished at that pace; 0 once finished, null when unknown. */
  etaSeconds: number | null;
}

export interface DocumentError {
  code: string;
  message: string;
}

export interface RunProgressDocument {
  id: string;
  filename: string;
  /** A synced document's path within its source; null for uploads. */
  sourceItem: string | null;
  status: DocumentStatus;
  stage: DocumentStage;
  error: DocumentError | null;
}

export interface RunProgress extends Run {
  /** Share of the run's documents that have finished, with any outcome (0 to 1). */
  progress: number;
  /** True once the run will not change any more (completed, failed or cancelled). */
  done: boolean;
  documents: RunProgressDocument[];
}

export interface Document {
  id: string;
  workspaceId: string;
  runId: string;
  filename: string;
  sourceUrl: string | null;
  /** Detected from the content. */
  mediaType: string | null;
  /** As sent by the client. */
  declaredMediaType: string | null;
  /** Null for a URL until the worker has fetched it. */
  sizeBytes: number | null;
  sha256: string | null;
  /** The language it was indexed in (ISO 639-1); null until it is processed. */
  language: string | null;
  status: DocumentStatus;
  stage: DocumentStage;
  error: DocumentError | null;
  pageCount: number | null;
  chunkCount: number | null;
  metadata: Record<string, unknown>;
  /** The source the document was synced from; null for uploads and URL lists. */
  source: string | null;
  /** The source's item: an object key, a page's canonical URL or a path under the folder. */
  sourceItem: string | null;
  /** 1, then one more each time a sync re-processes a changed item (same document id). */
  version: number;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
}

export interface UploadResult {
  workspace: Workspace;
  run: Run;
  documents: Document[];
}

/** Documents queued again (`reprocessDocument`, `reprocessRun`), and the new run they are processed in. */
export interface ReprocessResult {
  run: Run;
  documents: Document[];
}

export interface Citation {
  documentId: string;
  filename: string;
  sourceUrl: string | null;
  mediaType: string | null;
  /** First page of the passage, for paged formats such as PDF; null otherwise. */
  page: number | null;
  pageEnd: number | null;
  /** Offsets into the document's extracted text (`getDocumentText`), in UTF-16 code units. */
  charStart: number;
  charEnd: number;
  chunkId: string;
  headingPath: string[];
  score: number;
  /** The source the document was synced from (null for uploads and URL lists), and its item. */
  source: string | null;
  sourceItem: string | null;
  /** The version of the document the passage is from (a synced item re-processed has a new one). */
  version: number;
}

/** A short excerpt of a passage around the query's words. */
export interface Snippet {
  text: string;
  /** Offsets of the excerpt in the document's extracted text. */
  charStart: number;
  charEnd: number;
  /** The query's words in the excerpt, as offsets into `text`. */
  highlights: { start: number; end: number }[];
}

export interface SearchHit {
  text: string;
  score: number;
  citation: Citation;
  snippet: Snippet;
}

export interface SearchResponse {
  results: SearchHit[];
}

export interface AnswerCitation extends Citation {
  /** The number used by the answer's `[n]` markers. */
  n: number;
  /** The cited words. */
  text: string;
}

export interface ChatAnswer {
  answer: string;
  citations: AnswerCitation[];
  /**
   * How the answer was made: sentences quoted from the passages (`extractive`), written by the
   * service's chat model (`model`), or `declined`: the workspace holds no answer, and `answer` says
   * so in the question's language.
   */
  kind: 'extractive' | 'model' | 'declined';
}

export interface Availability {
  workspaceId: string;
  /** True when no document is waiting to be indexed. */
  complete: boolean;
  searchable: { documentId: string; filename: string }[];
  pending: { documentId: string; filename: string; status: string; stage: string }[];
  unavailable: { documentId: string; filename: string; status: string; code: string | null }[];
  counts: DocumentCounts;
}

/** What a webhook endpoint can be told about. */
export type WebhookEventType =
  | 'run.completed'
  | 'run.failed'
  | 'run.cancelled'
  | 'document.ready'
  | 'document.failed';

/** A delivery is `pending` until an attempt succeeds (`succeeded`) or its retries run out (`failed`). */
export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookEndpoint {
  id: string;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  createdAt: string;
  /** Deliveries to this endpoint by status. */
  deliveries: Record<WebhookDeliveryStatus, number>;
}

/** `createWebhook`'s answer: the endpoint and its signing secret, which is shown this once. */
export interface CreatedWebhook {
  webhook: WebhookEndpoint;
  /** `whsec_…`: keep it with the receiver, for `verifyWebhook`. */
  secret: string;
}

/** `data` of the run events. */
export interface WebhookRunData {
  id: string;
  workspaceId: string;
  status: RunStatus;
  createdAt: string;
  finishedAt: string | null;
  sourceId: string | null;
  error: DocumentError | null;
  counts: DocumentCounts;
  /** The first 20 failed documents; `counts.failed` has them all. */
  failures: RunFailure[];
}

/** `data` of the document events. */
export interface WebhookDocumentData {
  id: string;
  workspaceId: string;
  runId: string;
  filename: string;
  sourceUrl: string | null;
  mediaType: string | null;
  status: DocumentStatus;
  error: DocumentError | null;
  pageCount: number | null;
  chunkCount: number | null;
  finishedAt: string | null;
}

/** A delivery's JSON body: `id` is also the `webhook-id` header, the same on every attempt. */
export type WebhookEvent =
  | {
      id: string;
      type: 'run.completed' | 'run.failed' | 'run.cancelled';
      /** When the event happened (not when it was sent). */
      timestamp: string;
      data: WebhookRunData;
    }
  | {
      id: string;
      type: 'document.ready' | 'document.failed';
      timestamp: string;
      data: WebhookDocumentData;
    };

export interface WebhookAttempt {
  number: number;
  /** Started by a redelivery rather than the retry schedule. */
  manual: boolean;
  startedAt: string;
  /** Null while the attempt is in flight. */
  finishedAt: string | null;
  /** The receiver's HTTP status; null when no answer came. */
  statusCode: number | null;
  /** Why the attempt failed; null on success. */
  error: string | null;
  /** The start of the receiver's answer. */
  response: string | null;
}

export interface WebhookDelivery {
  id: string;
  webhookId: string;
  event: WebhookEvent;
  status: WebhookDeliveryStatus;
  /** When the next attempt is due (pending deliveries). */
  nextAttemptAt: string | null;
  createdAt: string;
  finishedAt: string | null;
  attempts: WebhookAttempt[];
}

export interface WebhookDeliveryPage {
  /** Newest first. */
  deliveries: WebhookDelivery[];
  /** Pass as `before` for the next page; null on the last. */
  next: string | null;
}

/** What a workspace can stay in sync with (see the service's docs/api.md#sources). */
export type SourceType = 's3' | 'website' | 'folder';

/** Whether the caller may add a type of source (GET /v1/source-types). */
export interface SourceTypeOffer {
  type: SourceType;
  available: boolean;
  /** Why not, in one sentence; null when available. */
  reason: string | null;
  /** Folder sources: the server folders granted to the caller's account; empty for the others. */
  roots: string[];
}

/** A source a workspace stays in sync with; its credentials are never returned. */
export interface Source {
  id: string;
  workspaceId: string;
  type: SourceType;
  name: string | null;
  /** The type's settings, with defaults filled in. */
  settings: Record<string, unknown>;
  hasCredentials: boolean;
  /** Synced on this schedule; null: only on request. */
  intervalMinutes: number | null;
  /** A sync that would delete more than this share of the source's documents fails unless forced. */
  maxDeleteShare: number;
  createdAt: string;
  updatedAt: string;
  /** The last sync that listed the source (its run may still be processing documents). */
  lastSync: {
    runId: string;
    status: RunStatus;
    startedAt: string;
    finishedAt: string | null;
    error: DocumentError | null;
  } | null;
  /** The run of the sync requested or under way. */
  syncRunId: string | null;
  /** null without a schedule, or when five syncs in a row failed the same way. */
  nextSyncAt: string | null;
  /**
   * Syncs in a row that failed with the same code: each scheduled sync then waits twice as long,
   * and after five the schedule stops until the source is changed or synced on request.
   */
  consecutiveFailures: number;
}

/** The run of a sync (`created`: false when a sync was already under way). */
export interface SourceSync {
  run: Run;
  created: boolean;
}
