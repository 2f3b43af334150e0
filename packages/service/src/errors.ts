/**
 * Errors are data with a code. Every error the API returns is built here, from one catalogue of codes
 * and their HTTP status that docs/api.md and the SDK mirror (test/unit/error-catalogue.test.ts checks
 * both): `{"error": {"code", "message", "requestId"}}`.
 */
export const ERROR_STATUS = {
  invalid_request: 400,
  invalid_json: 400,
  no_files: 400,
  query_too_long: 400,
  vector_search_unavailable: 400,
  encryption_not_configured: 400,
  invalid_characters: 400,
  too_deeply_nested: 400,
  too_many_filter_values: 400,
  invalid_questions: 400,
  configuration_unavailable: 400,
  webhook_url_forbidden: 400,
  source_path_forbidden: 400,
  too_many_webhooks: 400,
  upload_incomplete: 400,
  malformed_multipart: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  invalid_credentials: 401,
  session_expired: 401,
  invalid_metrics_secret: 401,
  insufficient_scope: 403,
  session_required: 403,
  csrf_token_invalid: 403,
  permission_denied: 403,
  on_behalf_of_denied: 403,
  password_sign_in_disabled: 403,
  quota_exceeded: 403,
  workspace_not_found: 404,
  run_not_found: 404,
  document_not_found: 404,
  key_not_found: 404,
  webhook_not_found: 404,
  source_not_found: 404,
  delivery_not_found: 404,
  question_set_not_found: 404,
  evaluation_not_found: 404,
  user_not_found: 404,
  group_not_found: 404,
  route_not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  idempotency_conflict: 409,
  invalid_run_state: 409,
  invalid_evaluation_state: 409,
  not_reprocessable: 409,
  text_not_available: 409,
  user_exists: 409,
  group_exists: 409,
  last_owner: 409,
  file_too_large: 413,
  too_many_files: 413,
  payload_too_large: 413,
  too_many_fields: 413,
  field_too_large: 413,
  unsupported_content_type: 415,
  unsupported_file_format: 415,
  rate_limited: 429,
  too_many_connections: 429,
  internal_error: 500,
  model_unavailable: 502,
  database_unavailable: 503,
  storage_unavailable: 503,
  insufficient_storage: 507,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;
/** Codes also answered with another status: a daily quota passes by waiting (429, accounts/quotas.ts). */
export const OTHER_STATUSES: Partial<Record<ErrorCode, readonly number[]>> = { quota_exceeded: [429] };
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** A file an upload refused, and why (in the error's `files`). */
export interface RefusedFile {
  /** Position among the upload's files, from 0. */
  index: number;
  filename: string;
  /** What the document would have failed with in its run. */
  code: string;
  reason: string;
}

/** Fields an error body carries besides code, message and request id, for the codes that have them. */
export interface ErrorDetails {
  files?: RefusedFile[];
  supportedFormats?: string[];
  /** invalid_questions: every bad question of a set, by line (or place in the list), from 1. */
  problems?: { line: number; message: string }[];
  /** quota_exceeded: which quota, its limit and what the account had used of it. */
  quota?: string;
  limit?: number;
  used?: number;
}

/** An error the API answers with: its status follows from its code. */
export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly details: ErrorDetails = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
  }
}

const RETRY_SOON = { 'retry-after': '5' };

/**
 * How many of an upload's files are refused, as a person reads it: "1 of 2 files", "2 of 3 files",
 * and "The file" for an upload of one (issue 43: "A file of 2" read wrong).
 */
export function refusedCount(refused: number, total: number): string {
  return total === 1 ? 'The file' : `${refused} of ${total} files`;
}

export const errors = {
  missingApiKey: () =>
    new AppError('missing_api_key', 'Send an API key in the header "Authorization: Bearer <key>".'),
  invalidApiKey: () => new AppError('invalid_api_key', 'The API key is not valid or has been revoked.'),
  insufficientScope: (scope: string) =>
    new AppError('insufficient_scope', `This API key lacks the "${scope}" scope required here.`),
  invalidCredentials: () => new AppError('invalid_credentials', 'The email or password is not correct.'),
  sessionExpired: () => new AppError('session_expired', 'The session has ended; sign in again.'),
  sessionRequired: () =>
    new AppError('session_required', 'Only a signed-in console user can do this; API keys cannot.'),
  csrfTokenInvalid: (header: string) =>
    new AppError('csrf_token_invalid', `Send the session's CSRF token in the "${header}" header.`),
  permissionDenied: (message: string) => new AppError('permission_denied', message),
  onBehalfOfDenied: (message: string) => new AppError('on_behalf_of_denied', message),
  passwordSignInDisabled: (provider: string | undefined) =>
    new AppError(
      'password_sign_in_disabled',
      `Signing in with a password is turned off here (CONSOLE_PASSWORD_SIGNIN)${provider ? `: sign in with ${provider}` : ''}.`,
    ),
  userNotFound: (id: string) => new AppError('user_not_found', `No user "${id}" in this account.`),
  groupNotFound: (id: string) => new AppError('group_not_found', `No group "${id}" in this account.`),
  userExists: (email: string) =>
    new AppError('user_exists', `A user with the e-mail "${email}" exists already.`),
  groupExists: (name: string) => new AppError('group_exists', `A group named "${name}" exists already.`),
  lastOwner: () =>
    new AppError('last_owner', "This is the account's last owner: make another user owner first."),
  invalidMetricsSecret: () =>
    new AppError('invalid_metrics_secret', 'Send "Authorization: Bearer <METRICS_SECRET>".'),
  workspaceNotFound: (id: string) => new AppError('workspace_not_found', `No workspace "${id}".`),
  runNotFound: (id: string) => new AppError('run_not_found', `No run "${id}".`),
  documentNotFound: (id: string) => new AppError('document_not_found', `No document "${id}".`),
  keyNotFound: (id: string) => new AppError('key_not_found', `No API key "${id}".`),
  webhookNotFound: (id: string) => new AppError('webhook_not_found', `No webhook endpoint "${id}".`),
  sourceNotFound: (id: string) => new AppError('source_not_found', `No source "${id}" in this workspace.`),
  sourcePathForbidden: (path: string) =>
    new AppError(
      'source_path_forbidden',
      `"${path}" is not under a folder the operator allows for sources (SOURCE_FOLDER_ROOTS).`,
    ),
  questionSetNotFound: (id: string) => new AppError('question_set_not_found', `No question set "${id}".`),
  evaluationNotFound: (id: string) => new AppError('evaluation_not_found', `No evaluation "${id}".`),
  invalidEvaluationState: (message: string) => new AppError('invalid_evaluation_state', message),
  /** A configuration asks for what this server does not have: `what` names it and how to configure it. */
  configurationUnavailable: (configuration: string, what: string) =>
    new AppError('configuration_unavailable', `Configuration "${configuration}" cannot run here: ${what}.`),
  invalidQuestions: (problems: { line: number; message: string }[], listed: number) =>
    new AppError(
      'invalid_questions',
      `${problems.length === 1 ? 'A question is' : `${problems.length} questions are`} not right, so nothing was stored: ${problems
        .slice(0, 3)
        .map((p) => `line ${p.line}: ${p.message}`)
        .join('; ')}${problems.length > 3 ? '; …' : ''}.`,
      {},
      { problems: problems.slice(0, listed) },
    ),
  deliveryNotFound: (id: string) =>
    new AppError('delivery_not_found', `No delivery "${id}" of this endpoint.`),
  webhookUrlForbidden: (reason: string) =>
    new AppError('webhook_url_forbidden', `Webhooks cannot be sent to this URL: ${reason}.`),
  tooManyWebhooks: (max: number) =>
    new AppError('too_many_webhooks', `An account may register at most ${max} webhook endpoints.`),
  routeNotFound: (method: string, url: string) =>
    new AppError('route_not_found', `No route ${method} ${url.split('?')[0]}.`),
  methodNotAllowed: (method: string) =>
    new AppError('method_not_allowed', `Method ${method} is not allowed here.`),
  invalidRequest: (message: string) => new AppError('invalid_request', message),
  invalidJson: (message: string) =>
    new AppError('invalid_json', `The request body is not valid JSON: ${message}`),
  unsupportedContentType: (type: string, expected: string) =>
    new AppError(
      'unsupported_content_type',
      `Content type "${type}" is not accepted here; send ${expected}.`,
    ),
  invalidCharacters: (where: string) =>
    new AppError(
      'invalid_characters',
      `"${where}" contains a NUL character (U+0000), which text sent to this service may not contain.`,
    ),
  tooDeeplyNested: (where: string, max: number) =>
    new AppError('too_deeply_nested', `"${where}" is nested more than ${max} levels deep.`),
  tooManyFilterValues: (detail: string) =>
    new AppError('too_many_filter_values', `Too many filter values: ${detail}.`),
  unsupportedFileFormat: (refused: RefusedFile[], total: number, supported: string[], formats: string) =>
    new AppError(
      'unsupported_file_format',
      `${refusedCount(refused.length, total)} cannot be read, so nothing was uploaded: ${refused
        .map((f) => `"${f.filename}": ${f.reason}`)
        .join('; ')}. Supported formats: ${formats}.`,
      {},
      { files: refused, supportedFormats: supported },
    ),
  noFiles: () =>
    new AppError('no_files', 'The upload contains no files: send them in the multipart field "files".'),
  tooManyFiles: (max: number) =>
    new AppError('too_many_files', `An upload may contain at most ${max} files.`),
  fileTooLarge: (filename: string, maxBytes: number) =>
    new AppError('file_too_large', `File "${filename}" exceeds the limit of ${maxBytes} bytes per file.`),
  uploadIncomplete: (filename: string) =>
    new AppError(
      'upload_incomplete',
      `File "${filename}" did not arrive whole: the upload ended early or its multipart body is malformed.`,
    ),
  malformedMultipart: (detail: string) =>
    new AppError('malformed_multipart', `The multipart body is malformed: ${detail}.`),
  bodyTimeout: (seconds: number) =>
    new AppError('request_timeout', `The request body did not arrive within ${seconds} s.`, {
      connection: 'close',
    }),
  tooManyConnections: (max: number) =>
    new AppError(
      'too_many_connections',
      `This address already holds ${max} open connections; close some and retry.`,
      { 'retry-after': '1' },
    ),
  tooManyFields: (max: number) =>
    new AppError('too_many_fields', `An upload may carry at most ${max} form fields besides its files.`),
  fieldTooLarge: (field: string, maxBytes: number) =>
    new AppError('field_too_large', `The form field "${field}" exceeds the limit of ${maxBytes} bytes.`),
  payloadTooLarge: () => new AppError('payload_too_large', 'The request body is too large.'),
  queryTooLong: (max: number) =>
    new AppError('query_too_long', `The query is longer than ${max} characters.`),
  idempotencyConflict: (key: string) =>
    new AppError(
      'idempotency_conflict',
      `The idempotency key "${key}" was already used with a different request; use a new key for new content.`,
    ),
  invalidRunState: (runId: string, status: string, action: string) =>
    new AppError('invalid_run_state', `Run "${runId}" is ${status} and cannot be ${action}.`),
  documentNotReprocessable: (documentId: string, status: string) =>
    new AppError(
      'not_reprocessable',
      `Document "${documentId}" is ${status.replace('_', ' ')}; only cancelled or failed documents are processed again.`,
    ),
  runNotReprocessable: (runId: string) =>
    new AppError(
      'not_reprocessable',
      `Run "${runId}" has no cancelled or failed documents to process again.`,
    ),
  textNotAvailable: (documentId: string, status: string) =>
    new AppError(
      'text_not_available',
      `Document "${documentId}" is ${status}; it has no extracted text yet.`,
    ),
  encryptionNotConfigured: (what: string) =>
    new AppError('encryption_not_configured', `${what} are stored encrypted; set ENCRYPTION_KEY first.`),
  rateLimited: (retryAfterSeconds: number) =>
    new AppError('rate_limited', `Too many requests; retry in ${retryAfterSeconds} s.`, {
      'retry-after': String(retryAfterSeconds),
    }),
  vectorSearchUnavailable: (workspaceId: string) =>
    new AppError(
      'vector_search_unavailable',
      `Workspace "${workspaceId}" has no vectors this service can query (no embedding model configured, or its vectors are being rebuilt); use mode "lexical" or "hybrid".`,
    ),
  modelUnavailable: (message: string) => new AppError('model_unavailable', message),
  // Named after the dependency, so a client or a dashboard can tell which one is down.
  databaseUnavailable: () =>
    new AppError('database_unavailable', 'The database is unavailable; retry shortly.', RETRY_SOON),
  insufficientStorage: () =>
    new AppError(
      'insufficient_storage',
      'The service is short of storage space, so nothing was stored; tell its operator.',
    ),
  storageUnavailable: () =>
    new AppError('storage_unavailable', 'Object storage is unavailable; retry shortly.', RETRY_SOON),
  internal: () =>
    new AppError('internal_error', 'An internal error occurred; the request id identifies it in the logs.'),
};

/**
 * Why a document failed (or ended without text): its `error.code` in the API. Parsers, the sandbox,
 * the URL fetcher and the pipeline use these; docs/api.md lists them.
 */
export const DOCUMENT_FAILURE_CODES = [
  'unsupported_media_type',
  'corrupt_document',
  'encrypted_document',
  'empty_document',
  'needs_ocr',
  'original_missing',
  'processing_failed',
  'storage_unavailable',
  'cancelled',
  'decompression_bomb',
  'unsafe_xml',
  'parser_timeout',
  'parser_out_of_memory',
  'parser_output_too_large',
  'parser_crashed',
  'chunking_timeout',
  'chunking_out_of_memory',
  'conversion_failed',
  'tool_unavailable',
  'url_forbidden',
  'fetch_failed',
  'fetch_timeout',
  'too_many_redirects',
  'file_too_large',
  'credentials_unavailable',
] as const;

export type DocumentFailureCode = (typeof DOCUMENT_FAILURE_CODES)[number];

const FAILURE_CODES: ReadonlySet<string> = new Set(DOCUMENT_FAILURE_CODES);

/** For codes read from outside the type system (the sandboxed parser's answer). */
export function isDocumentFailureCode(code: unknown): code is DocumentFailureCode {
  return typeof code === 'string' && FAILURE_CODES.has(code);
}

/**
 * A document could not be processed for a reason that retrying will not change (corrupt file,
 * unsupported format...). It fails that one document with a code; the run carries on.
 */
export class DocumentFailure extends Error {
  constructor(
    readonly code: DocumentFailureCode,
    message: string,
    /** The HTTP status a fetched URL answered with, when that was the failure (a synced page gone: 404). */
    readonly httpStatus?: number,
  ) {
    super(message);
    this.name = 'DocumentFailure';
  }
}

/**
 * A sign-in through the identity provider that must not go through: the reason is said to the person
 * on the page the callback answers, and logged. `status`: the answer's HTTP status.
 */
export class SignInRefused extends Error {
  constructor(
    readonly reason:
      | 'unknown_state'
      | 'provider_error'
      | 'not_verified'
      | 'provider_unavailable'
      | 'no_email'
      | 'domain_not_allowed'
      | 'not_configured',
    message: string,
    readonly status = 400,
  ) {
    super(message);
    this.name = 'SignInRefused';
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
