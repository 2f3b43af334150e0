import type { FetchLike } from '../../src/index.js';

/** One request as the SDK sent it. `at` is Date.now() when it was sent (fake timers make it exact). */
export interface SentRequest {
  url: string;
  method: string;
  headers: Headers;
  body: RequestInit['body'];
  signal: AbortSignal;
  at: number;
}

/** What the fake answers to one request: a response, a thrown network error, or a function of the request. */
export type Reply = Response | Error | ((request: SentRequest) => Response | Promise<Response>);

/**
 * A fetch that answers from a script, one reply per request, and records every request. A request
 * beyond the script fails the test: the exact number of attempts is part of what the tests check.
 */
export function scriptedFetch(...replies: Reply[]) {
  const requests: SentRequest[] = [];
  const fetch: FetchLike = async (url, init) => {
    const request: SentRequest = {
      url,
      method: init.method ?? 'GET',
      headers: new Headers(init.headers),
      body: init.body,
      signal: init.signal!,
      at: Date.now(),
    };
    requests.push(request);
    const reply = replies[requests.length - 1];
    if (reply === undefined)
      throw new Error(`unexpected request #${requests.length}: ${request.method} ${url}`);
    if (reply instanceof Error) throw reply;
    if (typeof reply === 'function') return reply(request);
    return reply;
  };
  return { fetch, requests };
}

export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });

export const apiError = (
  status: number,
  code: string,
  headers: Record<string, string> = {},
  message = `server says ${code}`,
) => json(status, { error: { code, message, requestId: `req_${code}` } }, headers);

/** What fetch rejects with when the connection fails (undici's wording). */
export const networkError = () => new TypeError('fetch failed', { cause: new Error('ECONNRESET') });

/** A reply that never comes: it only ends when the request is aborted, as a real fetch does. */
export const hang = (): Reply => (request) =>
  new Promise<Response>((_, reject) => {
    request.signal.addEventListener('abort', () => reject(request.signal.reason), { once: true });
  });

/** A promise's outcome without an unhandled rejection while fake timers run. */
export function settle<T>(promise: Promise<T>): Promise<{ value?: T; error?: unknown }> {
  return promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
}

export const run = (status: string, extra: Record<string, unknown> = {}) => ({
  id: 'run_1',
  workspaceId: 'ws_1',
  status,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  finishedAt: null,
  counts: { total: 1, queued: 0, processing: 1, ready: 0, needs_ocr: 0, failed: 0, cancelled: 0, deleted: 0 },
  failures: [],
  progress: 0,
  done: status === 'completed' || status === 'failed' || status === 'cancelled',
  documents: [],
  ...extra,
});
