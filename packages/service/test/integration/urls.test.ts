import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../support/fixtures.js';
import { client } from '../support/http.js';
import { startTestService, type TestService } from '../support/service.js';

/** A small web server on loopback: pages, a PDF, redirects, errors, slow and oversized answers. */
let web: http.Server;
let base: string;
const pdf = makePdf(['Tariffs for 2025. The standard rate is 4.2 cents per kilowatt hour.']);

/** Requests the web server received, by path. */
const hits = new Map<string, number>();
/** Authorization headers the web server received. */
const authorizations: string[] = [];

beforeAll(async () => {
  web = http.createServer((req, res) => {
    hits.set(req.url ?? '', (hits.get(req.url ?? '') ?? 0) + 1);
    if (req.headers.authorization) authorizations.push(req.headers.authorization);
    switch (req.url) {
      case '/guide':
        res.setHeader('content-type', 'text/html; charset=utf-8');
        res.end(
          '<!doctype html><html><head><title>Onboarding guide</title></head><body><nav>Menu</nav><main><h1>Onboarding</h1><p>New hires collect their laptop from the IT desk on the second floor.</p></main></body></html>',
        );
        return;
      case '/tariffs.pdf':
        res.setHeader('content-type', 'application/pdf');
        res.end(pdf);
        return;
      case '/moved':
        res.writeHead(302, { location: '/guide' }).end();
        return;
      case '/to-metadata':
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
        return;
      case '/loop':
        res.writeHead(302, { location: '/loop' }).end();
        return;
      case '/video':
        res.setHeader('content-type', 'video/mp4');
        res.end('not really a video');
        return;
      case '/huge':
        res.setHeader('content-type', 'text/plain');
        res.end('x'.repeat(50_000));
        return;
      case '/bad-name':
        res.writeHead(200, {
          'content-type': 'text/plain',
          'content-disposition': "attachment; filename*=UTF-8''%ff%fe.txt",
        });
        res.end('A page whose file name is not UTF-8.');
        return;
      case '/to-bad-path':
        res.writeHead(302, { location: '/a%ff' }).end();
        return;
      case '/a%ff':
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('Reached through a redirect to a path that is not UTF-8.');
        return;
      case '/to-userinfo':
        res.writeHead(302, { location: `http://user:secret@${req.headers.host}/guide` }).end();
        return;
      case '/bad-location':
        res.writeHead(302, { location: 'http://[::1' }).end();
        return;
      case '/slow-no-length': {
        // No Content-Length and no chunks: the body ends where the connection ends.
        res.useChunkedEncodingByDefault = false;
        res.writeHead(200, { 'content-type': 'text/plain', connection: 'close' });
        for (let i = 1; i <= 10; i++) res.write(`Line ${i} of a page that is still being sent.\n`);
        setTimeout(() => res.end('Line 11.\n'), 4000);
        return;
      }
      case '/slow':
        res.setHeader('content-type', 'text/plain');
        res.write('starting...');
        setTimeout(() => res.end('done'), 4000);
        return;
      default:
        res.writeHead(404).end('missing');
    }
  });
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => web.close(() => r())));

describe('URL ingestion with the loopback server allowed', () => {
  let svc: TestService;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    svc = await startTestService({
      env: {
        URL_FETCH_ALLOW_HOSTS: '127.0.0.1/32',
        URL_FETCH_TIMEOUT_SECONDS: '1',
        URL_FETCH_MAX_BYTES: '20000',
      },
    });
    api = client(svc.url, await svc.key());
  });
  afterAll(() => svc?.close());

  it('fetches pages and files, and cites the page by its URL', async () => {
    const r = await api.post('/v1/ingest/urls', {
      urls: [`${base}/guide`, `${base}/tariffs.pdf`, `${base}/moved`],
    });
    expect(r.status).toBe(202);
    expect(
      r.body.documents.map((d: { sourceUrl: string; sizeBytes: number | null }) => [
        d.sourceUrl,
        d.sizeBytes,
      ]),
    ).toEqual([
      [`${base}/guide`, null],
      [`${base}/tariffs.pdf`, null],
      [`${base}/moved`, null],
    ]);
    const done = await api.waitForRun(r.body.run.id);
    expect(done.counts).toMatchObject({ ready: 3, failed: 0 });

    const hit = await api.post('/v1/search', {
      workspaceId: r.body.workspace.id,
      q: 'where do new hires collect laptops',
    });
    // /moved redirects to /guide: two documents with the same page. Search removes the duplicate
    // passage, so one of them answers, cited by the URL it was asked for, and the other not at all.
    const pages = hit.body.results
      .filter((h: { text: string }) => h.text.includes('IT desk'))
      .map((h: { citation: { sourceUrl: string; filename: string; mediaType: string } }) => h.citation);
    expect(pages).toHaveLength(1);
    expect([`${base}/guide`, `${base}/moved`]).toContain(pages[0].sourceUrl);
    expect(pages[0]).toMatchObject({ filename: 'guide.html', mediaType: 'text/html' });
    expect(hit.body.results[0].text).toContain('IT desk on the second floor');
    expect(hit.body.results[0].text).not.toContain('Menu');

    const tariff = await api.post('/v1/search', {
      workspaceId: r.body.workspace.id,
      q: 'standard rate kilowatt hour',
    });
    expect(tariff.body.results[0].citation).toMatchObject({
      filename: 'tariffs.pdf',
      page: 1,
      sourceUrl: `${base}/tariffs.pdf`,
    });

    const docs = (await api.get(`/v1/workspaces/${r.body.workspace.id}/documents`)).body.documents;
    const pdfDoc = docs.find((d: { filename: string }) => d.filename === 'tariffs.pdf');
    expect(pdfDoc).toMatchObject({
      sizeBytes: pdf.length,
      declaredMediaType: 'application/pdf',
      mediaType: 'application/pdf',
    });
  });

  it('fails each bad URL with its own reason while the others in the run succeed', async () => {
    const r = await api.post('/v1/ingest/urls', {
      urls: [
        `${base}/guide`,
        `${base}/nothing`,
        `${base}/to-metadata`,
        `${base}/loop`,
        `${base}/video`,
        `${base}/huge`,
        `${base}/slow`,
        `${base}/slow-no-length`,
      ],
    });
    const done = await api.waitForRun(r.body.run.id);
    expect(done.status).toBe('completed');
    const codes = Object.fromEntries(
      done.documents.map((d: { filename: string; status: string; error: { code: string } | null }) => [
        d.filename,
        d.error?.code ?? d.status,
      ]),
    );
    expect(codes).toEqual({
      'guide.html': 'ready',
      nothing: 'fetch_failed',
      'to-metadata': 'url_forbidden',
      loop: 'too_many_redirects',
      video: 'unsupported_media_type',
      huge: 'file_too_large',
      slow: 'fetch_timeout',
      'slow-no-length': 'fetch_timeout',
    });
  });

  it('takes names that are not valid percent-encoding as sent, and fetches each URL once', async () => {
    const urls = ['/bad-name', '/to-bad-path', '/bad-location'];
    const r = await api.post('/v1/ingest/urls', { urls: urls.map((u) => base + u) });
    const done = await api.waitForRun(r.body.run.id);
    const outcome = done.documents.map(
      (d: { filename: string; status: string; error: { code: string } | null }) => [
        d.filename,
        d.error?.code ?? d.status,
      ],
    );
    expect(Object.fromEntries(outcome)).toEqual({
      '%ff%fe.txt': 'ready',
      'a%ff': 'ready',
      'bad-location': 'fetch_failed',
    });
    for (const path of [...urls, '/a%ff']) expect(hits.get(path), path).toBe(1);
  });

  it('refuses a redirect to a URL with a user name or password, and sends no credentials', async () => {
    const before = hits.get('/guide') ?? 0;
    const r = await api.post('/v1/ingest/urls', { urls: [`${base}/to-userinfo`] });
    const done = await api.waitForRun(r.body.run.id);
    expect(done.documents[0]).toMatchObject({ status: 'failed', error: { code: 'url_forbidden' } });
    expect(hits.get('/guide') ?? 0).toBe(before);
    expect(authorizations).toEqual([]);
  });

  it('refuses to store fetch credentials when no encryption key is configured', async () => {
    const r = await api.post('/v1/ingest/urls', {
      urls: [`${base}/guide`],
      headers: { authorization: 'Bearer x' },
    });
    expect([r.status, r.body.error.code]).toEqual([400, 'encryption_not_configured']);
  });

  it('rejects malformed URLs in the request itself', async () => {
    for (const url of ['ftp://example.com/file', 'http://user:secret@example.com/', 'not a url']) {
      const r = await api.post('/v1/ingest/urls', { urls: [url] });
      expect([r.status, r.body.error.code], url).toEqual([400, 'invalid_request']);
    }
    expect((await api.post('/v1/ingest/urls', { urls: [] })).status).toBe(400);
  });

  it('replays an idempotent URL ingestion and appends to a workspace', async () => {
    const first = await api.post('/v1/ingest/urls', { urls: [`${base}/guide`], idempotencyKey: 'urls-1' });
    const again = await api.post('/v1/ingest/urls', { urls: [`${base}/guide`], idempotencyKey: 'urls-1' });
    expect(again.body.run.id).toBe(first.body.run.id);
    const other = await api.post('/v1/ingest/urls', {
      urls: [`${base}/tariffs.pdf`],
      idempotencyKey: 'urls-1',
    });
    expect(other.status).toBe(409);
    const appended = await api.post('/v1/ingest/urls', {
      urls: [`${base}/tariffs.pdf`],
      workspaceId: first.body.workspace.id,
    });
    expect(appended.body.workspace.id).toBe(first.body.workspace.id);
  });
});

describe('URL ingestion with credentials', () => {
  it("sends stored headers to the URL's origin only, keeps them encrypted, and erases them once fetched", async () => {
    const seen: { server: string; authorization: string | undefined }[] = [];
    const other = http.createServer((req, res) => {
      seen.push({ server: 'other', authorization: req.headers.authorization });
      res.setHeader('content-type', 'text/plain');
      res.end('Elsewhere: public notes about the cafeteria menu.');
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    const otherBase = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    const protectedSite = http.createServer((req, res) => {
      seen.push({ server: 'protected', authorization: req.headers.authorization });
      if (req.headers.authorization !== 'Bearer wiki-token-123') return void res.writeHead(401).end('no');
      if (req.url === '/elsewhere') return void res.writeHead(302, { location: `${otherBase}/notes` }).end();
      res.setHeader('content-type', 'text/plain');
      res.end('Internal wiki: the deploy freeze starts on Thursday at noon.');
    });
    await new Promise<void>((r) => protectedSite.listen(0, '127.0.0.1', r));
    const siteBase = `http://127.0.0.1:${(protectedSite.address() as AddressInfo).port}`;
    const svc = await startTestService({
      worker: false,
      env: { URL_FETCH_ALLOW_HOSTS: '127.0.0.1/32', ENCRYPTION_KEY: 'c0ffee'.repeat(10).padEnd(64, '0') },
    });
    try {
      const api = client(svc.url, await svc.key());
      const r = await api.post('/v1/ingest/urls', {
        urls: [`${siteBase}/wiki`, `${siteBase}/elsewhere`],
        headers: { Authorization: 'Bearer wiki-token-123' },
      });
      expect(r.status).toBe(202);
      expect(JSON.stringify(r.body)).not.toContain('wiki-token-123');
      const stored = await svc.deps.pool.query('SELECT fetch_headers FROM documents WHERE run_id = $1', [
        r.body.run.id,
      ]);
      for (const row of stored.rows) {
        expect(row.fetch_headers).toMatch(/^v1:/);
        expect(row.fetch_headers).not.toContain('wiki-token');
      }
      await svc.startWorker();
      const done = await api.waitForRun(r.body.run.id);
      expect(done.counts.ready).toBe(2);
      expect(
        seen
          .filter((s) => s.server === 'protected')
          .every((s) => s.authorization === 'Bearer wiki-token-123'),
      ).toBe(true);
      expect(seen.filter((s) => s.server === 'other')).toEqual([
        { server: 'other', authorization: undefined },
      ]);
      const after = await svc.deps.pool.query('SELECT fetch_headers FROM documents WHERE run_id = $1', [
        r.body.run.id,
      ]);
      expect(after.rows.map((x) => x.fetch_headers)).toEqual([null, null]);
      const bad = await api.post('/v1/ingest/urls', {
        urls: [`${siteBase}/wiki`],
        headers: { Host: 'evil' },
      });
      expect([bad.status, bad.body.error.code]).toEqual([400, 'invalid_request']);
    } finally {
      await svc.close();
      await new Promise<void>((r) => protectedSite.close(() => r()));
      await new Promise<void>((r) => other.close(() => r()));
    }
  });
});

describe('URL ingestion without an allow-list', () => {
  it('refuses loopback and private addresses, so the same server cannot be reached', async () => {
    const svc = await startTestService();
    try {
      const api = client(svc.url, await svc.key());
      const r = await api.post('/v1/ingest/urls', {
        urls: [
          `${base}/guide`,
          `http://localhost:${new URL(base).port}/guide`,
          'http://10.1.2.3/',
          'http://[::1]/',
        ],
      });
      const done = await api.waitForRun(r.body.run.id);
      expect(done.status).toBe('failed');
      expect(done.failures.map((f: { code: string }) => f.code)).toEqual([
        'url_forbidden',
        'url_forbidden',
        'url_forbidden',
        'url_forbidden',
      ]);
      const localhost = done.failures.find((f: { message: string }) => f.message.includes('//localhost'));
      // Which internal address a name has is not told to the caller.
      expect(localhost.message).toContain('localhost resolves to a private, local or reserved address');
      expect(localhost.message).not.toMatch(/127\.0\.0\.1|::1/);
      expect(
        done.failures.every((f: { message: string }) => f.message.includes('URL_FETCH_ALLOW_HOSTS')),
      ).toBe(true);
    } finally {
      await svc.close();
    }
  });
});
