export { createDocSlurpClient, DocSlurpClient } from './client.js';
export {
  APIError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  DocSlurpError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  RequestTimeoutError,
  RunCancelledError,
  RunFailedError,
  RunPausedError,
  RunTimeoutError,
  RunWaitError,
  ServerError,
  StreamError,
  TimeoutError,
  UnsupportedMediaTypeError,
} from './errors.js';
export type { ClientOptions } from './options.js';
export type { IngestUrlsParams, UploadFile, UploadParams } from './resources/ingest.js';
export { DEFAULT_WAIT_TIMEOUT_MS, type WaitForRunOptions } from './resources/runs.js';
export type { ChatParams, SearchParams } from './resources/search.js';
export type { CreateSourceParams, UpdateSourceParams } from './resources/sources.js';
export type { CreateWebhookParams, ListWebhookDeliveriesParams } from './resources/webhooks.js';
export type { CreateWorkspaceParams, UpdateWorkspaceParams } from './resources/workspaces.js';
export { type ChatDelta, ChatStream } from './sse.js';
export type { FetchLike, RequestOptions } from './transport.js';
export type {
  AnswerCitation,
  Availability,
  ChatAnswer,
  Citation,
  CreatedWebhook,
  Document,
  DocumentCounts,
  DocumentError,
  DocumentStage,
  DocumentStatus,
  Format,
  Formats,
  RefusedFile,
  ReprocessResult,
  Run,
  RunFailure,
  RunKind,
  RunProgress,
  RunProgressDocument,
  RunStatus,
  SearchHit,
  SearchResponse,
  Snippet,
  Source,
  SourceSync,
  SourceType,
  SourceTypeOffer,
  UploadResult,
  WebhookAttempt,
  WebhookDelivery,
  WebhookDeliveryPage,
  WebhookDeliveryStatus,
  WebhookDocumentData,
  WebhookEndpoint,
  WebhookEvent,
  WebhookEventType,
  WebhookRunData,
  Workspace,
  WorkspaceDeletion,
  WorkspaceSummary,
} from './types.js';
export {
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookHeaders,
  WebhookVerificationError,
} from './webhooks.js';
