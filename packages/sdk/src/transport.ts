import {
  APIError,
  ConnectionError,
  DocSlurpError,
  errorFromResponse,
  parseRetryAfter,
  TimeoutError,
} from './errors.js';
import { linkedController, newRequestId, sleep } from './runtime.js';

/** The subset of `fetch` the SDK uses; pass your own to add a proxy agent, logging or a test double. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** Options every method accepts as its last argument. */
export interface RequestOptions {
  /** Aborts the call, including its retries and back-off waits. */
  signal?: AbortSignal;
  /** Time limit of each attempt, in milliseconds. */
  timeoutMs?: number;
  /** Retries for this call, 0 to 2; only applies to calls that may be retried at all. */
  maxRetries?: number;
  /**
   * Sent as `x-request-id` (8 to 64 letters, digits and `._-`, not starting with `req_`, or the server
   * uses its own); generated when absent.
   */
  requestId?: string;
  /**
   * Serve this call as one of the account's users (id or e-mail): it sees and may do what they do. Needs
   * a key with the `act-as` scope (`DocSlurp-On-Behalf-Of`). Overrides the client's `onBehalfOf`.
   */
  onBehalfOf?: string;
}

export interface TransportConfig {
  baseUrl: string;
  apiKey: string | undefined;
  /** The client-wide `onBehalfOf`. */
  onBehalfOf: string | undefined;
  fetch: FetchLike;
  /** The client-wide `timeoutMs`; when unset, each call uses its own default. */
  timeoutMs: number | undefined;
  maxRetries: number;
}

export interface ReadContext {
  requestId: string;
  /** Detaches the caller's signal; streams call it when they end. */
  release: () => void;
}

/** One API call: what to send, whether it may be retried, and how to read a successful answer. */
export interface Call<T> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  json?: unknown;
  form?: FormData;
  accept: string;
  /** Reads, and writes that the server deduplicates (an upload with an idempotency key). */
  retryable: boolean;
  defaultTimeoutMs: number;
  /** Reads the body of a 2xx answer; it runs inside the attempt, under its time limit. */
  read: (response: Response, context: ReadContext) => Promise<T>;
  /** The body outlives `read` (a stream): the caller's signal stays attached until `release` is called. */
  keepsBody?: boolean;
}

/** Longest `Retry-After` the SDK waits out by itself; a longer one is the caller's decision. */
const MAX_RETRY_AFTER_MS = 60_000;
const BASE_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 8_000;

/** Worth asking again; not 507 (insufficient_storage): a full disk does not free itself in seconds. */
const isTransientStatus = (status: number) =>
  status === 408 || status === 429 || (status >= 500 && status !== 507);

export function validateMaxRetries(value: number, where: string): number {
  if (!Number.isInteger(value) || value < 0 || value > 2) {
    throw new DocSlurpError(
      `${where}: maxRetries must be 0, 1 or 2 (the service allows at most 2 retries).`,
      {
        code: 'invalid_option',
      },
    );
  }
  return value;
}

export function validateTimeout(value: number, where: string): number {
  if (!(typeof value === 'number' && value > 0 && Number.isFinite(value))) {
    throw new DocSlurpError(`${where}: timeoutMs must be a positive number of milliseconds.`, {
      code: 'invalid_option',
    });
  }
  return value;
}

/** Back-off before retry number `retry` (0-based): exponential with jitter, or what the server asked. */
export function retryDelayMs(retry: number, retryAfterMs: number | undefined): number | undefined {
  if (retryAfterMs !== undefined) return retryAfterMs <= MAX_RETRY_AFTER_MS ? retryAfterMs : undefined;
  const base = Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** retry);
  return Math.round(base * (0.75 + Math.random() * 0.25));
}

type Attempt<T> = { done: true; value: T } | { done: false; error: DocSlurpError; transient: boolean };

export class Transport {
  constructor(private readonly config: TransportConfig) {}

  async send<T>(call: Call<T>, options: RequestOptions = {}): Promise<T> {
    const requestId = options.requestId ?? newRequestId();
    const maxRetries = call.retryable
      ? validateMaxRetries(options.maxRetries ?? this.config.maxRetries, call.path)
      : 0;
    const timeoutMs = validateTimeout(
      options.timeoutMs ?? this.config.timeoutMs ?? call.defaultTimeoutMs,
      call.path,
    );
    const headers: Record<string, string> = { accept: call.accept, 'x-request-id': requestId };
    if (this.config.apiKey) headers.authorization = `Bearer ${this.config.apiKey}`;
    const onBehalfOf = options.onBehalfOf ?? this.config.onBehalfOf;
    if (onBehalfOf !== undefined) headers['docslurp-on-behalf-of'] = onBehalfOf;
    let body: FormData | string | undefined;
    if (call.form) body = call.form;
    else if (call.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(call.json);
    }
    const init = { method: call.method, headers, ...(body === undefined ? {} : { body }) };

    for (let retry = 0; ; retry++) {
      const outcome = await this.attempt(call, init, requestId, timeoutMs, options.signal);
      if (outcome.done) return outcome.value;
      const { error } = outcome;
      if (!outcome.transient || retry >= maxRetries) throw error;
      const retryAfterMs =
        error instanceof APIError ? parseRetryAfter(error.headers.get('retry-after')) : undefined;
      const delay = retryDelayMs(retry, retryAfterMs);
      if (delay === undefined) throw error;
      await sleep(delay, options.signal);
    }
  }

  private async attempt<T>(
    call: Call<T>,
    init: RequestInit,
    requestId: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<Attempt<T>> {
    const url = this.config.baseUrl + call.path;
    const { controller, release } = linkedController(signal);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    let handedOver = false;
    try {
      const response = await this.config.fetch(url, { ...init, signal: controller.signal });
      if (response.ok) {
        const value = await call.read(response, {
          requestId: response.headers.get('x-request-id') ?? requestId,
          release,
        });
        handedOver = call.keepsBody === true;
        return { done: true, value };
      }
      const text = await response.text();
      return {
        done: false,
        error: errorFromResponse(response.status, response.headers, text, requestId),
        transient: isTransientStatus(response.status),
      };
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      if (err instanceof DocSlurpError) throw err;
      const cause = err instanceof Error ? err.message : String(err);
      const error = timedOut
        ? new TimeoutError(`${call.method} ${call.path} got no answer within ${timeoutMs} ms.`, {
            requestId,
            cause: err,
          })
        : new ConnectionError(`${call.method} ${url} failed: ${cause}`, { requestId, cause: err });
      return { done: false, error, transient: true };
    } finally {
      clearTimeout(timer);
      // A body still being streamed stays abortable by the caller's signal until the stream releases it.
      if (!handedOver) release();
    }
  }
}
