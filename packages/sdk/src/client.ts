// One object with one method per API call, as the README documents it; each method hands its call to
// the resource that makes it (resources/), which holds its path, parameters and retry rule.

import { type ClientOptions, transportConfig, userName } from './options.js';
import { Api } from './resources/api.js';
import { Documents } from './resources/documents.js';
import { Evaluations } from './resources/evaluations.js';
import { Ingest, type IngestUrlsParams, type UploadParams } from './resources/ingest.js';
import { Audit, Groups, Users } from './resources/people.js';
import { QuestionSets } from './resources/question-sets.js';
import { Quotas } from './resources/quotas.js';
import { Runs, type WaitForRunOptions } from './resources/runs.js';
import { type ChatParams, Search, type SearchParams } from './resources/search.js';
import { type CreateSourceParams, Sources, type UpdateSourceParams } from './resources/sources.js';
import {
  type CreateWebhookParams,
  type ListWebhookDeliveriesParams,
  Webhooks,
} from './resources/webhooks.js';
import {
  type CreateWorkspaceParams,
  type UpdateWorkspaceParams,
  Workspaces,
} from './resources/workspaces.js';
import type { ChatStream } from './sse.js';
import { type RequestOptions, Transport } from './transport.js';
import type {
  Availability,
  ChatAnswer,
  CreatedWebhook,
  Document,
  Formats,
  GrantsInput,
  ReprocessResult,
  Run,
  RunProgress,
  SearchResponse,
  Source,
  SourceSync,
  SourceTypeOffer,
  UploadResult,
  WebhookDelivery,
  WebhookDeliveryPage,
  WebhookEndpoint,
  Workspace,
  WorkspaceDeletion,
  WorkspaceSummary,
} from './types.js';

/** The client. Create it with `createDocSlurpClient`. */
export class DocSlurpClient {
  /** The service origin the client talks to. */
  readonly apiUrl: string;
  /** The account's people: `list`, `create`, `get`, `update`, `delete` (owners and admins). */
  readonly users: Users;
  /** The account's groups: `list`, `create`, `get`, `rename`, `delete`, `addMember`, `removeMember`. */
  readonly groups: Groups;
  /** The account's audit log: `list({actor, action, target, since, until, cursor, limit})`. */
  readonly audit: Audit;
  /** The account's quotas and their use: `get`, `getAccount`, and `set` (the operator only). */
  readonly quotas: Quotas;
  /** A workspace's question sets, for evaluations: `create`, `list`, `get`, `delete`. */
  readonly questionSets: QuestionSets;
  /**
   * Evaluations of question sets: `create`, `get`, `list`, `questions`, `allQuestions`, `cancel`,
   * `delete`, `compare` and `wait`.
   */
  readonly evaluations: Evaluations;
  private readonly options: ClientOptions;
  private readonly ingest: Ingest;
  private readonly runs: Runs;
  private readonly searches: Search;
  private readonly workspaces: Workspaces;
  private readonly documents: Documents;
  private readonly sources: Sources;
  private readonly webhooks: Webhooks;

  constructor(options: ClientOptions = {}) {
    const config = transportConfig(options);
    this.options = options;
    this.apiUrl = config.baseUrl;
    const api = new Api(new Transport(config));
    this.users = new Users(api);
    this.groups = new Groups(api);
    this.audit = new Audit(api);
    this.quotas = new Quotas(api);
    this.questionSets = new QuestionSets(api);
    this.evaluations = new Evaluations(api);
    this.ingest = new Ingest(api);
    this.runs = new Runs(api);
    this.searches = new Search(api);
    this.workspaces = new Workspaces(api);
    this.documents = new Documents(api);
    this.sources = new Sources(api);
    this.webhooks = new Webhooks(api);
  }

  /**
   * The same client serving every call as one of the account's users (id or e-mail): what they see and
   * may do. Needs a key with the `act-as` scope.
   */
  asUser(user: string): DocSlurpClient {
    return new DocSlurpClient({ ...this.options, onBehalfOf: userName(user) });
  }

  // Ingest

  /**
   * Uploads files into a new workspace (or `workspaceId`) and starts a processing run; wait for it with
   * `waitForRun(result.run.id)`. Retried on transient failures only when it carries an `idempotencyKey`.
   */
  async upload(params: UploadParams, options?: RequestOptions): Promise<UploadResult> {
    return this.ingest.upload(params, options);
  }

  /** The formats the service reads, and what an upload refuses (needs no API key). */
  async listFormats(options?: RequestOptions): Promise<Formats> {
    return this.ingest.listFormats(options);
  }

  /** Fetches web pages into a workspace, like `upload`; retried only with an `idempotencyKey`. */
  async ingestUrls(params: IngestUrlsParams, options?: RequestOptions): Promise<UploadResult> {
    return this.ingest.ingestUrls(params, options);
  }

  // Runs

  /** The run record: status and document counts. */
  async getRun(runId: string, options?: RequestOptions): Promise<Run> {
    return this.runs.getRun(runId, options);
  }

  /** The run with `progress` (0–1), `done`, and each document's status, stage and error. */
  async getRunProgress(runId: string, options?: RequestOptions): Promise<RunProgress> {
    return this.runs.getRunProgress(runId, options);
  }

  /**
   * Polls the run's progress, with growing intervals, until it completes, and resolves with the last
   * progress record. Rejects with RunFailedError, RunPausedError or RunCancelledError (each carrying the
   * run), or RunTimeoutError after `timeoutMs` (default 5 minutes).
   */
  async waitForRun(runId: string, options: WaitForRunOptions = {}): Promise<RunProgress> {
    return this.runs.waitForRun(runId, options);
  }

  /** Pauses a processing run: documents not yet started wait; those in progress finish. */
  async pauseRun(runId: string, options?: RequestOptions): Promise<Run> {
    return this.runs.control(runId, 'pause', options);
  }

  /** Resumes a paused run. */
  async resumeRun(runId: string, options?: RequestOptions): Promise<Run> {
    return this.runs.control(runId, 'resume', options);
  }

  /** Cancels a run: documents that have not been processed are not. */
  async cancelRun(runId: string, options?: RequestOptions): Promise<Run> {
    return this.runs.control(runId, 'cancel', options);
  }

  /** The workspace's runs, newest first (20 unless `limit` says otherwise, at most 100). */
  async listRuns(
    workspaceId: string,
    params: { limit?: number } = {},
    options?: RequestOptions,
  ): Promise<{ runs: Run[] }> {
    return this.runs.listRuns(workspaceId, params, options);
  }

  /**
   * Processes the run's cancelled and failed documents again (or only those of `statuses`), together
   * in a new run: follow it with `waitForRun(result.run.id)`. Not retried automatically.
   */
  async reprocessRun(
    runId: string,
    params: { statuses?: ('cancelled' | 'failed')[] } = {},
    options?: RequestOptions,
  ): Promise<ReprocessResult> {
    return this.runs.reprocessRun(runId, params, options);
  }

  // Search and answers

  /** Relevant passages of a workspace, each with its citation. Never retried automatically. */
  async search(params: SearchParams, options?: RequestOptions): Promise<SearchResponse> {
    return this.searches.search(params, options);
  }

  /**
   * A grounded answer with citations. With `stream: true` it resolves to a ChatStream: iterate it with
   * `for await` for the deltas, then read `answer` and `citations`. Never retried automatically.
   */
  chat(params: ChatParams & { stream: true }, options?: RequestOptions): Promise<ChatStream>;
  chat(params: ChatParams & { stream?: false }, options?: RequestOptions): Promise<ChatAnswer>;
  chat(params: ChatParams, options?: RequestOptions): Promise<ChatAnswer | ChatStream>;
  async chat(params: ChatParams, options?: RequestOptions): Promise<ChatAnswer | ChatStream> {
    return this.searches.chat(params, options);
  }

  // Workspaces and documents

  /** The account's workspaces, newest first, with document counts. */
  async listWorkspaces(options?: RequestOptions): Promise<{ workspaces: WorkspaceSummary[] }> {
    return this.workspaces.listWorkspaces(options);
  }

  async getWorkspace(workspaceId: string, options?: RequestOptions): Promise<Workspace> {
    return this.workspaces.getWorkspace(workspaceId, options);
  }

  /** An empty workspace; upload into it with `workspaceId`. Not retried (each call creates one). */
  async createWorkspace(params: CreateWorkspaceParams, options?: RequestOptions): Promise<Workspace> {
    return this.workspaces.createWorkspace(params, options);
  }

  /** Renames a workspace, or changes its description or metadata. Retried: the same change twice is one. */
  async updateWorkspace(
    workspaceId: string,
    params: UpdateWorkspaceParams,
    options?: RequestOptions,
  ): Promise<Workspace> {
    return this.workspaces.updateWorkspace(workspaceId, params, options);
  }

  /**
   * Deletes a workspace with its documents, runs, stored files and search index; it leaves search at
   * once and runs in progress end. Resolves with what was removed. Not retried.
   */
  async deleteWorkspace(workspaceId: string, options?: RequestOptions): Promise<WorkspaceDeletion> {
    return this.workspaces.deleteWorkspace(workspaceId, options);
  }

  /** Which documents search covers now, which are still being indexed, and which never will be. */
  async getAvailability(workspaceId: string, options?: RequestOptions): Promise<Availability> {
    return this.workspaces.getAvailability(workspaceId, options);
  }

  /** The documents of a workspace (deleted ones left out). */
  async listDocuments(workspaceId: string, options?: RequestOptions): Promise<{ documents: Document[] }> {
    return this.documents.listDocuments(workspaceId, options);
  }

  async getDocument(documentId: string, options?: RequestOptions): Promise<Document> {
    return this.documents.getDocument(documentId, options);
  }

  /**
   * The extracted text (Markdown, with `<!-- page N -->` lines before each page of paged formats).
   * Citation offsets index into exactly this string.
   */
  async getDocumentText(documentId: string, options?: RequestOptions): Promise<string> {
    return this.documents.getDocumentText(documentId, options);
  }

  /** The original bytes as uploaded, as a Blob whose `type` is the document's media type. */
  async getDocumentContent(documentId: string, options?: RequestOptions): Promise<Blob> {
    return this.documents.getDocumentContent(documentId, options);
  }

  /** Processes a cancelled or failed document again, in a new run. Not retried automatically. */
  async reprocessDocument(documentId: string, options?: RequestOptions): Promise<ReprocessResult> {
    return this.documents.reprocessDocument(documentId, options);
  }

  /**
   * Sets who of its workspace's readers may read a document (users by id or e-mail, groups by id or
   * name; null for all of them). It applies to the next request, without reprocessing. Retried.
   */
  async setDocumentAccess(
    documentId: string,
    access: GrantsInput | null,
    options?: RequestOptions,
  ): Promise<Document> {
    return this.documents.setDocumentAccess(documentId, access, options);
  }

  /** Deletes a document; it leaves search at once. Resolves with the document, now `deleted`. */
  async deleteDocument(documentId: string, options?: RequestOptions): Promise<Document> {
    return this.documents.deleteDocument(documentId, options);
  }

  // Sources

  /** Adds a source the workspace stays in sync with. Nothing is synced until `syncSource` or its schedule. */
  async createSource(
    workspaceId: string,
    params: CreateSourceParams,
    options?: RequestOptions,
  ): Promise<Source> {
    return this.sources.createSource(workspaceId, params, options);
  }

  /**
   * The types of source this server lets the key's account add: `s3` and `website` always, `folder`
   * only when the operator granted the account a folder (its `roots`). Offer only what is available.
   */
  async listSourceTypes(options?: RequestOptions): Promise<{ types: SourceTypeOffer[] }> {
    return this.sources.listSourceTypes(options);
  }

  /** The workspace's sources, each with its last sync (time and result) and its next one. */
  async listSources(workspaceId: string, options?: RequestOptions): Promise<{ sources: Source[] }> {
    return this.sources.listSources(workspaceId, options);
  }

  async getSource(workspaceId: string, sourceId: string, options?: RequestOptions): Promise<Source> {
    return this.sources.getSource(workspaceId, sourceId, options);
  }

  async updateSource(
    workspaceId: string,
    sourceId: string,
    params: UpdateSourceParams,
    options?: RequestOptions,
  ): Promise<Source> {
    return this.sources.updateSource(workspaceId, sourceId, params, options);
  }

  /** Deletes the source and the documents it brought (they leave search at once). */
  async deleteSource(workspaceId: string, sourceId: string, options?: RequestOptions): Promise<Source> {
    return this.sources.deleteSource(workspaceId, sourceId, options);
  }

  /**
   * Syncs now: resolves with the sync's run (follow it with `waitForRun`). `force` lets this sync
   * delete more than the source's `maxDeleteShare`. Not retried automatically.
   */
  async syncSource(
    workspaceId: string,
    sourceId: string,
    params: { force?: boolean } = {},
    options?: RequestOptions,
  ): Promise<SourceSync> {
    return this.sources.syncSource(workspaceId, sourceId, params, options);
  }

  // Webhooks

  /**
   * Registers an endpoint for the given events. Resolves with the endpoint and its signing secret,
   * which is never shown again: keep it for `verifyWebhook`. Not retried automatically.
   */
  async createWebhook(params: CreateWebhookParams, options?: RequestOptions): Promise<CreatedWebhook> {
    return this.webhooks.createWebhook(params, options);
  }

  /** The account's webhook endpoints (never their secrets). */
  async listWebhooks(options?: RequestOptions): Promise<{ webhooks: WebhookEndpoint[] }> {
    return this.webhooks.listWebhooks(options);
  }

  async getWebhook(webhookId: string, options?: RequestOptions): Promise<WebhookEndpoint> {
    return this.webhooks.getWebhook(webhookId, options);
  }

  /** Deletes an endpoint; its deliveries still waiting are not sent. */
  async deleteWebhook(webhookId: string, options?: RequestOptions): Promise<WebhookEndpoint> {
    return this.webhooks.deleteWebhook(webhookId, options);
  }

  /** Deliveries to an endpoint, newest first, each with every attempt (status, error, answer). */
  async listWebhookDeliveries(
    webhookId: string,
    params: ListWebhookDeliveriesParams = {},
    options?: RequestOptions,
  ): Promise<WebhookDeliveryPage> {
    return this.webhooks.listWebhookDeliveries(webhookId, params, options);
  }

  /**
   * Sends a delivery again now, whatever became of it (the receiver sees the same `webhook-id`).
   * Not retried automatically.
   */
  async redeliverWebhook(
    webhookId: string,
    deliveryId: string,
    options?: RequestOptions,
  ): Promise<WebhookDelivery> {
    return this.webhooks.redeliverWebhook(webhookId, deliveryId, options);
  }
}

/**
 * Creates a client. `apiUrl` and `apiKey` default to the `SERVICE_URL` and `SERVICE_API_KEY` environment
 * variables where the runtime has an environment.
 */
export function createDocSlurpClient(options: ClientOptions = {}): DocSlurpClient {
  return new DocSlurpClient(options);
}
