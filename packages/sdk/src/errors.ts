import type { Evaluation, RefusedFile, RunProgress } from './types.js';

interface ErrorInit {
  status?: number | undefined;
  code: string;
  requestId?: string | undefined;
  cause?: unknown;
}

/** What an API error class is made from: the answer's status, headers and error body. */
type ResponseInit = ErrorInit & {
  status: number;
  headers: Headers;
  body?: Record<string, unknown> | undefined;
};

/**
 * The base of every error the SDK throws on purpose. `code` is stable (branch on it), `message` is for
 * people, and `requestId` finds the request in the server's logs.
 */
export class DocSlurpError extends Error {
  /** The HTTP status, for errors the server answered; undefined otherwise. */
  readonly status: number | undefined;
  readonly code: string;
  readonly requestId: string | undefined;

  constructor(message: string, init: ErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
  }
}

/** The server answered with an error status. Subclasses name the status family. */
export class APIError extends DocSlurpError {
  declare readonly status: number;
  readonly headers: Headers;

  constructor(message: string, init: ResponseInit) {
    super(message, init);
    this.headers = init.headers;
  }
}

/**
 * 400: the request is malformed (`invalid_request`, `invalid_json`, `no_files`, `query_too_long`,
 * `vector_search_unavailable`, `encryption_not_configured`, `upload_incomplete`, `malformed_multipart`,
 * `invalid_characters`, `too_deeply_nested`, `too_many_filter_values`, `webhook_url_forbidden`,
 * `too_many_webhooks`, `source_path_forbidden`, `invalid_questions`: its `problems` name each bad
 * question by line; `configuration_unavailable`: an evaluation's configuration asks for what the
 * server has not, named in the message).
 */
export class BadRequestError extends APIError {
  /** `invalid_questions`: each bad question of the set, by line of its file (or place in the list), from 1. */
  readonly problems: { line: number; message: string }[];

  constructor(message: string, init: ResponseInit) {
    super(message, init);
    this.problems = Array.isArray(init.body?.problems)
      ? (init.body.problems as { line: number; message: string }[])
      : [];
  }
}
/** 401: no API key, or one that is unknown or revoked (or a console session that ended). */
export class AuthenticationError extends APIError {}
/**
 * 403: the API key lacks the scope this call needs (`insufficient_scope`), a session is needed
 * (`session_required`, `csrf_token_invalid`), the caller's role or the access lists do not let it
 * change this (`permission_denied`), `onBehalfOf` was refused (`on_behalf_of_denied`), or password
 * sign-in is turned off here (`password_sign_in_disabled`: sign in through the identity provider).
 */
export class PermissionDeniedError extends APIError {}
/**
 * 404: no such workspace, run, document, key, webhook, delivery, source, user, group, question set
 * or evaluation for this caller (what it may not see answers the same), or no such route.
 */
export class NotFoundError extends APIError {}
/**
 * 408: the server stopped waiting for the request's body (`request_timeout`): it arrived too slowly or
 * stalled. Retried like other transient answers when the call may be retried.
 */
export class RequestTimeoutError extends APIError {}
/**
 * 409: `idempotency_conflict`, `invalid_run_state`, `invalid_evaluation_state`, `not_reprocessable`,
 * `text_not_available`, `user_exists`, `group_exists` or `last_owner`.
 */
export class ConflictError extends APIError {}
/**
 * 413: a file, a form field or the whole upload is over the server's limits (`file_too_large`,
 * `too_many_files`, `too_many_fields`, `field_too_large`, `payload_too_large`).
 */
export class PayloadTooLargeError extends APIError {}

/**
 * 415: the body is not of a type the call takes (`unsupported_content_type`), or an upload holds files
 * no worker can read (`unsupported_file_format`, nothing of it was kept): `files` names each with
 * its reason, `supportedFormats` lists what the service reads (also `listFormats()`).
 */
export class UnsupportedMediaTypeError extends APIError {
  readonly files: RefusedFile[];
  readonly supportedFormats: string[];

  constructor(message: string, init: ResponseInit) {
    super(message, init);
    this.files = Array.isArray(init.body?.files) ? (init.body.files as RefusedFile[]) : [];
    this.supportedFormats = Array.isArray(init.body?.supportedFormats)
      ? (init.body.supportedFormats as string[])
      : [];
  }
}

/**
 * 429: too many requests (`rate_limited`), or too many open connections from one address
 * (`too_many_connections`). `retryAfterMs` is how long the server asked to wait, when it said.
 */
export class RateLimitError extends APIError {
  readonly retryAfterMs: number | undefined;

  constructor(message: string, init: ResponseInit) {
    super(message, init);
    this.retryAfterMs = parseRetryAfter(init.headers.get('retry-after'));
  }
}

/**
 * 403 or 429 `quota_exceeded`: the account is at one of its quotas (issue 43). 403 for what it holds
 * (`documents`, `storedBytes`: delete documents or ask the operator), 429 for what it did today
 * (`uploadsPerDay`, `questionsPerDay`: `retryAfterMs` is the time to midnight UTC; never retried).
 */
export class QuotaExceededError extends APIError {
  readonly quota: string;
  readonly limit: number;
  readonly used: number;
  readonly retryAfterMs: number | undefined;

  constructor(message: string, init: ResponseInit) {
    super(message, init);
    this.quota = typeof init.body?.quota === 'string' ? init.body.quota : '';
    this.limit = typeof init.body?.limit === 'number' ? init.body.limit : 0;
    this.used = typeof init.body?.used === 'number' ? init.body.used : 0;
    this.retryAfterMs = parseRetryAfter(init.headers.get('retry-after'));
  }
}

/** 5xx: the server failed or is unavailable. */
export class ServerError extends APIError {}

/** The request never got an answer: DNS, refused or dropped connection, TLS, CORS in a browser. */
export class ConnectionError extends DocSlurpError {
  constructor(message: string, init: Omit<ErrorInit, 'code' | 'status'> & { code?: string }) {
    super(message, { ...init, code: init.code ?? 'connection_error' });
  }
}

/** No answer within the request's `timeoutMs`. */
export class TimeoutError extends ConnectionError {
  constructor(message: string, init: Omit<ErrorInit, 'code' | 'status'>) {
    super(message, { ...init, code: 'timeout' });
  }
}

/** An `error` event in a streamed answer: the failure happened after the answer had started. */
export class StreamError extends DocSlurpError {}

/** `waitForRun` ended without the run completing. `run` is the last progress record seen. */
export class RunWaitError extends DocSlurpError {
  readonly runId: string;
  readonly run: RunProgress | undefined;

  constructor(message: string, code: string, runId: string, run: RunProgress | undefined) {
    super(message, { code });
    this.runId = runId;
    this.run = run;
  }
}

/** Every document of the run failed; `run.failures` says why. */
export class RunFailedError extends RunWaitError {
  declare readonly run: RunProgress;
  constructor(run: RunProgress) {
    const reasons = run.failures.map((f) => `${f.filename}: ${f.code}`).join(', ');
    super(`Run "${run.id}" failed${reasons ? ` (${reasons})` : ''}.`, 'run_failed', run.id, run);
  }
}

/** The run was paused; documents not yet started wait until it is resumed. */
export class RunPausedError extends RunWaitError {
  declare readonly run: RunProgress;
  constructor(run: RunProgress) {
    super(`Run "${run.id}" is paused; resume it to finish processing.`, 'run_paused', run.id, run);
  }
}

/** The run was cancelled; documents that had not been processed will not be. */
export class RunCancelledError extends RunWaitError {
  declare readonly run: RunProgress;
  constructor(run: RunProgress) {
    super(`Run "${run.id}" was cancelled.`, 'run_cancelled', run.id, run);
  }
}

/** The run was still processing when the wait's `timeoutMs` ran out; the run itself carries on. */
export class RunTimeoutError extends RunWaitError {
  readonly timeoutMs: number;
  constructor(runId: string, timeoutMs: number, run: RunProgress | undefined) {
    super(
      `Run "${runId}" was still ${run?.status ?? 'unfinished'} after ${timeoutMs} ms; it carries on, wait again or raise timeoutMs.`,
      'run_wait_timeout',
      runId,
      run,
    );
    this.timeoutMs = timeoutMs;
  }
}

/** `evaluations.wait` ended without the evaluation completing. `evaluation` is the last one seen. */
export class EvaluationWaitError extends DocSlurpError {
  readonly evaluationId: string;
  readonly evaluation: Evaluation | undefined;

  constructor(message: string, code: string, evaluationId: string, evaluation: Evaluation | undefined) {
    super(message, { code });
    this.evaluationId = evaluationId;
    this.evaluation = evaluation;
  }
}

/** The evaluation failed; `evaluation.error` says why. */
export class EvaluationFailedError extends EvaluationWaitError {
  declare readonly evaluation: Evaluation;
  constructor(evaluation: Evaluation) {
    const reason = evaluation.error ? ` (${evaluation.error.code}: ${evaluation.error.message})` : '';
    super(`Evaluation "${evaluation.id}" failed${reason}.`, 'evaluation_failed', evaluation.id, evaluation);
  }
}

/** The evaluation was cancelled; what it asked before stays readable through `questions`. */
export class EvaluationCancelledError extends EvaluationWaitError {
  declare readonly evaluation: Evaluation;
  constructor(evaluation: Evaluation) {
    super(`Evaluation "${evaluation.id}" was cancelled.`, 'evaluation_cancelled', evaluation.id, evaluation);
  }
}

/** The evaluation was still queued or running when the wait's `timeoutMs` ran out; it carries on. */
export class EvaluationTimeoutError extends EvaluationWaitError {
  readonly timeoutMs: number;
  constructor(evaluationId: string, timeoutMs: number, evaluation: Evaluation | undefined) {
    super(
      `Evaluation "${evaluationId}" was still ${evaluation?.status ?? 'unfinished'} after ${timeoutMs} ms; it carries on, wait again or raise timeoutMs.`,
      'evaluation_wait_timeout',
      evaluationId,
      evaluation,
    );
    this.timeoutMs = timeoutMs;
  }
}

/**
 * `Retry-After` in milliseconds: either delay-seconds or an HTTP date (RFC 9110 §10.2.3).
 * A date in the past means "now"; anything unreadable means the server did not say.
 */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  // An HTTP date names its weekday and month; without letters, Date.parse would read "-3" as a year.
  const date = /[a-z]/i.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

type APIErrorClass = new (message: string, init: ResponseInit) => APIError;

const byStatus: Record<number, APIErrorClass> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  408: RequestTimeoutError,
  409: ConflictError,
  413: PayloadTooLargeError,
  415: UnsupportedMediaTypeError,
  429: RateLimitError,
};

/** The typed error for an error response, from the API's body `{"error": {code, message, requestId}}`. */
export function errorFromResponse(
  status: number,
  headers: Headers,
  bodyText: string,
  sentRequestId: string,
): APIError {
  let body:
    | (Record<string, unknown> & { code?: unknown; message?: unknown; requestId?: unknown })
    | undefined;
  try {
    const parsed: unknown = JSON.parse(bodyText);
    if (typeof parsed === 'object' && parsed !== null && 'error' in parsed) {
      const inner = (parsed as { error: unknown }).error;
      if (typeof inner === 'object' && inner !== null) body = inner as Record<string, unknown>;
    }
  } catch {
    // Not our JSON: a proxy or load balancer answered. Keep the status, describe what came back.
  }
  const code = typeof body?.code === 'string' ? body.code : `http_${status}`;
  const snippet = bodyText.trim().replace(/\s+/g, ' ').slice(0, 200);
  const message =
    typeof body?.message === 'string'
      ? body.message
      : `The server answered ${status}${snippet ? `: ${snippet}` : ' with no body'}.`;
  const requestId =
    (typeof body?.requestId === 'string' ? body.requestId : undefined) ??
    headers.get('x-request-id') ??
    sentRequestId;
  const ErrorClass =
    code === 'quota_exceeded'
      ? QuotaExceededError
      : (byStatus[status] ?? (status >= 500 ? ServerError : APIError));
  return new ErrorClass(message, { status, code, requestId, headers, body });
}
