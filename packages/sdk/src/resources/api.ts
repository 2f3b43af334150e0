import { DocSlurpError } from '../errors.js';
import type { Call, ReadContext, RequestOptions, Transport } from '../transport.js';

export const DEFAULT_TIMEOUT_MS = 60_000;
/** Uploads, downloads and workspace deletions move whole files. */
export const LONG_TIMEOUT_MS = 10 * 60_000;

export const readJson = async <T>(response: Response, { requestId }: ReadContext): Promise<T> => {
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

/** A path segment from an id the caller passed, refused before any request when it is empty. */
export const id = (value: string, what: string): string => {
  if (typeof value !== 'string' || value === '') throw new TypeError(`${what} must be a non-empty string.`);
  return encodeURIComponent(value);
};

/**
 * The JSON calls every resource makes, over the client's one transport. `retryable` is each call's
 * own decision: only requests that are safe to repeat are retried.
 */
export class Api {
  constructor(readonly transport: Transport) {}

  send<T>(call: Call<T>, options: RequestOptions | undefined): Promise<T> {
    return this.transport.send(call, options);
  }

  get<T>(path: string, options: RequestOptions | undefined): Promise<T> {
    return this.json<T>('GET', path, undefined, true, options);
  }

  delete<T>(path: string, options: RequestOptions | undefined): Promise<T> {
    return this.json<T>('DELETE', path, undefined, false, options);
  }

  post<T>(path: string, json: unknown, retryable: boolean, options: RequestOptions | undefined): Promise<T> {
    return this.json<T>('POST', path, json, retryable, options);
  }

  /** Puts something in place (a group's member): the same however often it is made, so it is retried. */
  put<T>(path: string, options: RequestOptions | undefined): Promise<T> {
    return this.json<T>('PUT', path, undefined, true, options);
  }

  /** A change that is the same however often it is made, so it is retried. */
  patch<T>(path: string, json: unknown, options: RequestOptions | undefined): Promise<T> {
    return this.json<T>('PATCH', path, json, true, options);
  }

  private json<T>(
    method: Call<T>['method'],
    path: string,
    json: unknown,
    retryable: boolean,
    options: RequestOptions | undefined,
  ): Promise<T> {
    return this.transport.send<T>(
      {
        method,
        path,
        json,
        accept: 'application/json',
        retryable,
        defaultTimeoutMs: DEFAULT_TIMEOUT_MS,
        read: readJson,
      },
      options,
    );
  }
}
