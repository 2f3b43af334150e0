// Over 400 lines: the SDK's client is one object with one method per API call; its helpers (transport,
// errors, streams, runtime) live in their own modules.
import {
  DocSlurpError,
  RunCancelledError,
  RunFailedError,
  RunPausedError,
  RunTimeoutError,
} from './errors.js';
import { isBrowser, linkedController, readEnv, sleep } from './runtime.js';
import { ChatStream } from './sse.js';
import {
  type Call,
  type FetchLike,
  type ReadContext,
  type RequestOptions,
  Transport,
  validateMaxRetries,
  validateTimeout,
} from './transport.js';
import type {
  Availability,
  ChatAnswer,
  CreatedWebhook,
  Document,
  Formats,
  ReprocessResult,
  Run,
  RunProgress,
  SearchResponse,
  Source,
  SourceSync,
  SourceType,
  SourceTypeOffer,
  UploadResult,
  WebhookDelivery,
  WebhookDeliveryPage,
  WebhookDeliveryStatus,
  WebhookEndpoint,
  WebhookEventType,
  Workspace,
  WorkspaceDeletion,
  WorkspaceSummary,
} from './types.js';

export interface ClientOptions {
  /** The service origin, e.g. `https://docs.example.com`. Default: the `SERVICE_URL` environment variable. */
  apiUrl?: string;
  /** An API key (`dsk_…`). Default: the `SERVICE_API_KEY` environment variable. */
  apiKey?: string;
  /** The `fetch` to use; default: the global one. */
  fetch?: FetchLike;
  /** Time limit of each request attempt in ms. Default: 60 s, and 10 minutes for uploads. */
  timeoutMs?: number;
  /** Automatic retries of transient failures, 0 to 2. Default: 2. */
  maxRetries?: number;
  /**
   * Allow an API key in a browser. Anyone who can open the page can read the key, so the default is to
   * refuse; browser apps should call their own server, which holds the key (see the README).
   */
  dangerouslyAllowBrowser?: boolean;
}

/** A file to upload: its name and its content, with a media type for raw bytes and text. */
export interface UploadFile {
  filename: string;
  data: Blob | ArrayBuffer | ArrayBufferView | string;
  /** Media type sent with the file; default: the Blob's own type, else `application/octet-stream`. */
  contentType?: string;
}

export interface UploadParams {
  files: UploadFile[];
  /** Append to this workspace; without it, the upload creates a new workspace. */
  workspaceId?: string;
  /** The name of the workspace the upload creates (not with `workspaceId`). */
  workspaceName?: string;
  /** Makes the upload safe to repeat: the same key and content return the original records. Enables retries. */
  idempotencyKey?: string;
  /** A JSON object stored on every document of this upload. */
  metadata?: Record<string, unknown>;
}

export interface IngestUrlsParams {
  urls: string[];
  workspaceId?: string;
  /** The name of the workspace the request creates (not with `workspaceId`). */
  workspaceName?: string;
  /** As for uploads: makes the request safe to repeat, and enables retries. */
  idempotencyKey?: string;
}

export interface CreateWorkspaceParams {
  /** Shown in lists and headings (at most 200 characters); need not be unique. */
  name: string;
  description?: string | null;
  /** A JSON object of your own. */
  metadata?: Record<string, unknown>;
  /** `auto` (the default: each document read in its detected language) or an ISO 639-1 code (`formats().languages`). */
  language?: string;
}

/** What to change; fields left out keep their value. */
export interface UpdateWorkspaceParams {
  name?: string;
  /** `null` (or `""`) removes it. */
  description?: string | null;
  /** Replaces the whole object. */
  metadata?: Record<string, unknown>;
  /** `auto` or an ISO 639-1 code: documents processed from now on are read in it. */
  language?: string;
}

export interface SearchParams {
  workspaceId: string;
  q: string;
  /** How many passages to return (server default 10). */
  topK?: number;
  filters?: { documentIds?: string[] };
}

export interface ChatParams {
  workspaceId: string;
  q: string;
  /** How many passages the answer may draw on (server default 8). */
  topK?: number;
  /** Answer as a stream of deltas (`for await`). */
  stream?: boolean;
}

export interface CreateWebhookParams {
  /** Where deliveries are POSTed (http or https; https is strongly advised). */
  url: string;
  events: WebhookEventType[];
  /** What it is for, up to 200 characters. */
  description?: string;
}

export interface CreateSourceParams {
  type: SourceType;
  name?: string | null;
  /**
   * s3: `{ endpoint?, region?, bucket, prefix?, forcePathStyle? }`; website: `{ startUrl? | sitemapUrl?,
   * urlPrefix?, maxPages?, maxDepth?, maxRequests?, maxHosts?, requestDelayMs? }`; folder: `{ path }`
   * (under a folder the server's SOURCE_FOLDER_ROOTS grants the key's account).
   */
  settings: Record<string, unknown>;
  /** s3 only: `{ accessKeyId, secretAccessKey }`, stored encrypted and never returned. */
  credentials?: Record<string, string>;
  /** Sync on this schedule (at least 1); null or absent: only on request. */
  intervalMinutes?: number | null;
  /** Default 0.5: a sync deleting more than half of the source's documents fails unless forced. */
  maxDeleteShare?: number;
}

/** Fields left out keep their value; `credentials: null` removes them, `intervalMinutes: null` the schedule. */
export type UpdateSourceParams = Partial<Omit<CreateSourceParams, 'type' | 'credentials'>> & {
  credentials?: Record<string, string> | null;
};

export interface ListWebhookDeliveriesParams {
  /** Deliveries per page, 1 to 100 (default 20). */
  limit?: number;
  /** `next` of the previous page. */
  before?: string;
  status?: WebhookDeliveryStatus;
}

export interface WaitForRunOptions {
  /** How long to wait in ms before rejecting with RunTimeoutError. Default: 5 minutes. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Called with each progress record, e.g. to show `progress` (0–1) to a user. */
  onProgress?: (progress: RunProgress) => void;
}

export const DEFAULT_WAIT_TIMEOUT_MS = 5 * 60_000;
const DEFAULT_TIMEOUT_MS = 60_000;
const UPLOAD_TIMEOUT_MS = 10 * 60_000;
const FIRST_POLL_DELAY_MS = 500;
const MAX_POLL_DELAY_MS = 5_000;

const readJson = async <T>(response: Response, { requestId }: ReadContext): Promise<T> => {
  const text = await response.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new DocSlurpError(`The server answered ${response.status} with a body that is not JSON.`, {
      status: response.status,
      code: 'invalid_response',
      requestId,
    });
  }
};

const id = (value: string, what: string): string => {
  if (typeof value !== 'string' || value === '') throw new TypeError(`${what} must be a non-empty string.`);
  return encodeURIComponent(value);
};

// What the Blob constructor takes in this runtime's typings (DOM and Node word it differently).
type BlobInput = NonNullable<ConstructorParameters<typeof Blob>[0]>[number];

function toBlob(file: UploadFile, index: number): Blob {
  const { data, contentType } = file;
  if (typeof file.filename !== 'string' || file.filename === '') {
    throw new TypeError(`files[${index}].filename must be a non-empty string.`);
  }
  if (typeof Blob !== 'undefined' && data instanceof Blob) {
    return contentType && contentType !== data.type ? data.slice(0, data.size, contentType) : data;
  }
  if (typeof data === 'string') return new Blob([data], { type: contentType ?? 'text/plain; charset=utf-8' });
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) {
    return new Blob([data as BlobInput], { type: contentType ?? 'application/octet-stream' });
  }
  throw new TypeError(
    `files[${index}].data must be a Blob, an ArrayBuffer, a typed array (such as a Uint8Array or Buffer) or a string.`,
  );
}

/** The client. Create it with `createDocSlurpClient`. */
export class DocSlurpClient {
  private readonly transport: Transport;
  /** The service origin the client talks to. */
  readonly apiUrl: string;

  constructor(options: ClientOptions = {}) {
    const apiUrl = options.apiUrl ?? readEnv('SERVICE_URL');
    const apiKey = options.apiKey ?? readEnv('SERVICE_API_KEY');
    const browser = isBrowser();
    if (!apiUrl) {
      throw new DocSlurpError('No service URL: pass apiUrl or set the SERVICE_URL environment variable.', {
        code: 'missing_api_url',
      });
    }
    if (browser && apiKey && !options.dangerouslyAllowBrowser) {
      throw new DocSlurpError(
        'Refusing to use an API key in a browser, where every visitor of the page can read it. ' +
          'Call the service from your server instead (a proxy route that checks the user and holds the key), ' +
          'or pass dangerouslyAllowBrowser: true if the key is truly meant to be public.',
        { code: 'browser_not_allowed' },
      );
    }
    // In a browser the client may talk to the app's own proxy route, which adds the key server-side.
    if (!apiKey && !browser) {
      throw new DocSlurpError('No API key: pass apiKey or set the SERVICE_API_KEY environment variable.', {
        code: 'missing_api_key',
      });
    }
    const relative = apiUrl.startsWith('/');
    if (!(relative && browser) && !/^https?:\/\/[^/]/i.test(apiUrl)) {
      throw new DocSlurpError(
        `apiUrl must be an http(s) URL such as https://docs.example.com, got "${apiUrl}".`,
        {
          code: 'invalid_option',
        },
      );
    }
    const fetchImpl = options.fetch ?? globalThis.fetch?.bind(globalThis);
    if (!fetchImpl) {
      throw new DocSlurpError('This runtime has no global fetch; pass one in the fetch option.', {
        code: 'invalid_option',
      });
    }
    // A loop, not /\/+$/: that pattern tries a run of slashes again from each of them.
    let end = apiUrl.length;
    while (end > 0 && apiUrl[end - 1] === '/') end--;
    this.apiUrl = apiUrl.slice(0, end);
    this.transport = new Transport({
      baseUrl: this.apiUrl,
      apiKey,
      fetch: fetchImpl,
      timeoutMs:
        options.timeoutMs === undefined ? undefined : validateTimeout(options.timeoutMs, 'timeoutMs'),
      maxRetries: validateMaxRetries(options.maxRetries ?? 2, 'createDocSlurpClient'),
    });
  }

  private get<T>(path: string, options: RequestOptions | undefined): Promise<T> {
    return this.transport.send<T>(
      {
        method: 'GET',
        path,
        accept: 'application/json',
        retryable: true,
        defaultTimeoutMs: DEFAULT_TIMEOUT_MS,
        read: readJson,
      },
      options,
    );
  }

  private delete<T>(path: string, options: RequestOptions | undefined): Promise<T> {
    return this.transport.send<T>(
      {
        method: 'DELETE',
        path,
        accept: 'application/json',
        retryable: false,
        defaultTimeoutMs: DEFAULT_TIMEOUT_MS,
        read: readJson,
      },
      options,
    );
  }

  private post<T>(path: string, json: unknown, retryable: boolean, options: RequestOptions | undefined) {
    const call: Call<T> = {
      method: 'POST',
      path,
      json,
      accept: 'application/json',
      retryable,
      defaultTimeoutMs: DEFAULT_TIMEOUT_MS,
      read: readJson,
    };
    return this.transport.send(call, options);
  }

  // Ingest

  /**
   * Uploads files into a new workspace (or `workspaceId`) and starts a processing run; wait for it with
   * `waitForRun(result.run.id)`. Retried on transient failures only when it carries an `idempotencyKey`.
   */
  async upload(params: UploadParams, options?: RequestOptions): Promise<UploadResult> {
    if (!Array.isArray(params?.files) || params.files.length === 0) {
      throw new TypeError('upload needs at least one file: { files: [{ filename, data }] }.');
    }
    const blobs = params.files.map(toBlob);
    const form = new FormData();
    // Fields before files: the server checks the workspace before any file is streamed.
    if (params.workspaceId !== undefined) form.append('workspaceId', params.workspaceId);
    if (params.workspaceName !== undefined) form.append('workspaceName', params.workspaceName);
    if (params.idempotencyKey !== undefined) form.append('idempotencyKey', params.idempotencyKey);
    if (params.metadata !== undefined) form.append('metadata', JSON.stringify(params.metadata));
    blobs.forEach((blob, i) => {
      form.append('files', blob, params.files[i]!.filename);
    });
    return this.transport.send<UploadResult>(
      {
        method: 'POST',
        path: '/v1/ingest/bulk',
        form,
        accept: 'application/json',
        retryable: params.idempotencyKey !== undefined,
        defaultTimeoutMs: UPLOAD_TIMEOUT_MS,
        read: readJson,
      },
      options,
    );
  }

  /** The formats the service reads, and what an upload refuses (needs no API key). */
  async listFormats(options?: RequestOptions): Promise<Formats> {
    return this.get('/v1/formats', options);
  }

  /** Fetches web pages into a workspace, like `upload`; retried only with an `idempotencyKey`. */
  async ingestUrls(params: IngestUrlsParams, options?: RequestOptions): Promise<UploadResult> {
    if (!Array.isArray(params?.urls) || params.urls.length === 0) {
      throw new TypeError('ingestUrls needs at least one URL: { urls: ["https://…"] }.');
    }
    return this.post<UploadResult>('/v1/ingest/urls', params, params.idempotencyKey !== undefined, options);
  }

  // Runs

  /** The run record: status and document counts. */
  async getRun(runId: string, options?: RequestOptions): Promise<Run> {
    return this.get(`/v1/runs/${id(runId, 'runId')}`, options);
  }

  /** The run with `progress` (0–1), `done`, and each document's status, stage and error. */
  async getRunProgress(runId: string, options?: RequestOptions): Promise<RunProgress> {
    return this.get(`/v1/runs/${id(runId, 'runId')}/progress`, options);
  }

  /**
   * Polls the run's progress, with growing intervals, until it completes, and resolves with the last
   * progress record. Rejects with RunFailedError, RunPausedError or RunCancelledError (each carrying the
   * run), or RunTimeoutError after `timeoutMs` (default 5 minutes).
   */
  async waitForRun(runId: string, options: WaitForRunOptions = {}): Promise<RunProgress> {
    const timeoutMs = validateTimeout(options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS, 'waitForRun');
    id(runId, 'runId');
    const { controller, release } = linkedController(options.signal);
    const timer = setTimeout(() => controller.abort(new Error('wait timed out')), timeoutMs);
    let last: RunProgress | undefined;
    let delay = FIRST_POLL_DELAY_MS;
    try {
      for (;;) {
        last = await this.getRunProgress(runId, { signal: controller.signal });
        options.onProgress?.(last);
        switch (last.status) {
          case 'completed':
            return last;
          case 'failed':
            throw new RunFailedError(last);
          case 'paused':
            throw new RunPausedError(last);
          case 'cancelled':
            throw new RunCancelledError(last);
        }
        await sleep(delay, controller.signal);
        delay = Math.min(MAX_POLL_DELAY_MS, Math.round(delay * 1.5));
      }
    } catch (err) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (controller.signal.aborted) throw new RunTimeoutError(runId, timeoutMs, last);
      throw err;
    } finally {
      clearTimeout(timer);
      release();
    }
  }

  /** Pauses a processing run: documents not yet started wait; those in progress finish. */
  async pauseRun(runId: string, options?: RequestOptions): Promise<Run> {
    return this.post(`/v1/runs/${id(runId, 'runId')}/pause`, undefined, false, options);
  }

  /** Resumes a paused run. */
  async resumeRun(runId: string, options?: RequestOptions): Promise<Run> {
    return this.post(`/v1/runs/${id(runId, 'runId')}/resume`, undefined, false, options);
  }

  /** Cancels a run: documents that have not been processed are not. */
  async cancelRun(runId: string, options?: RequestOptions): Promise<Run> {
    return this.post(`/v1/runs/${id(runId, 'runId')}/cancel`, undefined, false, options);
  }

  /** The workspace's runs, newest first (20 unless `limit` says otherwise, at most 100). */
  async listRuns(
    workspaceId: string,
    params: { limit?: number } = {},
    options?: RequestOptions,
  ): Promise<{ runs: Run[] }> {
    const q = params.limit === undefined ? '' : `?limit=${params.limit}`;
    return this.get(`/v1/workspaces/${id(workspaceId, 'workspaceId')}/runs${q}`, options);
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
    return this.post(`/v1/runs/${id(runId, 'runId')}/reprocess`, params, false, options);
  }

  // Search and answers

  /** Relevant passages of a workspace, each with its citation. Never retried automatically. */
  async search(params: SearchParams, options?: RequestOptions): Promise<SearchResponse> {
    return this.post('/v1/search', params, false, options);
  }

  /**
   * A grounded answer with citations. With `stream: true` it resolves to a ChatStream: iterate it with
   * `for await` for the deltas, then read `answer` and `citations`. Never retried automatically.
   */
  chat(params: ChatParams & { stream: true }, options?: RequestOptions): Promise<ChatStream>;
  chat(params: ChatParams & { stream?: false }, options?: RequestOptions): Promise<ChatAnswer>;
  chat(params: ChatParams, options?: RequestOptions): Promise<ChatAnswer | ChatStream>;
  async chat(params: ChatParams, options?: RequestOptions): Promise<ChatAnswer | ChatStream> {
    if (!params.stream) return this.post<ChatAnswer>('/v1/search/chat', params, false, options);
    return this.transport.send<ChatStream>(
      {
        method: 'POST',
        path: '/v1/search/chat',
        json: params,
        accept: 'text/event-stream',
        retryable: false,
        defaultTimeoutMs: DEFAULT_TIMEOUT_MS,
        keepsBody: true,
        read: async (response, { requestId, release }) => {
          if (!response.body) {
            throw new DocSlurpError('The answer stream has no body.', {
              code: 'invalid_response',
              requestId,
            });
          }
          return new ChatStream(response.body, requestId, options?.signal, release);
        },
      },
      options,
    );
  }

  // Workspaces and documents

  /** The account's workspaces, newest first, with document counts. */
  async listWorkspaces(options?: RequestOptions): Promise<{ workspaces: WorkspaceSummary[] }> {
    return this.get('/v1/workspaces', options);
  }

  async getWorkspace(workspaceId: string, options?: RequestOptions): Promise<Workspace> {
    return this.get(`/v1/workspaces/${id(workspaceId, 'workspaceId')}`, options);
  }

  /** An empty workspace; upload into it with `workspaceId`. Not retried (each call creates one). */
  async createWorkspace(params: CreateWorkspaceParams, options?: RequestOptions): Promise<Workspace> {
    if (typeof params?.name !== 'string') throw new TypeError('createWorkspace needs a name: { name: "…" }.');
    return this.post('/v1/workspaces', params, false, options);
  }

  /** Renames a workspace, or changes its description or metadata. Retried: the same change twice is one. */
  async updateWorkspace(
    workspaceId: string,
    params: UpdateWorkspaceParams,
    options?: RequestOptions,
  ): Promise<Workspace> {
    return this.transport.send<Workspace>(
      {
        method: 'PATCH',
        path: `/v1/workspaces/${id(workspaceId, 'workspaceId')}`,
        json: params,
        accept: 'application/json',
        retryable: true,
        defaultTimeoutMs: DEFAULT_TIMEOUT_MS,
        read: readJson,
      },
      options,
    );
  }

  /**
   * Deletes a workspace with its documents, runs, stored files and search index; it leaves search at
   * once and runs in progress end. Resolves with what was removed. Not retried.
   */
  async deleteWorkspace(workspaceId: string, options?: RequestOptions): Promise<WorkspaceDeletion> {
    return this.transport.send<WorkspaceDeletion>(
      {
        method: 'DELETE',
        path: `/v1/workspaces/${id(workspaceId, 'workspaceId')}`,
        accept: 'application/json',
        retryable: false,
        defaultTimeoutMs: UPLOAD_TIMEOUT_MS,
        read: readJson,
      },
      options,
    );
  }

  /** Which documents search covers now, which are still being indexed, and which never will be. */
  async getAvailability(workspaceId: string, options?: RequestOptions): Promise<Availability> {
    return this.get(`/v1/workspaces/${id(workspaceId, 'workspaceId')}/availability`, options);
  }

  /** The documents of a workspace (deleted ones left out). */
  async listDocuments(workspaceId: string, options?: RequestOptions): Promise<{ documents: Document[] }> {
    return this.get(`/v1/workspaces/${id(workspaceId, 'workspaceId')}/documents`, options);
  }

  async getDocument(documentId: string, options?: RequestOptions): Promise<Document> {
    return this.get(`/v1/documents/${id(documentId, 'documentId')}`, options);
  }

  /**
   * The extracted text (Markdown, with `<!-- page N -->` lines before each page of paged formats).
   * Citation offsets index into exactly this string.
   */
  async getDocumentText(documentId: string, options?: RequestOptions): Promise<string> {
    return this.transport.send(
      {
        method: 'GET',
        path: `/v1/documents/${id(documentId, 'documentId')}/text`,
        accept: 'text/markdown',
        retryable: true,
        defaultTimeoutMs: DEFAULT_TIMEOUT_MS,
        read: (response) => response.text(),
      },
      options,
    );
  }

  /** The original bytes as uploaded, as a Blob whose `type` is the document's media type. */
  async getDocumentContent(documentId: string, options?: RequestOptions): Promise<Blob> {
    return this.transport.send(
      {
        method: 'GET',
        path: `/v1/documents/${id(documentId, 'documentId')}/content`,
        accept: '*/*',
        retryable: true,
        defaultTimeoutMs: UPLOAD_TIMEOUT_MS,
        read: (response) => response.blob(),
      },
      options,
    );
  }

  /** Processes a cancelled or failed document again, in a new run. Not retried automatically. */
  async reprocessDocument(documentId: string, options?: RequestOptions): Promise<ReprocessResult> {
    return this.post(`/v1/documents/${id(documentId, 'documentId')}/reprocess`, undefined, false, options);
  }

  /** Deletes a document; it leaves search at once. Resolves with the document, now `deleted`. */
  async deleteDocument(documentId: string, options?: RequestOptions): Promise<Document> {
    return this.delete(`/v1/documents/${id(documentId, 'documentId')}`, options);
  }

  // Sources

  /** Adds a source the workspace stays in sync with. Nothing is synced until `syncSource` or its schedule. */
  async createSource(
    workspaceId: string,
    params: CreateSourceParams,
    options?: RequestOptions,
  ): Promise<Source> {
    return this.post(`/v1/workspaces/${id(workspaceId, 'workspaceId')}/sources`, params, false, options);
  }

  /** The workspace's sources, each with its last sync (time and result) and its next one. */
  /**
   * The types of source this server lets the key's account add: `s3` and `website` always, `folder`
   * only when the operator granted the account a folder (its `roots`). Offer only what is available.
   */
  async listSourceTypes(options?: RequestOptions): Promise<{ types: SourceTypeOffer[] }> {
    return this.get('/v1/source-types', options);
  }

  async listSources(workspaceId: string, options?: RequestOptions): Promise<{ sources: Source[] }> {
    return this.get(`/v1/workspaces/${id(workspaceId, 'workspaceId')}/sources`, options);
  }

  async getSource(workspaceId: string, sourceId: string, options?: RequestOptions): Promise<Source> {
    return this.get(this.sourcePath(workspaceId, sourceId), options);
  }

  async updateSource(
    workspaceId: string,
    sourceId: string,
    params: UpdateSourceParams,
    options?: RequestOptions,
  ): Promise<Source> {
    return this.transport.send<Source>(
      {
        method: 'PATCH',
        path: this.sourcePath(workspaceId, sourceId),
        json: params,
        accept: 'application/json',
        retryable: true,
        defaultTimeoutMs: DEFAULT_TIMEOUT_MS,
        read: readJson,
      },
      options,
    );
  }

  /** Deletes the source and the documents it brought (they leave search at once). */
  async deleteSource(workspaceId: string, sourceId: string, options?: RequestOptions): Promise<Source> {
    return this.delete(this.sourcePath(workspaceId, sourceId), options);
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
    return this.post(`${this.sourcePath(workspaceId, sourceId)}/sync`, params, false, options);
  }

  private sourcePath(workspaceId: string, sourceId: string): string {
    return `/v1/workspaces/${id(workspaceId, 'workspaceId')}/sources/${id(sourceId, 'sourceId')}`;
  }

  // Webhooks

  /**
   * Registers an endpoint for the given events. Resolves with the endpoint and its signing secret,
   * which is never shown again: keep it for `verifyWebhook`. Not retried automatically.
   */
  async createWebhook(params: CreateWebhookParams, options?: RequestOptions): Promise<CreatedWebhook> {
    if (!Array.isArray(params?.events) || params.events.length === 0) {
      throw new TypeError('createWebhook needs at least one event: { url, events: ["run.completed"] }.');
    }
    return this.post('/v1/webhooks', params, false, options);
  }

  /** The account's webhook endpoints (never their secrets). */
  async listWebhooks(options?: RequestOptions): Promise<{ webhooks: WebhookEndpoint[] }> {
    return this.get('/v1/webhooks', options);
  }

  async getWebhook(webhookId: string, options?: RequestOptions): Promise<WebhookEndpoint> {
    return this.get(`/v1/webhooks/${id(webhookId, 'webhookId')}`, options);
  }

  /** Deletes an endpoint; its deliveries still waiting are not sent. */
  async deleteWebhook(webhookId: string, options?: RequestOptions): Promise<WebhookEndpoint> {
    return this.delete(`/v1/webhooks/${id(webhookId, 'webhookId')}`, options);
  }

  /** Deliveries to an endpoint, newest first, each with every attempt (status, error, answer). */
  async listWebhookDeliveries(
    webhookId: string,
    params: ListWebhookDeliveriesParams = {},
    options?: RequestOptions,
  ): Promise<WebhookDeliveryPage> {
    const query = new URLSearchParams();
    if (params.limit !== undefined) query.set('limit', String(params.limit));
    if (params.before !== undefined) query.set('before', params.before);
    if (params.status !== undefined) query.set('status', params.status);
    const q = query.toString();
    return this.get(`/v1/webhooks/${id(webhookId, 'webhookId')}/deliveries${q ? `?${q}` : ''}`, options);
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
    const path = `/v1/webhooks/${id(webhookId, 'webhookId')}/deliveries/${id(deliveryId, 'deliveryId')}/redeliver`;
    return this.post(path, undefined, false, options);
  }
}

/**
 * Creates a client. `apiUrl` and `apiKey` default to the `SERVICE_URL` and `SERVICE_API_KEY` environment
 * variables where the runtime has an environment.
 */
export function createDocSlurpClient(options: ClientOptions = {}): DocSlurpClient {
  return new DocSlurpClient(options);
}
