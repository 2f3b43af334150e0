// Over 400 lines: the public API end to end against one running service (one start for all, since a
// start costs seconds); each describe block is one endpoint family.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDocx, makePdf } from '../support/fixtures.js';
import { client } from '../support/http.js';
import { startTestService, type TestService } from '../support/service.js';

let svc: TestService;
let key: string;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  svc = await startTestService({ env: { UPLOAD_MAX_FILE_BYTES: String(200 * 1024) } });
  key = await svc.key();
  api = client(svc.url, key);
});
afterAll(() => svc?.close());

const handbook = makePdf([
  'Employee handbook. Welcome to the company.',
  'Vacation policy: every employee receives 25 days of paid vacation per year. Unused days expire in March.',
]);
const security = makeDocx([
  '# Security',
  'Badges must be worn at all times inside the building.',
  '## Visitors',
  'Visitors sign the front desk log.',
]);
const notes = '# Kitchen\n\nThe coffee machine is descaled every Friday by the facilities team.\n';
/** An OLE compound file that is no Word, Excel or PowerPoint file (as an Outlook .msg): refused when parsed. */
const OUTLOOK_MSG = Buffer.concat([
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]),
  Buffer.alloc(500),
]);

describe('upload, process, search and answer', () => {
  let workspaceId: string;
  let runId: string;

  it('creates a workspace and a run for a new upload', async () => {
    const r = await api.upload([
      { name: 'handbook.pdf', content: handbook, type: 'application/pdf' },
      { name: 'security.docx', content: security },
      { name: 'kitchen.md', content: notes, type: 'text/markdown' },
    ]);
    expect(r.status).toBe(202);
    expect(r.body.workspace.id).toMatch(/^ws_/);
    expect(r.body.run).toMatchObject({ status: 'processing', workspaceId: r.body.workspace.id });
    expect(r.body.run.counts.total).toBe(3);
    expect(r.body.documents.map((d: { filename: string; status: string }) => [d.filename, d.status])).toEqual(
      [
        ['handbook.pdf', 'queued'],
        ['security.docx', 'queued'],
        ['kitchen.md', 'queued'],
      ],
    );
    workspaceId = r.body.workspace.id;
    runId = r.body.run.id;
  });

  it('completes the run with every document ready', async () => {
    const progress = await api.waitForRun(runId);
    expect(progress).toMatchObject({ status: 'completed', progress: 1, done: true });
    expect(progress.counts).toMatchObject({ total: 3, ready: 3, failed: 0 });
    expect(
      progress.documents.every(
        (d: { status: string; stage: string }) => d.status === 'ready' && d.stage === 'done',
      ),
    ).toBe(true);
    const run = await api.get(`/v1/runs/${runId}`);
    expect(run.body).toMatchObject({ id: runId, status: 'completed', failures: [] });
    expect(run.body.finishedAt).not.toBeNull();
  });

  it('finds passages with citations that name the file and the page', async () => {
    const r = await api.post('/v1/search', { workspaceId, q: 'how many vacation days', topK: 3 });
    expect(r.status).toBe(200);
    const top = r.body.results[0];
    expect(top.text).toContain('25 days of paid vacation');
    expect(top.citation).toMatchObject({ filename: 'handbook.pdf', page: 2, mediaType: 'application/pdf' });
    expect(top.citation.chunkId).toMatch(new RegExp(`^${top.citation.documentId}:`));
    // Citation offsets point into the document's extracted text.
    const text = await api.get(`/v1/documents/${top.citation.documentId}/text`);
    expect(text.headers.get('content-type')).toMatch(/^text\/markdown/);
    expect(text.body.slice(top.citation.charStart, top.citation.charEnd)).toBe(top.text);
    expect(text.body).toContain('<!-- page 2 -->');
  });

  it('also searches with GET and keeps the heading path of DOCX sections', async () => {
    const r = await api.get(
      `/v1/search?workspaceId=${workspaceId}&q=${encodeURIComponent('visitors log')}&topK=2`,
    );
    expect(r.status).toBe(200);
    const top = r.body.results[0];
    expect(top.citation.filename).toBe('security.docx');
    expect(top.citation.page).toBeNull();
    expect(top.text).toContain('Visitors sign the front desk log.');
  });

  it('answers a question from the passages, with resolvable citation markers', async () => {
    const r = await api.post('/v1/search/chat', {
      workspaceId,
      q: 'How many days of paid vacation does an employee get?',
    });
    expect(r.status).toBe(200);
    expect(r.body.answer).toContain('25 days of paid vacation');
    const markers = [...r.body.answer.matchAll(/\[(\d+)\]/g)].map((m: RegExpMatchArray) => Number(m[1]));
    expect(markers.length).toBeGreaterThan(0);
    for (const n of markers) expect(r.body.citations.some((c: { n: number }) => c.n === n)).toBe(true);
    expect(r.body.citations[0]).toMatchObject({ filename: 'handbook.pdf', page: 2 });
  });

  it('says it cannot answer when the workspace does not cover the question', async () => {
    const r = await api.post('/v1/search/chat', { workspaceId, q: 'What is the capital of Australia?' });
    expect(r.status).toBe(200);
    expect(r.body.citations).toEqual([]);
    expect(r.body.answer).toMatch(/could not find/i);
  });

  it('appends to an existing workspace with workspaceId, in a new run', async () => {
    const r = await api.upload(
      [{ name: 'parking.txt', content: 'Parking spaces are assigned by the office manager.' }],
      {
        workspaceId,
      },
    );
    expect(r.status).toBe(202);
    expect(r.body.workspace.id).toBe(workspaceId);
    expect(r.body.run.id).not.toBe(runId);
    await api.waitForRun(r.body.run.id);
    const found = await api.post('/v1/search', { workspaceId, q: 'who assigns parking spaces' });
    expect(found.body.results[0].citation.filename).toBe('parking.txt');
    const docs = await api.get(`/v1/workspaces/${workspaceId}/documents`);
    expect(docs.body.documents).toHaveLength(4);
  });

  it('reports availability: what search covers now', async () => {
    const r = await api.get(`/v1/workspaces/${workspaceId}/availability`);
    expect(r.status).toBe(200);
    expect(r.body.complete).toBe(true);
    expect(r.body.searchable).toHaveLength(4);
    expect(r.body.pending).toEqual([]);
  });

  it('serves the original bytes and the document record', async () => {
    const docs = (await api.get(`/v1/workspaces/${workspaceId}/documents`)).body.documents;
    const pdf = docs.find((d: { filename: string }) => d.filename === 'handbook.pdf');
    expect(pdf).toMatchObject({
      status: 'ready',
      mediaType: 'application/pdf',
      pageCount: 2,
      sizeBytes: handbook.length,
    });
    const res = await fetch(`${svc.url}/v1/documents/${pdf.id}/content`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(handbook)).toBe(true);
    expect(res.headers.get('content-disposition')).toContain('handbook.pdf');
  });

  it('removes a deleted document from search at once', async () => {
    const before = await api.post('/v1/search', { workspaceId, q: 'coffee machine descaled' });
    const docId = before.body.results[0].citation.documentId;
    expect(before.body.results[0].citation.filename).toBe('kitchen.md');
    const del = await api.delete(`/v1/documents/${docId}`);
    expect(del.status).toBe(200);
    expect(del.body.status).toBe('deleted');
    const after = await api.post('/v1/search', { workspaceId, q: 'coffee machine descaled' });
    expect(
      after.body.results.some((h: { citation: { documentId: string } }) => h.citation.documentId === docId),
    ).toBe(false);
    expect((await api.get(`/v1/documents/${docId}`)).status).toBe(404);
    expect(await svc.deps.index.countDocumentRows(workspaceId, docId)).toBe(0);
  });
});

describe('idempotent uploads', () => {
  it('replays the same records for the same key and content, and creates nothing new', async () => {
    const files = [{ name: 'a.txt', content: 'Idempotency keeps retries safe.' }];
    const first = await api.upload(files, { idempotencyKey: 'upload-1' });
    const second = await api.upload(files, { idempotencyKey: 'upload-1' });
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.workspace.id).toBe(first.body.workspace.id);
    expect(second.body.run.id).toBe(first.body.run.id);
    expect(second.body.documents.map((d: { id: string }) => d.id)).toEqual(
      first.body.documents.map((d: { id: string }) => d.id),
    );
    const ws = await api.get('/v1/workspaces');
    expect(ws.body.workspaces.filter((w: { id: string }) => w.id === first.body.workspace.id)).toHaveLength(
      1,
    );
    const docs = await api.get(`/v1/workspaces/${first.body.workspace.id}/documents`);
    expect(docs.body.documents).toHaveLength(1);
  });

  it('answers 409 when the same key comes with different content', async () => {
    await api.upload([{ name: 'b.txt', content: 'one' }], { idempotencyKey: 'upload-2' });
    const r = await api.upload([{ name: 'b.txt', content: 'two' }], { idempotencyKey: 'upload-2' });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('idempotency_conflict');
  });

  it('replays concurrent requests with one key as one upload', async () => {
    const files = [{ name: 'c.txt', content: 'Concurrent duplicates.' }];
    const results = await Promise.all([1, 2, 3].map(() => api.upload(files, { idempotencyKey: 'upload-3' })));
    expect(results.map((r) => r.status)).toEqual([202, 202, 202]);
    expect(new Set(results.map((r) => r.body.run.id)).size).toBe(1);
  });
});

describe('failures stay with their document', () => {
  it('fails a corrupt or unsupported file with a reason while the rest of the run completes', async () => {
    // Files that pass the upload's check (their first bytes name a format) and fail when parsed.
    const r = await api.upload([
      { name: 'good.md', content: '# Fine\n\nThis document is fine.' },
      { name: 'broken.pdf', content: Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2000, 7)]) },
      { name: 'mail.msg', content: OUTLOOK_MSG },
      { name: 'empty.txt', content: ' \n\n ' },
    ]);
    const progress = await api.waitForRun(r.body.run.id);
    expect(progress.status).toBe('completed');
    const byName = Object.fromEntries(
      progress.documents.map((d: { filename: string; status: string; error: { code: string } | null }) => [
        d.filename,
        [d.status, d.error?.code],
      ]),
    );
    expect(byName).toEqual({
      'good.md': ['ready', undefined],
      'broken.pdf': ['failed', 'corrupt_document'],
      'mail.msg': ['failed', 'unsupported_media_type'],
      'empty.txt': ['failed', 'empty_document'],
    });
    expect(progress.counts).toMatchObject({ ready: 1, failed: 3 });
    expect(progress.failures.map((f: { filename: string }) => f.filename).sort()).toEqual([
      'broken.pdf',
      'empty.txt',
      'mail.msg',
    ]);
    expect(progress.failures.every((f: { message: string }) => f.message.length > 10)).toBe(true);
  });

  it('marks the run failed when no document could be processed', async () => {
    const r = await api.upload([{ name: 'x.msg', content: OUTLOOK_MSG }]);
    const progress = await api.waitForRun(r.body.run.id);
    expect(progress.status).toBe('failed');
    expect(progress.failures[0].code).toBe('unsupported_media_type');
  });
});

describe('request errors', () => {
  it('answers 415 naming each file no worker can read, with the formats it reads, and keeps nothing', async () => {
    const before = (await api.get('/v1/workspaces')).body.workspaces.length;
    const originals = () => readdir(path.join(svc.dataDir, 'objects', 'raw')).catch(() => []);
    const rawBefore = (await originals()).length;
    const r = await api.upload([
      { name: 'good.md', content: '# Fine\n\nThis document is fine.' },
      { name: 'archive.zip', content: Buffer.from('PK\x05\x06' + '\0'.repeat(18)) },
      { name: 'empty.txt', content: '' },
      { name: 'x.bin', content: Buffer.from([0, 1, 2, 3, 0, 0, 0, 9]) },
    ]);
    expect(r.status).toBe(415);
    expect(r.body.error).toMatchObject({
      code: 'unsupported_file_format',
      requestId: r.headers.get('x-request-id'),
      files: [
        {
          index: 1,
          filename: 'archive.zip',
          code: 'unsupported_media_type',
          reason: expect.stringMatching(/zip archive/),
        },
        { index: 2, filename: 'empty.txt', code: 'empty_document', reason: 'the file is empty' },
        {
          index: 3,
          filename: 'x.bin',
          code: 'unsupported_media_type',
          reason: expect.stringMatching(/binary/),
        },
      ],
    });
    const formats = (await client(svc.url).get('/v1/formats')).body;
    expect(r.body.error.supportedFormats).toEqual(formats.formats.map((f: { name: string }) => f.name));
    expect(r.body.error.message).toContain('nothing was uploaded');
    expect((await api.get('/v1/workspaces')).body.workspaces).toHaveLength(before);
    expect(await originals()).toHaveLength(rawBefore);
  });

  it('answers 413 for a file over the per-file limit and keeps nothing of the upload', async () => {
    const before = (await api.get('/v1/workspaces')).body.workspaces.length;
    const r = await api.upload([
      { name: 'small.txt', content: 'small' },
      { name: 'big.txt', content: 'x'.repeat(300 * 1024) },
    ]);
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe('file_too_large');
    expect(r.body.error.message).toContain('big.txt');
    expect((await api.get('/v1/workspaces')).body.workspaces.length).toBe(before);
  });

  it('rejects uploads without files, with unknown workspaces or bad metadata', async () => {
    const noFiles = await api.upload([]);
    expect([noFiles.status, noFiles.body.error.code]).toEqual([400, 'no_files']);
    const unknownWs = await api.upload([{ name: 'a.txt', content: 'a' }], { workspaceId: 'ws_doesnotexist' });
    expect([unknownWs.status, unknownWs.body.error.code]).toEqual([404, 'workspace_not_found']);
    const meta = await api.upload([{ name: 'a.txt', content: 'a' }], { metadata: '[1,2]' });
    expect([meta.status, meta.body.error.code]).toEqual([400, 'invalid_request']);
    const json = await fetch(`${svc.url}/v1/ingest/bulk`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(json.status).toBe(415);
  });

  it('answers 413 when an upload has more files than allowed', async () => {
    const small = await startTestService({ worker: false, env: { UPLOAD_MAX_FILES: '2' } });
    try {
      const c = client(small.url, await small.key());
      const r = await c.upload([1, 2, 3].map((i) => ({ name: `${i}.txt`, content: `file ${i}` })));
      expect([r.status, r.body.error.code]).toEqual([413, 'too_many_files']);
      expect((await c.get('/v1/workspaces')).body.workspaces).toEqual([]);
      expect((await c.upload([1, 2].map((i) => ({ name: `${i}.txt`, content: `file ${i}` })))).status).toBe(
        202,
      );
    } finally {
      await small.close();
    }
  });

  it('answers 413 for a JSON body over the limit', async () => {
    const r = await api.post('/v1/search', { workspaceId: 'ws_x', q: 'x', pad: 'y'.repeat(2 * 1024 * 1024) });
    expect([r.status, r.body.error.code]).toEqual([413, 'payload_too_large']);
  });

  it('stores upload metadata on every document', async () => {
    const r = await api.upload([{ name: 'm.txt', content: 'metadata' }], {
      metadata: '{"team":"legal","year":2024}',
    });
    expect(r.body.documents[0].metadata).toEqual({ team: 'legal', year: 2024 });
  });

  it('gives every error the same JSON shape with a request id', async () => {
    const cases = [
      await api.post('/v1/search', { workspaceId: 'ws_x' }),
      await api.get('/v1/nothing-here'),
      await client(svc.url).get('/v1/runs/run_x'),
      await api.post('/v1/search', { workspaceId: 'ws_x', q: 'q'.repeat(5000) }),
    ];
    expect(cases.map((c) => [c.status, c.body.error.code])).toEqual([
      [400, 'invalid_request'],
      [404, 'route_not_found'],
      [401, 'missing_api_key'],
      [400, 'query_too_long'],
    ]);
    for (const c of cases) {
      expect(c.body.error.requestId).toBe(c.headers.get('x-request-id'));
      expect(c.body.error.message.length).toBeGreaterThan(0);
    }
    const bad = await fetch(`${svc.url}/v1/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{"workspaceId":',
    });
    expect([bad.status, ((await bad.json()) as { error: { code: string } }).error.code]).toEqual([
      400,
      'invalid_json',
    ]);
  });
});

describe('keys, scopes and accounts', () => {
  let workspaceId: string;
  let runId: string;
  let documentId: string;

  beforeAll(async () => {
    const r = await api.upload([{ name: 'secret.txt', content: 'The launch code is in the blue folder.' }]);
    workspaceId = r.body.workspace.id;
    runId = r.body.run.id;
    documentId = r.body.documents[0].id;
    await api.waitForRun(runId);
  });

  it('answers 403 when the key lacks the scope the endpoint needs', async () => {
    const searchOnly = client(svc.url, await svc.key(['search']));
    expect((await searchOnly.upload([{ name: 'a.txt', content: 'a' }])).status).toBe(403);
    expect((await searchOnly.get(`/v1/documents/${documentId}`)).status).toBe(403);
    expect((await searchOnly.post('/v1/search', { workspaceId, q: 'launch code' })).status).toBe(200);
    const ingestOnly = client(svc.url, await svc.key(['ingest']));
    const denied = await ingestOnly.post('/v1/search', { workspaceId, q: 'launch code' });
    expect([denied.status, denied.body.error.code]).toEqual([403, 'insufficient_scope']);
    expect((await ingestOnly.get(`/v1/runs/${runId}`)).status).toBe(200);
    const artifactsOnly = client(svc.url, await svc.key(['artifacts']));
    expect((await artifactsOnly.get(`/v1/documents/${documentId}/text`)).status).toBe(200);
    expect((await artifactsOnly.delete(`/v1/documents/${documentId}`)).status).toBe(403);
  });

  it("answers 404 for another account's workspace, run and document, as if they did not exist", async () => {
    const other = client(svc.url, await svc.key(['ingest', 'search', 'artifacts'], 'other-tenant'));
    const attempts = [
      await other.post('/v1/search', { workspaceId, q: 'launch code' }),
      await other.post('/v1/search/chat', { workspaceId, q: 'launch code' }),
      await other.get(`/v1/runs/${runId}`),
      await other.get(`/v1/runs/${runId}/progress`),
      await other.post(`/v1/runs/${runId}/cancel`),
      await other.get(`/v1/documents/${documentId}`),
      await other.get(`/v1/documents/${documentId}/text`),
      await other.get(`/v1/documents/${documentId}/content`),
      await other.delete(`/v1/documents/${documentId}`),
      await other.get(`/v1/workspaces/${workspaceId}/documents`),
      await other.get(`/v1/workspaces/${workspaceId}/availability`),
      await other.upload([{ name: 'a.txt', content: 'a' }], { workspaceId }),
    ];
    expect(attempts.map((a) => a.status)).toEqual(Array(attempts.length).fill(404));
    // The answer for someone else's resource is the one for a resource that never existed.
    const missing = await other.get('/v1/documents/doc_0000000000000000000000000');
    expect(attempts[5]!.body.error.code).toBe(missing.body.error.code);
    expect((await other.get('/v1/workspaces')).body.workspaces).toEqual([]);
    // And the owner still has everything.
    expect((await api.get(`/v1/documents/${documentId}`)).status).toBe(200);
  });

  it('answers 401 for a revoked key', async () => {
    const secret = await svc.key(['search']);
    const c = client(svc.url, secret);
    expect((await c.post('/v1/search', { workspaceId, q: 'x' })).status).toBe(200);
    const { hashApiKey } = await import('../../src/domain/keys.js');
    const rec = await svc.deps.accounts.findApiKeyByHash(hashApiKey(secret));
    await svc.deps.accounts.revokeApiKey(rec!.id, undefined);
    const r = await c.post('/v1/search', { workspaceId, q: 'x' });
    expect([r.status, r.body.error.code]).toEqual([401, 'invalid_api_key']);
  });
});

describe('streaming chat', () => {
  it('streams the answer as deltas, then citations, then done', async () => {
    const up = await api.upload([
      {
        name: 'fleet.md',
        content:
          'The delivery vans are serviced every 10000 kilometres. Tyres [winter] are changed in November.',
      },
    ]);
    await api.waitForRun(up.body.run.id);
    const res = await fetch(`${svc.url}/v1/search/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        workspaceId: up.body.workspace.id,
        q: 'When are the vans serviced and tyres changed?',
        stream: true,
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await res.text())
      .trim()
      .split('\n\n')
      .map((block) => {
        const [eventLine, dataLine] = block.split('\n');
        return {
          event: eventLine!.replace('event: ', ''),
          data: JSON.parse(dataLine!.replace('data: ', '')),
        };
      });
    const names = events.map((e) => e.event);
    expect(names.at(-2)).toBe('citations');
    expect(names.at(-1)).toBe('done');
    expect(names.slice(0, -2).every((n) => n === 'delta')).toBe(true);
    const done = events.at(-1)!.data;
    expect(
      events
        .filter((e) => e.event === 'delta')
        .map((e) => e.data.text)
        .join(''),
    ).toBe(done.answer);
    expect(done.answer).toContain('Tyres [winter] are changed in November.');
    expect(events.at(-2)!.data.citations).toEqual(done.citations);
  });

  it('answers errors before the stream starts with a normal JSON error', async () => {
    const r = await api.post('/v1/search/chat', { workspaceId: 'ws_unknown', q: 'x', stream: true });
    expect([r.status, r.body.error.code]).toEqual([404, 'workspace_not_found']);
  });
});
