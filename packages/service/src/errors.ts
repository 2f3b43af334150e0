/**
 * Errors are data with a code. Every error the API returns is built here, so the codes form one
 * table that docs/api.md and the SDK mirror: `{"error": {"code", "message", "requestId"}}`.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const errors = {
  missingApiKey: () =>
    new AppError(401, 'missing_api_key', 'Send an API key in the header "Authorization: Bearer <key>".'),
  invalidApiKey: () => new AppError(401, 'invalid_api_key', 'The API key is not valid or has been revoked.'),
  insufficientScope: (scope: string) =>
    new AppError(403, 'insufficient_scope', `This API key lacks the "${scope}" scope required here.`),
  workspaceNotFound: (id: string) => new AppError(404, 'workspace_not_found', `No workspace "${id}".`),
  runNotFound: (id: string) => new AppError(404, 'run_not_found', `No run "${id}".`),
  documentNotFound: (id: string) => new AppError(404, 'document_not_found', `No document "${id}".`),
  textNotAvailable: (id: string, status: string) =>
    new AppError(409, 'text_not_available', `Document "${id}" is ${status}; it has no extracted text yet.`),
  routeNotFound: (method: string, url: string) =>
    new AppError(404, 'route_not_found', `No route ${method} ${url.split('?')[0]}.`),
  methodNotAllowed: (method: string) =>
    new AppError(405, 'method_not_allowed', `Method ${method} is not allowed here.`),
  invalidRequest: (message: string) => new AppError(400, 'invalid_request', message),
  invalidJson: (message: string) =>
    new AppError(400, 'invalid_json', `The request body is not valid JSON: ${message}`),
  unsupportedContentType: (type: string, expected: string) =>
    new AppError(
      415,
      'unsupported_content_type',
      `Content type "${type}" is not accepted here; send ${expected}.`,
    ),
  invalidCharacters: (where: string) =>
    new AppError(
      400,
      'invalid_characters',
      `"${where}" contains a NUL character (U+0000), which text sent to this service may not contain.`,
    ),
  tooDeeplyNested: (where: string, max: number) =>
    new AppError(400, 'too_deeply_nested', `"${where}" is nested more than ${max} levels deep.`),
  tooManyFilterValues: (detail: string) =>
    new AppError(400, 'too_many_filter_values', `Too many filter values: ${detail}.`),
  noFiles: () =>
    new AppError(400, 'no_files', 'The upload contains no files: send them in the multipart field "files".'),
  tooManyFiles: (max: number) =>
    new AppError(413, 'too_many_files', `An upload may contain at most ${max} files.`),
  fileTooLarge: (filename: string, maxBytes: number) =>
    new AppError(
      413,
      'file_too_large',
      `File "${filename}" exceeds the limit of ${maxBytes} bytes per file.`,
    ),
  uploadIncomplete: (filename: string) =>
    new AppError(
      400,
      'upload_incomplete',
      `File "${filename}" did not arrive whole: the upload ended early or its multipart body is malformed.`,
    ),
  malformedMultipart: (detail: string) =>
    new AppError(400, 'malformed_multipart', `The multipart body is malformed: ${detail}.`),
  bodyTimeout: (seconds: number) =>
    new AppError(408, 'request_timeout', `The request body did not arrive within ${seconds} s.`, {
      connection: 'close',
    }),
  tooManyConnections: (max: number) =>
    new AppError(
      429,
      'too_many_connections',
      `This address already holds ${max} open connections; close some and retry.`,
      { 'retry-after': '1' },
    ),
  tooManyFields: (max: number) =>
    new AppError(413, 'too_many_fields', `An upload may carry at most ${max} form fields besides its files.`),
  fieldTooLarge: (field: string, maxBytes: number) =>
    new AppError(413, 'field_too_large', `The form field "${field}" exceeds the limit of ${maxBytes} bytes.`),
  queryTooLong: (max: number) =>
    new AppError(400, 'query_too_long', `The query is longer than ${max} characters.`),
  idempotencyConflict: (key: string) =>
    new AppError(
      409,
      'idempotency_conflict',
      `The idempotency key "${key}" was already used with a different request; use a new key for new content.`,
    ),
  invalidRunState: (runId: string, status: string, action: string) =>
    new AppError(409, 'invalid_run_state', `Run "${runId}" is ${status} and cannot be ${action}.`),
  rateLimited: (retryAfterSeconds: number) =>
    new AppError(429, 'rate_limited', `Too many requests; retry in ${retryAfterSeconds} s.`, {
      'retry-after': String(retryAfterSeconds),
    }),
  vectorSearchUnavailable: (workspaceId: string) =>
    new AppError(
      400,
      'vector_search_unavailable',
      `Workspace "${workspaceId}" has no vectors this service can query (no embedding model configured, or its vectors are being rebuilt); use mode "lexical" or "hybrid".`,
    ),
  modelUnavailable: (message: string) => new AppError(502, 'model_unavailable', message),
  // Named after the dependency, so a client or a dashboard can tell which one is down.
  databaseUnavailable: () =>
    new AppError(503, 'database_unavailable', 'The database is unavailable; retry shortly.', {
      'retry-after': '5',
    }),
  storageUnavailable: () =>
    new AppError(503, 'storage_unavailable', 'Object storage is unavailable; retry shortly.', {
      'retry-after': '5',
    }),
  internal: () =>
    new AppError(
      500,
      'internal_error',
      'An internal error occurred; the request id identifies it in the logs.',
    ),
};

/**
 * A document could not be processed for a reason that retrying will not change (corrupt file,
 * unsupported format...). It fails that one document with a code; the run carries on.
 */
export class DocumentFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'DocumentFailure';
  }
}

/** Socket errors that mean a backing service cannot be reached now, not that the request is wrong. */
export const UNREACHABLE_ERRNOS: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * A backing service (the database, object storage) cannot be reached: not the request's fault and
 * likely to pass. Adapters raise it for connection failures, so the HTTP layer answers 503 and the
 * worker names the cause on a document without knowing any storage client's errors.
 */
export class DependencyUnavailable extends Error {
  constructor(
    readonly dependency: 'database' | 'objectStorage',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DependencyUnavailable';
  }
}
