import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/http.js';
import { multipartBody, postHead, rawRequest } from '../support/raw-http.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * Malformed input of every kind answers a 4xx with a specific code, never `500 internal_error`
 * (issue 15, low 6), and the service keeps serving.
 */
let svc: TestService;
let key: string;
let api: ReturnType<typeof client>;
let port: number;
let workspaceId: string;
let documentId: string;

beforeAll(async () => {
  svc = await startTestService();
  key = await svc.key();
  api = client(svc.url, key);
  port = Number(new URL(svc.url).port);
  const up = await api.upload([{ name: 'notes.md', content: '# Notes\n\nThe meeting is on Tuesday.' }], {
    metadata: JSON.stringify({ team: 'hr' }),
  });
  workspaceId = up.body.workspace.id;
  documentId = up.body.documents[0].id;
  await api.waitForRun(up.body.run.id);
});
afterAll(async () => {
  await svc?.close();
});

const code = (r: { status: number; body: { error?: { code: string } } }) => [r.status, r.body.error?.code];

/** A JSON body written by hand, so that it can hold what JSON.stringify would not produce. */
async function postRaw(path: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(svc.url + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string } } };
}

describe('a NUL character in any string that would reach the database', () => {
  it.each([
    ['workspaceId', '/v1/search', { workspaceId: 'ws_\u0000', q: 'meeting' }],
    [
      'a filename filter',
      '/v1/search',
      { workspaceId: '', q: 'meeting', filters: { filenames: ['a\u0000'] } },
    ],
    [
      'a metadata filter value',
      '/v1/search',
      { workspaceId: '', q: 'x', filters: { metadata: { team: 'h\u0000r' } } },
    ],
    [
      'a metadata filter key',
      '/v1/search/chat',
      { workspaceId: '', q: 'x', filters: { metadata: { 't\u0000': 'hr' } } },
    ],
    [
      'URL ingestion metadata',
      '/v1/ingest/urls',
      { urls: ['https://example.com/'], metadata: { note: 'a\u0000b' } },
    ],
    ['an idempotency key', '/v1/ingest/urls', { urls: ['https://example.com/'], idempotencyKey: 'k\u0000' }],
  ])('%s', async (_name, path, body) => {
    const withWorkspace = JSON.parse(
      JSON.stringify(body).replace('"workspaceId":""', `"workspaceId":"${workspaceId}"`),
    );
    const r = await api.post(path, withWorkspace);
    expect(code(r)).toEqual([400, 'invalid_characters']);
    expect(r.body.error.message).toMatch(/NUL/);
  });

  it('in an id in the path, and in the sign-in email (no key needed there)', async () => {
    expect(code(await api.get('/v1/documents/doc_%00'))).toEqual([400, 'invalid_characters']);
    expect(code(await api.get(`/v1/workspaces/${workspaceId}%00/documents`))).toEqual([
      400,
      'invalid_characters',
    ]);
    const signIn = await fetch(`${svc.url}/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'a\u0000@example.com', password: 'whatever it is' }),
    });
    expect([signIn.status, ((await signIn.json()) as { error: { code: string } }).error.code]).toEqual([
      400,
      'invalid_characters',
    ]);
  });

  it('in an upload field', async () => {
    for (const fields of [
      { workspaceId: `${workspaceId}\u0000` },
      { metadata: '{"a":"\\u0000"}' },
      { idempotencyKey: 'k\u0000' },
    ]) {
      const r = await api.upload([{ name: 'a.txt', content: 'text' }], fields);
      expect(code(r), JSON.stringify(fields)).toEqual([400, 'invalid_characters']);
    }
  });
});

describe('JSON nested deeper than any request needs', () => {
  const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

  it('in URL ingestion metadata and in a metadata filter', async () => {
    for (const levels of [100, 100_000]) {
      const urls = await postRaw(
        '/v1/ingest/urls',
        `{"urls":["https://example.com/"],"metadata":${deep(levels)}}`,
      );
      expect(code(urls), String(levels)).toEqual([400, 'too_deeply_nested']);
      const search = await postRaw(
        '/v1/search',
        `{"workspaceId":"${workspaceId}","q":"x","filters":{"metadata":{"team":${deep(levels)}}}}`,
      );
      expect(code(search), String(levels)).toEqual([400, 'too_deeply_nested']);
    }
    // 20 levels are fine.
    const ok = await postRaw('/v1/ingest/urls', `{"urls":["https://example.com/"],"metadata":${deep(20)}}`);
    expect(ok.status).toBe(202);
  });

  it('in the metadata field of an upload', async () => {
    const r = await api.upload([{ name: 'a.txt', content: 'text' }], { metadata: deep(10_000) });
    expect(code(r)).toEqual([400, 'too_deeply_nested']);
  });
});

describe('other malformed input', () => {
  it('a URL whose path is not valid percent-encoding is ingested, its name kept as sent', async () => {
    const r = await api.post('/v1/ingest/urls', { urls: ['https://example.com/files/%zz%ff'] });
    expect(r.status).toBe(202);
    expect(r.body.documents[0].filename).toBe('%zz%ff');
  });

  it('a document id filter that is no id', async () => {
    const r = await api.post('/v1/search', {
      workspaceId,
      q: 'meeting',
      filters: { documentIds: ["doc_x' OR '1'='1"] },
    });
    expect(code(r)).toEqual([400, 'invalid_request']);
    expect(r.body.error.message).toContain('filters.documentIds');
  });

  it('multipart without a boundary, or with a body that is no multipart at all', async () => {
    const noBoundary = await fetch(`${svc.url}/v1/ingest/bulk`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'multipart/form-data' },
      body: 'whatever',
    });
    expect([
      noBoundary.status,
      ((await noBoundary.json()) as { error: { code: string } }).error.code,
    ]).toEqual([400, 'malformed_multipart']);
    const garbage = Buffer.from('\u0000\u0001 this is not multipart at all \r\n\r\n--nope');
    const a = await rawRequest(
      port,
      Buffer.concat([
        Buffer.from(
          postHead('/v1/ingest/bulk', {
            authorization: `Bearer ${key}`,
            'content-type': 'multipart/form-data; boundary=XyZ',
            'content-length': String(garbage.length),
          }),
        ),
        garbage,
      ]),
    );
    expect([a.status, JSON.parse(a.body).error.code]).toEqual([400, 'malformed_multipart']);
  });

  it('a declared content type with control characters is not stored, nor sent as a header', async () => {
    const boundary = 'ctl';
    const body = multipartBody(boundary, [
      {
        name: 'files',
        filename: 'blob.bin',
        type: 'application/x-thing\u0001\u0002',
        content: Buffer.from('Plain words.\n'),
      },
    ]);
    const up = await rawRequest(
      port,
      Buffer.concat([
        Buffer.from(
          postHead('/v1/ingest/bulk', {
            authorization: `Bearer ${key}`,
            'content-type': `multipart/form-data; boundary=${boundary}`,
            'content-length': String(body.length),
          }),
        ),
        body,
      ]),
    );
    expect(up.status).toBe(202);
    const doc = JSON.parse(up.body).documents[0];
    expect(doc.declaredMediaType).toBeNull();
    // A value stored before this check existed must not break the download either.
    const db = new pg.Client({ connectionString: svc.dbs.urls.service });
    await db.connect();
    await db.query('UPDATE documents SET declared_media_type = $1, media_type = NULL WHERE id = $2', [
      'text/plain\u0001\r\nx-injected: 1',
      documentId,
    ]);
    await db.end();
    const content = await fetch(`${svc.url}/v1/documents/${documentId}/content`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(content.status).toBe(200);
    expect(content.headers.get('content-type')).toBe('application/octet-stream');
    expect(content.headers.get('x-injected')).toBeNull();
  });
});

describe('metadata filters with very many values', () => {
  it('answers 400 too_many_filter_values, not a database failure, and still serves filters within the caps', async () => {
    const many = Array.from({ length: 70_000 }, (_, i) => `v${i}`);
    for (const path of ['/v1/search', '/v1/search/chat']) {
      const r = await api.post(path, { workspaceId, q: 'meeting', filters: { metadata: { team: many } } });
      expect(code(r), path).toEqual([400, 'too_many_filter_values']);
    }
    const perKey = await api.post('/v1/search', {
      workspaceId,
      q: 'meeting',
      filters: { metadata: { team: many.slice(0, 101) } },
    });
    expect(code(perKey)).toEqual([400, 'too_many_filter_values']);
    const spread = Object.fromEntries(Array.from({ length: 11 }, (_, k) => [`k${k}`, many.slice(0, 100)]));
    const total = await api.post('/v1/search', { workspaceId, q: 'meeting', filters: { metadata: spread } });
    expect(code(total)).toEqual([400, 'too_many_filter_values']);
    const within = await api.post('/v1/search', {
      workspaceId,
      q: 'meeting',
      filters: { metadata: { team: [...many.slice(0, 99), 'hr'] } },
    });
    expect(within.status).toBe(200);
    expect(within.body.results[0].citation.documentId).toBe(documentId);
    expect((await api.get('/ready')).body.checks.database.ok).toBe(true);
  });
});

describe('upload form fields over their limits', () => {
  it('more than 20 fields: 413 too_many_fields', async () => {
    const fields = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`extra${i}`, 'x']));
    const r = await api.upload([{ name: 'a.txt', content: 'text' }], fields);
    expect(code(r)).toEqual([413, 'too_many_fields']);
    expect(r.body.error.message).toContain('at most 20 form fields');
  });

  it('a metadata field over 64 KiB: 413 field_too_large, not "must be a JSON object"', async () => {
    const metadata = JSON.stringify({ note: 'n'.repeat(70 * 1024) });
    const r = await api.upload([{ name: 'a.txt', content: 'text' }], { metadata });
    expect(code(r)).toEqual([413, 'field_too_large']);
    expect(r.body.error.message).toContain('"metadata"');
  });
});
