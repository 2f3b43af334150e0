/** Retries for calls to model servers: back-off on 429, 5xx and network errors, honouring Retry-After. */

import { traceHeaders } from '../tracing/propagate.js';

export interface RetryPolicy {
  maxRetries: number;
  /** First back-off; doubles with each retry (with jitter), capped at `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export class ModelHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    what: string,
  ) {
    super(`${what} request failed with HTTP ${status}: ${body.slice(0, 300)}`);
    this.name = 'ModelHttpError';
  }
}

/** Seconds or an HTTP date, as servers send it; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/** `fetch` that retries what is worth retrying and throws ModelHttpError for any other failure. */
export async function fetchWithRetry(
  url: string,
  init: RequestInit,
  policy: RetryPolicy & { timeoutMs: number; what: string },
  signal?: AbortSignal,
): Promise<Response> {
  // With tracing on, the provider's own traces join the caller's (nothing is added when it is off).
  const headers = new Headers(init.headers);
  for (const [name, value] of Object.entries(traceHeaders())) headers.set(name, value);
  for (let attempt = 0; ; attempt++) {
    const timeout = AbortSignal.timeout(policy.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let res: Response | undefined;
    let failure: unknown;
    try {
      res = await fetch(url, { ...init, headers, signal: combined });
    } catch (err) {
      if (signal?.aborted) throw err;
      failure = err;
    }
    if (res?.ok) return res;
    const retryable = res === undefined || res.status === 429 || res.status >= 500;
    if (!retryable || attempt >= policy.maxRetries) {
      if (res) throw new ModelHttpError(res.status, await res.text().catch(() => ''), policy.what);
      throw new Error(`${policy.what} request failed: ${(failure as Error).message}`, { cause: failure });
    }
    const backoff =
      Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt) * (0.75 + Math.random() * 0.5);
    const asked = res ? retryAfterMs(res.headers.get('retry-after')) : undefined;
    await res?.body?.cancel().catch(() => {});
    await sleep(asked !== undefined ? Math.min(asked, policy.maxDelayMs * 4) : backoff, signal);
  }
}
