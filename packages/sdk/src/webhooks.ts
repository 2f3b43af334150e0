import { DocSlurpError } from './errors.js';
import type { WebhookEvent } from './types.js';

/**
 * Checks a webhook delivery's signature (the Standard Webhooks scheme DocSlurp signs with) with Web
 * Crypto only, so it runs wherever the client does.
 */

/** Headers as `fetch`'s Request has them, or as Node's `IncomingMessage.headers` (a plain object). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /**
   * How far `webhook-timestamp` may be from now, in seconds, either way (default 300). Older
   * deliveries are refused, so a captured request cannot be replayed later.
   */
  toleranceSeconds?: number;
  /** The current time (ms since the epoch, or a Date); for tests. Default: `Date.now()`. */
  now?: number | Date;
  /** Web Crypto's SubtleCrypto; default `globalThis.crypto.subtle` (Node 18: the `webcrypto.subtle` of the node:crypto module). */
  subtle?: HmacSubtle;
}

/**
 * The part of Web Crypto's SubtleCrypto used here. Declared structurally: the library is typed for
 * consumers with and without the DOM typings (which name SubtleCrypto), and `crypto.subtle` fits it.
 */
export interface HmacSubtle {
  importKey(
    format: 'raw',
    keyData: Uint8Array<ArrayBuffer>,
    algorithm: { name: 'HMAC'; hash: 'SHA-256' },
    extractable: false,
    keyUsages: 'sign'[],
  ): Promise<object>;
  // biome-ignore lint/suspicious/noExplicitAny: the key is whatever importKey made (CryptoKey, a DOM type).
  sign(algorithm: 'HMAC', key: any, data: Uint8Array<ArrayBuffer>): Promise<ArrayBuffer>;
}

/**
 * A delivery that must not be trusted. `code` says why: `webhook_missing_header`,
 * `webhook_invalid_timestamp`, `webhook_timestamp_out_of_tolerance`, `webhook_invalid_signature`,
 * `webhook_invalid_secret` (the secret given is not a `whsec_` secret) or `webhook_invalid_body` (signed,
 * but not JSON). Answer such a request with 400 or 401, and do not act on it.
 */
export class WebhookVerificationError extends DocSlurpError {}

const DEFAULT_TOLERANCE_SECONDS = 300;
const encoder = new TextEncoder();

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof Headers !== 'undefined' && headers instanceof Headers) return headers.get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(' ') : value;
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** Equal bytes, in time that depends on the length only, never on where the first difference is. */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

function fail(code: string, message: string): never {
  throw new WebhookVerificationError(message, { code });
}

/**
 * Verifies a delivery and returns its event. `secret` is the endpoint's `whsec_…` secret (shown once,
 * when the endpoint was registered); `headers` the request's headers; `body` its raw body, exactly as
 * received (a string or bytes: JSON that was parsed and serialised again may differ by a byte and
 * fail). Throws a WebhookVerificationError unless one of the `v1` signatures in `webhook-signature`
 * (it may carry several, separated by spaces) is an HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>`
 * under the secret, and the timestamp is within `toleranceSeconds` of now.
 *
 * Deliveries are sent at least once: use `event.id` (the `webhook-id`) to ignore one you already handled.
 */
export async function verifyWebhook(
  secret: string,
  headers: WebhookHeaders,
  body: string | Uint8Array | ArrayBuffer,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const key = typeof secret === 'string' ? fromBase64(secret.replace(/^whsec_/, '')) : undefined;
  if (!key || key.length === 0)
    fail('webhook_invalid_secret', 'The secret is not a webhook secret (whsec_…).');
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  const missing = [
    ['webhook-id', id],
    ['webhook-timestamp', timestamp],
    ['webhook-signature', signatures],
  ].find(([, v]) => !v);
  if (missing) fail('webhook_missing_header', `The request has no ${missing[0]} header.`);
  if (!/^\d{1,15}$/.test(timestamp!.trim()))
    fail('webhook_invalid_timestamp', 'webhook-timestamp is not a Unix time in seconds.');
  const now = options.now instanceof Date ? options.now.getTime() : (options.now ?? Date.now());
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(now / 1000 - Number(timestamp)) > tolerance)
    fail(
      'webhook_timestamp_out_of_tolerance',
      `webhook-timestamp is more than ${tolerance} s from now: a delayed or replayed request.`,
    );

  const subtle = options.subtle ?? (globalThis as { crypto?: { subtle?: HmacSubtle } }).crypto?.subtle;
  if (!subtle)
    throw new TypeError(
      'This runtime has no Web Crypto (globalThis.crypto.subtle); pass { subtle } (Node 18: the webcrypto.subtle of the node:crypto module).',
    );
  const bytes =
    typeof body === 'string'
      ? encoder.encode(body)
      : body instanceof Uint8Array
        ? body
        : new Uint8Array(body);
  const prefix = encoder.encode(`${id!.trim()}.${timestamp!.trim()}.`);
  const signed = new Uint8Array(prefix.length + bytes.length);
  signed.set(prefix);
  signed.set(bytes, prefix.length);
  const hmacKey = await subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const expected = new Uint8Array(await subtle.sign('HMAC', hmacKey, signed));
  // Every entry is compared (no early exit), so the time taken says nothing about which one matched.
  let valid = false;
  for (const entry of signatures!.split(' ')) {
    const [version, value] = entry.split(',');
    const given = version === 'v1' && value ? fromBase64(value) : undefined;
    if (given && constantTimeEqual(given, expected)) valid = true;
  }
  if (!valid)
    fail('webhook_invalid_signature', 'No signature in webhook-signature matches the body and secret.');
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as WebhookEvent;
  } catch {
    fail('webhook_invalid_body', 'The signed body is not JSON.');
  }
}
