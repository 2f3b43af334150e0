import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { Transform } from 'node:stream';
import type { FetchedResource, UrlFetcher } from '../../domain/ports.js';
import { decodeUriPart } from '../../domain/uri.js';
import { DocumentFailure } from '../../errors.js';
import { type AddressGuard, ForbiddenHost, networkFailure, pinnedLookup } from './guard.js';

export interface FetcherOptions {
  /** The request-forgery guard (shared with webhook deliveries). */
  guard: AddressGuard;
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
  userAgent: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Media types worth fetching: documents and pages, not video, audio, fonts or executables. */
export function acceptedContentType(type: string | null): boolean {
  if (!type) return true;
  const t = type.split(';')[0]!.trim().toLowerCase();
  return (
    t.startsWith('text/') ||
    t.startsWith('image/') ||
    t.startsWith('application/vnd.openxmlformats-officedocument.') ||
    t.startsWith('application/vnd.oasis.opendocument.') ||
    t.startsWith('application/vnd.ms-') ||
    [
      'application/pdf',
      'application/json',
      'application/ld+json',
      'application/xml',
      'application/xhtml+xml',
      'application/rtf',
      'application/epub+zip',
      'application/msword',
      'message/rfc822',
      'application/octet-stream',
    ].includes(t)
  );
}

function filenameOf(res: IncomingMessage, url: URL, contentType: string | null): string {
  const disposition = res.headers['content-disposition'] ?? '';
  const star = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(disposition);
  const plain = /filename\s*=\s*"?([^";]+)"?/i.exec(disposition);
  let name = star ? decodeUriPart(star[1]!) : plain ? plain[1]! : '';
  if (!name) {
    const last = url.pathname.split('/').filter(Boolean).pop();
    name = last ? decodeUriPart(last) : url.hostname;
  }
  if (!/\.[A-Za-z0-9]{1,8}$/.test(name) && contentType?.includes('html')) name += '.html';
  return name;
}

/**
 * Fetches web pages and files for URL ingestion without letting a user reach internal services.
 * Every host, the first and each redirect's, goes through the guard (guard.ts) and the connection
 * goes to exactly the address it checked.
 */
export class GuardedFetcher implements UrlFetcher {
  constructor(private readonly options: FetcherOptions) {}

  private request(
    url: URL,
    address: { address: string; family: number },
    signal: AbortSignal,
    extraHeaders: Record<string, string>,
  ): Promise<IncomingMessage> {
    // The socket connects to the vetted address whatever DNS would say now; Host and SNI keep the name.
    const lookup = pinnedLookup(address);
    const lib = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = lib.get(url, {
        lookup,
        signal,
        headers: {
          ...extraHeaders,
          'user-agent': this.options.userAgent,
          accept: '*/*',
          'accept-encoding': 'identity',
        },
      });
      req.on('response', resolve);
      req.on('error', reject);
    });
  }

  async fetch(
    rawUrl: string,
    signal: AbortSignal,
    headers: Record<string, string> = {},
  ): Promise<FetchedResource> {
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const combined = AbortSignal.any([signal, timeout]);
    let url = new URL(rawUrl);
    const origin = url.origin;
    for (let hop = 0; ; hop++) {
      // Every hop is checked as the first URL was: a redirect must not add credentials either.
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw new DocumentFailure(
          'url_forbidden',
          `Only http and https URLs can be fetched, not ${url.protocol}`,
        );
      }
      if (url.username || url.password) {
        throw new DocumentFailure(
          'url_forbidden',
          'Refused to fetch a URL with a user name or password (a redirect led to one).',
        );
      }
      let res: IncomingMessage;
      try {
        // Credentials given for a URL go to its origin only, as browsers do with Authorization.
        res = await this.request(
          url,
          await this.options.guard.vet(url.hostname),
          combined,
          url.origin === origin ? headers : {},
        );
      } catch (err) {
        if (err instanceof ForbiddenHost) {
          throw new DocumentFailure(
            'url_forbidden',
            `Refused to fetch ${url.href}: ${err.message}. A self-hoster can allow internal hosts with URL_FETCH_ALLOW_HOSTS.`,
          );
        }
        if (timeout.aborted)
          throw new DocumentFailure(
            'fetch_timeout',
            `${url.href} did not answer within ${this.options.timeoutMs} ms.`,
          );
        throw new DocumentFailure('fetch_failed', `Could not fetch ${url.href}: ${networkFailure(err)}.`);
      }
      // Whatever goes wrong with the answer fails the document once, here: never an error the job
      // engine would retry (fetching the URL again), never a connection left open until the timeout.
      try {
        const next = this.redirectTarget(res, url, hop, rawUrl);
        if (!next) return this.accept(res, url, combined, timeout);
        res.resume();
        url = next;
      } catch (err) {
        res.destroy();
        if (err instanceof DocumentFailure) throw err;
        throw new DocumentFailure(
          'fetch_failed',
          `The answer of ${url.href} could not be read: ${(err as Error).message}`,
        );
      }
    }
  }

  /** Where a redirect leads, or undefined for an answer that is no redirect. */
  private redirectTarget(res: IncomingMessage, url: URL, hop: number, rawUrl: string): URL | undefined {
    const location = res.headers.location;
    if (!REDIRECTS.has(res.statusCode ?? 0) || !location) return undefined;
    if (hop >= this.options.maxRedirects) {
      throw new DocumentFailure(
        'too_many_redirects',
        `${rawUrl} redirected more than ${this.options.maxRedirects} times.`,
      );
    }
    try {
      return new URL(location, url);
    } catch {
      throw new DocumentFailure('fetch_failed', `${url.href} redirected to an invalid URL.`);
    }
  }

  /** The answer's body, once its status, type and declared size are acceptable. */
  private accept(
    res: IncomingMessage,
    url: URL,
    aborted: AbortSignal,
    timeout: AbortSignal,
  ): FetchedResource {
    if ((res.statusCode ?? 500) >= 400) {
      throw new DocumentFailure(
        'fetch_failed',
        `${url.href} answered HTTP ${res.statusCode}.`,
        res.statusCode,
      );
    }
    const contentType = res.headers['content-type'] ?? null;
    if (!acceptedContentType(contentType)) {
      throw new DocumentFailure(
        'unsupported_media_type',
        `${url.href} is ${contentType}, which is not a document type.`,
      );
    }
    const declared = Number(res.headers['content-length']);
    if (declared > this.options.maxBytes) {
      throw new DocumentFailure(
        'file_too_large',
        `${url.href} is ${declared} bytes; the limit is ${this.options.maxBytes}.`,
      );
    }
    const filename = filenameOf(res, url, contentType);
    return {
      body: res.pipe(this.limiter(url, aborted, timeout, res)),
      contentType,
      finalUrl: url.href,
      filename,
      status: res.statusCode,
      etag: res.headers.etag ?? null,
      lastModified: res.headers['last-modified'] ?? null,
    };
  }

  /**
   * Passes the body through while counting it; stops it at the size limit or the time limit. A body
   * without Content-Length ends where the connection ends, so the connection cut by the time limit
   * looks like a normal end: only the signal tells the truncated body from a whole one.
   */
  private limiter(url: URL, aborted: AbortSignal, timeout: AbortSignal, res: IncomingMessage): Transform {
    const max = this.options.maxBytes;
    let seen = 0;
    const t = new Transform({
      transform(chunk: Buffer, _enc, done) {
        seen += chunk.length;
        if (seen > max)
          done(new DocumentFailure('file_too_large', `${url.href} is larger than ${max} bytes.`));
        else done(null, chunk);
      },
      flush(done) {
        if (timeout.aborted)
          done(new DocumentFailure('fetch_timeout', `${url.href} did not finish within the time limit.`));
        else if (aborted.aborted)
          done(new DocumentFailure('fetch_failed', `Fetching ${url.href} was stopped before it finished.`));
        else done();
      },
    });
    res.on('error', (err) =>
      t.destroy(
        timeout.aborted
          ? new DocumentFailure('fetch_timeout', `${url.href} did not finish within the time limit.`)
          : new DocumentFailure('fetch_failed', `Reading ${url.href} failed: ${networkFailure(err)}.`),
      ),
    );
    return t;
  }
}
