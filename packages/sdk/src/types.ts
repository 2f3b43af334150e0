/**
 * The API's records as the SDK returns them, named for the SDK's users. Each is the schema the service
 * serves in its OpenAPI document (generated/openapi.ts, from `npm run openapi:types`), or a part of one,
 * so a change to a route's response changes these types, and the SDK's own use of them fails to
 * compile where it no longer fits.
 */
import type { components, operations } from './generated/openapi.js';

type Schemas = components['schemas'];

/** The JSON body of an operation's answer with that status: for records the document does not name. */
export type Answer<
  Op extends keyof operations,
  Status extends keyof operations[Op]['responses'],
> = operations[Op]['responses'][Status] extends { content: { 'application/json': infer Body } }
  ? Body
  : never;
/**
 * The JSON body an operation takes: the client's parameters must fit it, so a field the service
 * renames or starts to require fails to compile here rather than at the server.
 */
export type Sent<Op extends keyof operations> = operations[Op] extends {
  requestBody?: { content: { 'application/json': infer Body } };
}
  ? Body
  : never;

export type Workspace = Schemas['Workspace'];
/** What `deleteWorkspace` removed; `storage: 'pending'` while the service's workers remove its files. */
export type WorkspaceDeletion = Schemas['WorkspaceDeletion'];
/** Number of documents in each state, plus the total. */
export type DocumentCounts = Schemas['DocumentCounts'];
export type WorkspaceSummary = Schemas['WorkspaceSummary'];
/** Each quota's limit (null: unlimited) and use; the daily ones count UTC days (`resetsAt`). */
export type Quotas = Schemas['Quotas'];

export type Formats = Schemas['Formats'];
/** A format the service reads; `full`: only where workers run WORKER_PROFILE=full (OCR, LibreOffice). */
export type Format = Formats['formats'][number];
/** A file an upload refused (`UnsupportedMediaTypeError.files`). */
export type RefusedFile = Schemas['RefusedFile'];

export type Run = Schemas['Run'];
export type RunStatus = Run['status'];
/** What started a run: an upload of files, a list of URLs, a source's sync, or documents processed again. */
export type RunKind = Run['kind'];
export type RunFailure = Run['failures'][number];
/** A later run that processed some of a run's documents again (`Run.reprocessedBy`), and how many. */
export type RunReprocessing = Run['reprocessedBy'][number];
export type RunProgress = Schemas['RunProgress'];
export type RunProgressDocument = RunProgress['documents'][number];

export type Document = Schemas['Document'];
export type DocumentStatus = Document['status'];
/** `fetching` only for documents ingested by URL. */
export type DocumentStage = Document['stage'];
export type DocumentError = NonNullable<Document['error']>;
export type UploadResult = Schemas['UploadResponse'];
/** Documents queued again (`reprocessDocument`, `reprocessRun`), and the new run they are processed in. */
export type ReprocessResult = Schemas['ReprocessResponse'];

/** Where a passage is: `charStart` and `charEnd` index into `getDocumentText`, in UTF-16 code units. */
export type Citation = Schemas['Citation'];
/** A short excerpt of a passage around the query's words. */
export type Snippet = Schemas['Snippet'];
export type SearchHit = Schemas['SearchHit'];
export type SearchResponse = Schemas['SearchResponse'];
/** A citation of an answer: `n` is the number of its `[n]` markers, `text` the cited words. */
export type AnswerCitation = Schemas['AnswerCitation'];
export type ChatAnswer = Schemas['ChatResponse'];
export type Availability = Schemas['Availability'];

export type WebhookEndpoint = Schemas['WebhookEndpoint'];
/** What a webhook endpoint can be told about. */
export type WebhookEventType = WebhookEndpoint['events'][number];
/** `createWebhook`'s answer: the endpoint and its signing secret (`whsec_…`), shown this once. */
export type CreatedWebhook = Answer<'createWebhook', 201>;
/** `data` of the run events. */
export type WebhookRunData = Schemas['WebhookRunData'];
/** `data` of the document events. */
export type WebhookDocumentData = Schemas['WebhookDocumentData'];
/** A delivery's JSON body, narrowed by `type`: `id` is also the `webhook-id` header, the same on every attempt. */
export type WebhookEvent = Schemas['WebhookEvent'];
export type WebhookAttempt = Schemas['WebhookAttempt'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
/** A delivery is `pending` until an attempt succeeds (`succeeded`) or its retries run out (`failed`). */
export type WebhookDeliveryStatus = WebhookDelivery['status'];
/** Deliveries newest first; pass `next` as `before` for the next page (null on the last). */
export type WebhookDeliveryPage = Answer<'listWebhookDeliveries', 200>;

/** A source a workspace stays in sync with; its credentials are never returned. */
export type Source = Schemas['Source'];
/** What a workspace can stay in sync with (see the service's docs/api.md#sources). */
export type SourceType = Source['type'];
/** Whether the caller may add a type of source (GET /v1/source-types). */
export type SourceTypeOffer = Schemas['SourceTypeOffer'];
/** The run of a sync (`created`: false when a sync was already under way). */
export type SourceSync = Answer<'syncSource', 202>;

/** A question of a set as stored: every field present (docs/evaluation.md). */
export type Question = Schemas['Question'];
/** A question set as listed, without its questions. */
export type QuestionSetSummary = Schemas['QuestionSetSummary'];
/** A question set with its questions. */
export type QuestionSet = Schemas['QuestionSet'];

/** An evaluation: its status, `progress` and, once completed, `results` per configuration. */
export type Evaluation = Schemas['Evaluation'];
export type EvaluationStatus = Evaluation['status'];
/** A configuration as the server resolved it: every choice filled in. */
export type EvaluationConfiguration = Schemas['EvaluationConfiguration'];
/** One configuration's metrics, overall and per question language and tag. */
export type EvaluationResults = Schemas['EvaluationResults'];
/** Each metric by name (null when no question applies), with its 95 % interval. */
export type EvaluationMetrics = Schemas['EvaluationMetrics'];
export type EvaluationMetricName = keyof EvaluationMetrics;
/** `{value, low, high, n}`: the value, its bootstrap interval and the questions it is over. */
export type EvaluationMetric = NonNullable<EvaluationMetrics[EvaluationMetricName]>;
/** What one question got under one configuration: passages, answer, checks, passed and failed metrics. */
export type EvaluationOutcome = Schemas['EvaluationOutcome'];
/** A page of outcomes; pass `nextOffset` as `offset` for the next one (null on the last). */
export type EvaluationOutcomePage = Answer<'listEvaluationQuestions', 200>;
/** One evaluation (`b`) against a baseline (`a`): each metric's difference and the questions that changed. */
export type EvaluationComparison = Schemas['EvaluationComparison'];

/** Users and groups by id: an access list. */
export type Grants = Schemas['Grants'];
/** Who may read and edit a workspace; null: the whole account. */
export type WorkspaceAccess = Schemas['WorkspaceAccess'];
/** Who of its workspace's readers may read a document; null: all of them. */
export type DocumentAccess = Schemas['DocumentAccess'];
/** Access as callers write it: users by id or e-mail, groups by id or name. */
export interface GrantsInput {
  users?: string[];
  groups?: string[];
}
/** A person of the account: their role, their groups (ids) and whether they have a password. */
export type User = Schemas['User'];
/** owner, admin, editor or reader (the service's docs/security.md, "Who may do what"). */
export type Role = User['role'];
export type Group = Schemas['Group'];
/** Who did what, from the audit log. */
export type AuditEvent = Schemas['AuditEvent'];
/** A page of the audit log, newest first; pass `nextCursor` as `cursor` for the next one. */
export type AuditPage = Answer<'listAuditEvents', 200>;
