import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type {
  WebhookRequest,
  WebhookResponse,
  WebhookSender,
  WebhookTargetGuard,
} from '../../domain/ports.js';
import { type AddressGuard, ForbiddenHost, networkFailure, pinnedLookup } from './guard.js';

export interface WebhookSenderOptions {
  /** The request-forgery guard of URL ingestion (URL_FETCH_ALLOW_HOSTS). */
  guard: AddressGuard;
  /** The whole attempt: resolving, connecting, the answer's status and what is read of its body. */
  timeoutMs: number;
  /** At most this much of an answer is read (and kept with the attempt); the rest is not. */
  maxResponseBytes: number;
  userAgent: string;
}

const ALLOW_HINT = 'a self-hoster can allow internal hosts with URL_FETCH_ALLOW_HOSTS';

/** `Retry-After` as seconds, from delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterSeconds(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const date = /[a-z]/i.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/**
 * Sends webhook deliveries: a POST to the endpoint's URL through the request-forgery guard, resolved
 * again for every attempt (an endpoint's name may have come to point inside since it was registered)
 * and connected to exactly the checked address. Redirects are not followed (a 3xx is a failure, as the
 * Standard Webhooks advice has it, so a redirect cannot lead a delivery inside either), the attempt
 * has a time limit, and only the start of an answer is read.
 */
export class GuardedWebhookSender implements WebhookSender, WebhookTargetGuard {
  constructor(private readonly options: WebhookSenderOptions) {}

  async refusal(url: URL): Promise<string | undefined> {
    try {
      await this.options.guard.vet(url.hostname);
      return undefined;
    } catch (err) {
      if (err instanceof ForbiddenHost) return `${err.message}; ${ALLOW_HINT}`;
      return `${url.hostname} cannot be reached: ${networkFailure(err)}`;
    }
  }

  async send(request: WebhookRequest): Promise<WebhookResponse> {
    const failed = (error: string, statusCode: number | null = null): WebhookResponse => ({
      statusCode,
      error,
      response: null,
      retryAfterSeconds: undefined,
    });
    const url = new URL(request.url);
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const signal = AbortSignal.any([request.signal, timeout]);
    let address: { address: string; family: number };
    try {
      address = await this.options.guard.vet(url.hostname);
    } catch (err) {
      if (err instanceof ForbiddenHost) return failed(`Refused to send: ${err.message}; ${ALLOW_HINT}.`);
      return failed(`Could not send: ${networkFailure(err)}.`);
    }
    let res: IncomingMessage;
    try {
      res = await this.post(url, address, request, signal);
    } catch (err) {
      if (timeout.aborted) return failed(`No answer within ${this.options.timeoutMs} ms.`);
      if (request.signal.aborted) return failed('The worker stopped before the answer came.');
      return failed(`Could not send: ${networkFailure(err)}.`);
    }
    const status = res.statusCode ?? 0;
    const response = await this.readStart(res);
    const error =
      status >= 200 && status < 300
        ? null
        : status >= 300 && status < 400
          ? `Answered HTTP ${status}: redirects are not followed; register the URL it leads to.`
          : `Answered HTTP ${status}.`;
    return {
      statusCode: status,
      error,
      response,
      retryAfterSeconds: retryAfterSeconds(res.headers['retry-after']),
    };
  }

  private post(
    url: URL,
    address: { address: string; family: number },
    request: WebhookRequest,
    signal: AbortSignal,
  ): Promise<IncomingMessage> {
    const lib = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = lib.request(url, {
        method: 'POST',
        // Host and SNI keep the name; the socket goes to the address the guard checked.
        lookup: pinnedLookup(address),
        signal,
        // A fresh connection per attempt: a pooled one could outlive the address check it was made for.
        agent: false,
        headers: {
          ...request.headers,
          'user-agent': this.options.userAgent,
          'content-length': String(Buffer.byteLength(request.body)),
        },
      });
      req.on('response', resolve);
      req.on('error', reject);
      req.end(request.body);
    });
  }

  /**
   * Up to maxResponseBytes of the answer's body, as text; then the connection is closed. The status
   * already decided the outcome, so an answer cut short by the limits still counts as what it said.
   */
  private async readStart(res: IncomingMessage): Promise<string | null> {
    const max = this.options.maxResponseBytes;
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res as AsyncIterable<Buffer>) {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= max) break;
      }
    } catch {
      // Cut by the time limit or the receiver: keep what arrived.
    } finally {
      res.destroy();
    }
    if (size === 0) return null;
    // PostgreSQL text cannot hold NUL; the decoder replaces invalid UTF-8 by itself.
    return Buffer.concat(chunks).subarray(0, max).toString('utf8').replaceAll('\u0000', '\ufffd');
  }
}
