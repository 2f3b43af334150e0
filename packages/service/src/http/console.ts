import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../logger.js';

/**
 * The web console's pages may only run the console's own scripts and talk to this origin: no inline
 * script, no framing (clickjacking), no plugins. pdf.js runs its worker from a same-origin file and
 * gets its fonts as data, hence `worker-src 'self'` and `font-src 'self' data:`.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Paths of the API and the operational endpoints: they answer JSON (or text), never the console page. */
const API_PATH = /^\/(?:v1|health|ready|metrics|openapi\.json)(?:\W|$)/;

/**
 * The path as a lenient proxy or router might read it: decoded, slashes collapsed, dots resolved,
 * in lower case. `//ready` or `/READY` is no screen of the console: it is a spelling of an endpoint,
 * and answers the API's 404, as ops.ts's exact-spelling rule wants.
 */
function leniently(url: string): string {
  let p = url.split('?', 1)[0]!.split('#', 1)[0]!;
  try {
    p = decodeURIComponent(p);
  } catch {
    // A malformed escape stays as it is.
  }
  return path.posix.normalize(p.replace(/\/+/g, '/')).toLowerCase();
}

/** Whether an unmatched request is a browser navigation to one of the console's screens. */
export function isConsoleNavigation(request: FastifyRequest): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  // An absolute URL on the request line (`GET http://host/ready`) names no screen either.
  if (!request.url.startsWith('/') || API_PATH.test(leniently(request.url))) return false;
  return (request.headers.accept ?? '').includes('text/html');
}

function pageHeaders(reply: FastifyReply): void {
  reply.header('content-security-policy', CONSOLE_CSP);
  reply.header('cross-origin-opener-policy', 'same-origin');
}

export interface ConsolePage {
  send(reply: FastifyReply): FastifyReply;
}

/**
 * Serves the built console (packages/console/dist): its hashed assets with long caching, and its
 * index.html for every screen's URL. Returns undefined, and the server runs without the console,
 * when it has not been built.
 */
export async function registerConsole(
  app: FastifyInstance,
  dir: string,
  log: Logger,
): Promise<ConsolePage | undefined> {
  let indexHtml: Buffer;
  try {
    indexHtml = await readFile(path.join(dir, 'index.html'));
  } catch {
    log.warn({ dir }, 'the web console is not built (run "npm run build"); serving the API only');
    return undefined;
  }
  await app.register(fastifyStatic, {
    root: dir,
    prefix: '/',
    // Routes for the files present at start only: anything else falls through to the not-found
    // handler, which answers the page or the API's JSON 404.
    wildcard: false,
    index: false,
    globIgnore: ['index.html', '**/*.gz', '**/*.br'],
    preCompressed: true,
    cacheControl: false,
    schemaHide: true,
    setHeaders: (reply, filePath) => {
      pageHeaders(reply);
      // Vite puts a content hash in every name under assets/, so those never change.
      const hashed = filePath.split(path.sep).includes('assets');
      reply.header('cache-control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  return {
    send(reply) {
      pageHeaders(reply);
      return reply
        .code(200)
        .header('cache-control', 'no-cache')
        .type('text/html; charset=utf-8')
        .send(indexHtml);
    },
  };
}
