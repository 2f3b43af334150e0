import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local model hub that serves files the way huggingface.co does, for tests:
 * `GET /<org>/<name>/resolve/<commit>/<path>` answers a small file directly (ETag: the git blob's
 * SHA-1, X-Repo-Commit) and a large (LFS) file with a 302 to a CDN on another origin, stating the
 * file's SHA-256 in X-Linked-Etag and its size in X-Linked-Size. Missing repositories, revisions and
 * files get a 404 with X-Error-Code. Both servers honour `Range: bytes=N-` (206 / 416).
 */

export interface HubFile {
  bytes: Uint8Array;
  /** Stored in LFS: redirected to the CDN. */
  lfs?: boolean;
}

export interface HubRepo {
  revision: string;
  files: Record<string, HubFile>;
}

export interface HubRequest {
  server: 'hub' | 'cdn';
  path: string;
  range: string | undefined;
  status: number;
  /** Body bytes sent. */
  bytes: number;
}

export interface FakeHub {
  url: string;
  requests: HubRequest[];
  /** The next CDN response for a blob (by SHA-256) sends only this many bytes, then drops the connection. */
  cutAfter: Map<string, number>;
  /** Stops listening: the hub cannot be reached (connection refused) until `start`. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const gitBlobSha1 = (b: Uint8Array) =>
  createHash('sha1').update(`blob ${b.length}\0`).update(b).digest('hex');

/** Sends `bytes` honouring a `Range: bytes=N-` header. */
function sendBytes(
  req: IncomingMessage,
  res: ServerResponse,
  bytes: Uint8Array,
  headers: Record<string, string>,
  cut: number | undefined,
): { status: number; sent: number } {
  const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
  const from = m ? Number(m[1]) : 0;
  if (from >= bytes.length && m) {
    res.writeHead(416, { 'content-range': `bytes */${bytes.length}` });
    res.end();
    return { status: 416, sent: 0 };
  }
  const body = bytes.subarray(from);
  const status = m ? 206 : 200;
  res.writeHead(status, {
    ...headers,
    'accept-ranges': 'bytes',
    'content-type': 'application/octet-stream',
    'content-length': String(body.length),
    ...(m ? { 'content-range': `bytes ${from}-${bytes.length - 1}/${bytes.length}` } : {}),
  });
  if (cut !== undefined && cut < body.length) {
    // Half a response, then the connection drops, as when a transfer is interrupted.
    res.write(body.subarray(0, cut), () => res.socket?.destroy());
    return { status, sent: cut };
  }
  res.end(body);
  return { status, sent: body.length };
}

function listen(server: Server, port = 0): Promise<number> {
  return new Promise((resolve) =>
    server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

export async function startFakeHub(repos: Record<string, HubRepo>): Promise<FakeHub> {
  const requests: HubRequest[] = [];
  const cutAfter = new Map<string, number>();
  const blobs = new Map<string, Uint8Array>();
  for (const repo of Object.values(repos))
    for (const f of Object.values(repo.files)) if (f.lfs) blobs.set(sha256(f.bytes), f.bytes);

  const cdn = createServer((req, res) => {
    const sha = /^\/blobs\/([0-9a-f]{64})/.exec(req.url ?? '')?.[1];
    const bytes = sha ? blobs.get(sha) : undefined;
    if (!sha || !bytes) {
      res.writeHead(404).end();
      requests.push({ server: 'cdn', path: req.url ?? '', range: req.headers.range, status: 404, bytes: 0 });
      return;
    }
    const cut = cutAfter.get(sha);
    cutAfter.delete(sha);
    const r = sendBytes(req, res, bytes, { etag: `"${sha}"` }, cut);
    requests.push({
      server: 'cdn',
      path: req.url ?? '',
      range: req.headers.range,
      status: r.status,
      bytes: r.sent,
    });
  });
  const cdnUrl = `http://127.0.0.1:${await listen(cdn)}`;

  const hub = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://hub');
    const log = (status: number, bytes = 0) =>
      requests.push({ server: 'hub', path: url.pathname, range: req.headers.range, status, bytes });
    const m = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(url.pathname);
    const repo = m ? repos[m[1]!] : undefined;
    const notFound = (code: string) => {
      res.writeHead(404, { 'x-error-code': code, 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: code }));
      log(404);
    };
    if (!m || !repo) return notFound('RepoNotFound');
    if (m[2] !== repo.revision) return notFound('RevisionNotFound');
    const file = repo.files[decodeURIComponent(m[3]!)];
    if (!file) return notFound('EntryNotFound');
    const common = { 'x-repo-commit': repo.revision };
    if (file.lfs) {
      const sha = sha256(file.bytes);
      res.writeHead(302, {
        ...common,
        location: `${cdnUrl}/blobs/${sha}?expires=${Date.now() + 3600_000}`,
        etag: `"${sha}"`,
        'x-linked-etag': `"${sha}"`,
        'x-linked-size': String(file.bytes.length),
      });
      res.end();
      log(302);
      return;
    }
    const r = sendBytes(req, res, file.bytes, { ...common, etag: `"${gitBlobSha1(file.bytes)}"` }, undefined);
    log(r.status, r.sent);
  });
  let port = await listen(hub);

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    cutAfter,
    async stop() {
      hub.closeAllConnections();
      await new Promise<void>((r) => hub.close(() => r()));
    },
    async start() {
      port = await listen(hub, port);
    },
    async close() {
      for (const s of [hub, cdn]) {
        s.closeAllConnections();
        if (s.listening) await new Promise<void>((r) => s.close(() => r()));
      }
    },
  };
}
