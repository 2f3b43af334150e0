// Over 400 lines: the client against one real server (a start costs seconds, so one for all); each
// describe block is one family of calls.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  createDocSlurpClient,
  type DocSlurpClient,
  type FetchLike,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RunCancelledError,
  RunFailedError,
  RunPausedError,
  type RunProgress,
  UnsupportedMediaTypeError,
  type UploadResult,
} from '../../src/index.js';
import { type RunningServer, startServer } from '../support/server.js';

const handbook = [
  '# Employee handbook',
  '',
  '## Vacation',
  '',
  'Every employee receives 25 days of paid vacation per year. Unused days expire at the end of March.',
  '',
  '## Equipment',
  '',
  'Laptops are replaced every three years by the IT department.',
  '',
].join('\n');
const kitchen = 'The coffee machine in the kitchen is descaled every Friday by the facilities team.\n';
const MAX_FILE_BYTES = 256 * 1024;

let server: RunningServer;
let client: DocSlurpClient;

beforeAll(async () => {
  server = await startServer({ UPLOAD_MAX_FILE_BYTES: String(MAX_FILE_BYTES) });
  client = createDocSlurpClient({ apiUrl: server.url, apiKey: server.apiKey });
});
afterAll(() => server?.stop());

/** A fetch that lets the request reach the server, then loses the answer, as a dropped connection does. */
function losingFirstAnswer() {
  let calls = 0;
  const fetchLike: FetchLike = async (url, init) => {
    calls++;
    const response = await fetch(url, init);
    if (calls === 1) {
      await response.arrayBuffer();
      throw new TypeError('fetch failed', { cause: new Error('socket hang up') });
    }
    return response;
  };
  return { fetch: fetchLike, calls: () => calls };
}

describe('upload → wait → search → chat → documents → delete, against the real server', () => {
  let upload: UploadResult;
  let progress: RunProgress;
  const handbookBytes = new TextEncoder().encode(handbook);

  it('uploads files into a new workspace and starts a run', async () => {
    upload = await client.upload({
      files: [
        { filename: 'handbook.md', data: handbookBytes, contentType: 'text/markdown' },
        { filename: 'kitchen.txt', data: new Blob([kitchen], { type: 'text/plain' }) },
      ],
      idempotencyKey: 'sdk-integration-1',
      metadata: { team: 'people-ops' },
    });
    expect(upload.workspace.id).toMatch(/^ws_/);
    expect(upload.run).toMatchObject({ workspaceId: upload.workspace.id, status: 'processing' });
    expect(upload.documents.map((d) => [d.filename, d.status, d.declaredMediaType, d.metadata])).toEqual([
      ['handbook.md', 'queued', 'text/markdown', { team: 'people-ops' }],
      ['kitchen.txt', 'queued', 'text/plain', { team: 'people-ops' }],
    ]);
  });

  it('waitForRun resolves with the completed run', async () => {
    const seen: RunProgress[] = [];
    progress = await client.waitForRun(upload.run.id, { timeoutMs: 60_000, onProgress: (p) => seen.push(p) });
    expect(progress).toMatchObject({ id: upload.run.id, status: 'completed', done: true, progress: 1 });
    expect(progress.documents.map((d) => [d.filename, d.status, d.stage])).toEqual([
      ['handbook.md', 'ready', 'done'],
      ['kitchen.txt', 'ready', 'done'],
    ]);
    expect(seen.at(-1)).toEqual(progress);
    const run = await client.getRun(upload.run.id);
    expect(run).toMatchObject({ id: upload.run.id, status: 'completed', failures: [] });
    expect(run.counts).toMatchObject({ total: 2, ready: 2 });
    expect(await client.getRunProgress(upload.run.id)).toMatchObject({ status: 'completed', progress: 1 });
  });

  it('search returns passages whose citations point into the document text', async () => {
    const { results } = await client.search({
      workspaceId: upload.workspace.id,
      q: 'paid vacation days',
      topK: 3,
    });
    expect(results.length).toBeGreaterThan(0);
    const top = results[0]!;
    expect(top.text).toContain('25 days of paid vacation');
    expect(top.citation).toMatchObject({ filename: 'handbook.md', documentId: upload.documents[0]!.id });
    const text = await client.getDocumentText(top.citation.documentId);
    expect(text.slice(top.citation.charStart, top.citation.charEnd)).toBe(top.text);
  });

  it('search honours filters.documentIds', async () => {
    const kitchenId = upload.documents[1]!.id;
    const { results } = await client.search({
      workspaceId: upload.workspace.id,
      q: 'coffee vacation laptops',
      filters: { documentIds: [kitchenId] },
    });
    expect(results.length).toBeGreaterThan(0);
    expect(results.every((r) => r.citation.documentId === kitchenId)).toBe(true);
  });

  it('chat answers with citations, and streaming chat gives the same answer in deltas', async () => {
    const q = 'How many days of paid vacation does an employee get?';
    const plain = await client.chat({ workspaceId: upload.workspace.id, q });
    expect(plain.answer).toContain('25 days of paid vacation');
    const markers = [...plain.answer.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    expect(markers.length).toBeGreaterThan(0);
    for (const n of markers) expect(plain.citations.some((c) => c.n === n)).toBe(true);
    expect(plain.citations[0]).toMatchObject({ filename: 'handbook.md' });

    const stream = await client.chat({ workspaceId: upload.workspace.id, q, stream: true });
    const deltas: string[] = [];
    for await (const delta of stream) deltas.push(delta.text);
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.join('')).toBe(plain.answer);
    expect(stream.answer).toBe(plain.answer);
    expect(stream.citations).toEqual(plain.citations);
    expect(stream.requestId).toMatch(/^sdk_/);
  });

  it('reads workspaces, documents, availability, text and original bytes', async () => {
    const ws = upload.workspace.id;
    const { workspaces } = await client.listWorkspaces();
    expect(workspaces.find((w) => w.id === ws)?.counts).toMatchObject({ total: 2, ready: 2 });
    expect(await client.getWorkspace(ws)).toMatchObject({ id: ws });
    const { documents } = await client.listDocuments(ws);
    expect(documents.map((d) => d.filename).sort()).toEqual(['handbook.md', 'kitchen.txt']);
    const doc = await client.getDocument(upload.documents[0]!.id);
    expect(doc).toMatchObject({
      status: 'ready',
      sizeBytes: handbookBytes.length,
      metadata: { team: 'people-ops' },
    });
    const content = await client.getDocumentContent(doc.id);
    expect(new Uint8Array(await content.arrayBuffer())).toEqual(handbookBytes);
    expect(await client.getDocumentText(upload.documents[1]!.id)).toContain('descaled every Friday');
    const availability = await client.getAvailability(ws);
    expect(availability.complete).toBe(true);
    expect(availability.searchable.map((s) => s.filename).sort()).toEqual(['handbook.md', 'kitchen.txt']);
  });

  it('replays an upload with the same idempotency key instead of creating a second one', async () => {
    const again = await client.upload({
      files: [
        { filename: 'handbook.md', data: handbookBytes, contentType: 'text/markdown' },
        { filename: 'kitchen.txt', data: new Blob([kitchen], { type: 'text/plain' }) },
      ],
      idempotencyKey: 'sdk-integration-1',
      metadata: { team: 'people-ops' },
    });
    expect(again.run.id).toBe(upload.run.id);
    expect(again.documents.map((d) => d.id)).toEqual(upload.documents.map((d) => d.id));
    expect((await client.listDocuments(upload.workspace.id)).documents).toHaveLength(2);
  });

  it('retries a keyed upload whose answer was lost, and the upload lands once', async () => {
    const lossy = losingFirstAnswer();
    const retrying = createDocSlurpClient({ apiUrl: server.url, apiKey: server.apiKey, fetch: lossy.fetch });
    const result = await retrying.upload({
      files: [{ filename: 'parking.txt', data: 'Parking spaces are assigned by the office manager.' }],
      workspaceId: upload.workspace.id,
      idempotencyKey: 'sdk-integration-lost-answer',
    });
    expect(lossy.calls()).toBe(2);
    expect(result.workspace.id).toBe(upload.workspace.id);
    const { documents } = await client.listDocuments(upload.workspace.id);
    expect(documents.filter((d) => d.filename === 'parking.txt')).toHaveLength(1);
    await client.waitForRun(result.run.id, { timeoutMs: 60_000 });
  });

  it('does not retry an upload without a key: a retry could store it twice', async () => {
    const lossy = losingFirstAnswer();
    const careful = createDocSlurpClient({ apiUrl: server.url, apiKey: server.apiKey, fetch: lossy.fetch });
    const error = await careful
      .upload({
        files: [{ filename: 'visitors.txt', data: 'Visitors sign the front desk log.' }],
        workspaceId: upload.workspace.id,
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(lossy.calls()).toBe(1);
    const { documents } = await client.listDocuments(upload.workspace.id);
    expect(documents.filter((d) => d.filename === 'visitors.txt')).toHaveLength(1);
  });

  it('keeps non-ASCII file names', async () => {
    const result = await client.upload({
      files: [{ filename: 'Rückgabe – café.md', data: '# Rückgabe\n\nGeräte gehen an die IT zurück.\n' }],
      workspaceId: upload.workspace.id,
    });
    expect(result.documents[0]!.filename).toBe('Rückgabe – café.md');
    await client.waitForRun(result.run.id, { timeoutMs: 60_000 });
  });

  it('deleteDocument takes a document out of search at once', async () => {
    const kitchenId = upload.documents[1]!.id;
    const before = await client.search({ workspaceId: upload.workspace.id, q: 'coffee machine descaled' });
    expect(before.results.some((r) => r.citation.documentId === kitchenId)).toBe(true);
    const deleted = await client.deleteDocument(kitchenId);
    expect(deleted).toMatchObject({ id: kitchenId, status: 'deleted' });
    const after = await client.search({ workspaceId: upload.workspace.id, q: 'coffee machine descaled' });
    expect(after.results.some((r) => r.citation.documentId === kitchenId)).toBe(false);
    const { documents } = await client.listDocuments(upload.workspace.id);
    expect(documents.some((d) => d.id === kitchenId)).toBe(false);
  });
});

describe('workspaces: created, named, renamed and deleted', () => {
  it('creates a named workspace, uploads into it, renames it and deletes it with its documents', async () => {
    const ws = await client.createWorkspace({ name: 'SDK handbook', metadata: { source: 'sdk' } });
    expect(ws).toMatchObject({ name: 'SDK handbook', description: null, metadata: { source: 'sdk' } });
    const up = await client.upload({
      workspaceId: ws.id,
      files: [{ filename: 'handbook.md', data: handbook }],
    });
    await client.waitForRun(up.run.id);
    const { workspaces } = await client.listWorkspaces();
    expect(workspaces.find((w) => w.id === ws.id)).toMatchObject({
      name: 'SDK handbook',
      counts: { ready: 1 },
    });
    expect(await client.updateWorkspace(ws.id, { name: 'SDK handbook, 2nd edition' })).toMatchObject({
      name: 'SDK handbook, 2nd edition',
      metadata: { source: 'sdk' },
    });
    expect(await client.deleteWorkspace(ws.id)).toEqual({
      workspace: expect.objectContaining({ id: ws.id, name: 'SDK handbook, 2nd edition' }),
      documents: 1,
      cancelledRuns: 0,
      storage: 'done',
    });
    await expect(client.getWorkspace(ws.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.search({ workspaceId: ws.id, q: 'vacation' })).rejects.toMatchObject({
      constructor: NotFoundError,
      code: 'workspace_not_found',
    });
    await expect(client.getDocument(up.documents[0]!.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('names the workspace an upload creates', async () => {
    const up = await client.upload({
      workspaceName: 'Kitchen rules',
      files: [{ filename: 'k.txt', data: kitchen }],
    });
    expect(up.workspace.name).toBe('Kitchen rules');
    expect((await client.getWorkspace(up.workspace.id)).name).toBe('Kitchen rules');
  });

  it('lists the formats the service reads', async () => {
    const { formats, refused } = await client.listFormats();
    expect(formats.map((f) => f.name)).toEqual(expect.arrayContaining(['PDF', 'Markdown', 'plain text']));
    expect(formats.find((f) => f.name.startsWith('images'))?.profile).toBe('full');
    expect(refused.join(' ')).toMatch(/zip archives/);
  });
});

describe('waitForRun outcomes on real runs', () => {
  const manyFiles = (prefix: string, n: number) =>
    Array.from({ length: n }, (_, i) => ({
      filename: `${prefix}-${i}.md`,
      data: `# ${prefix} note ${i}\n\nThis note number ${i} is about ${prefix} and nothing else.\n`,
    }));

  it('rejects with RunFailedError when every document fails', async () => {
    const result = await client.upload({
      files: [
        {
          filename: 'broken.pdf',
          data: new TextEncoder().encode('%PDF-1.7\n%broken beyond repair'),
          contentType: 'application/pdf',
        },
      ],
    });
    const error = await client.waitForRun(result.run.id, { timeoutMs: 60_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunFailedError);
    const run = (error as RunFailedError).run;
    expect(run.status).toBe('failed');
    expect(run.failures).toHaveLength(1);
    expect(run.failures[0]).toMatchObject({ filename: 'broken.pdf' });
    expect(run.failures[0]!.code).toMatch(/^[a-z_]+$/);
  });

  it('rejects with RunPausedError on a paused run, and completes once resumed', async () => {
    // Three hundred documents take the worker a second or more (it starts on them at once, 64 at a
    // time); the pause request arrives within milliseconds.
    const result = await client.upload({ files: manyFiles('pause', 300) });
    expect((await client.pauseRun(result.run.id)).status).toBe('paused');
    const error = await client.waitForRun(result.run.id, { timeoutMs: 60_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunPausedError);
    expect((error as RunPausedError).run).toMatchObject({ id: result.run.id, status: 'paused', done: false });
    expect((await client.resumeRun(result.run.id)).status).toBe('processing');
    const done = await client.waitForRun(result.run.id, { timeoutMs: 120_000 });
    expect(done).toMatchObject({ status: 'completed', progress: 1 });
    expect(done.counts.ready).toBe(300);
  });

  it('rejects with RunCancelledError on a cancelled run', async () => {
    // More than one batch (500 in embedded mode): the documents after the worker's first batch are
    // still waiting when the cancel request arrives.
    const result = await client.upload({ files: manyFiles('cancel', 800) });
    expect((await client.cancelRun(result.run.id)).status).toBe('cancelled');
    const error = await client.waitForRun(result.run.id, { timeoutMs: 60_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunCancelledError);
    expect((error as RunCancelledError).run).toMatchObject({ status: 'cancelled', done: true });
    expect((error as RunCancelledError).run.counts.cancelled).toBeGreaterThan(0);
  });
});

describe('typed errors from the real server', () => {
  it('AuthenticationError for an unknown key, with the request id the SDK sent', async () => {
    const stranger = createDocSlurpClient({
      apiUrl: server.url,
      apiKey: 'dsk_not_a_real_key_0000000000000000',
    });
    const error = await stranger.listWorkspaces({ requestId: 'sdk-it-auth-1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401, code: 'invalid_api_key', requestId: 'sdk-it-auth-1' });
  });

  it('PermissionDeniedError for a key without the scope', async () => {
    const created = JSON.parse(await server.cli(['keys', 'create', '--scopes', 'search', '--json'])) as {
      key: string;
    };
    const searchOnly = createDocSlurpClient({ apiUrl: server.url, apiKey: created.key });
    const error = await searchOnly
      .upload({ files: [{ filename: 'a.txt', data: 'a' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(error).toMatchObject({ status: 403, code: 'insufficient_scope' });
    expect((error as Error).message).toContain('ingest');
  });

  it('NotFoundError for an unknown run, workspace or document', async () => {
    await expect(client.getRun('run_does_not_exist')).rejects.toMatchObject({
      constructor: NotFoundError,
      code: 'run_not_found',
    });
    await expect(
      client.upload({ files: [{ filename: 'a.txt', data: 'a' }], workspaceId: 'ws_does_not_exist' }),
    ).rejects.toMatchObject({ constructor: NotFoundError, code: 'workspace_not_found' });
    await expect(client.getDocument('doc_does_not_exist')).rejects.toMatchObject({
      constructor: NotFoundError,
      code: 'document_not_found',
    });
    // A streamed answer that cannot start fails like any call, before there is a stream to read.
    await expect(
      client.chat(
        { workspaceId: 'ws_does_not_exist', q: 'anything?', stream: true },
        { requestId: 'sdk-it-chat' },
      ),
    ).rejects.toMatchObject({
      constructor: NotFoundError,
      code: 'workspace_not_found',
      requestId: 'sdk-it-chat',
    });
  });

  it('ConflictError for an action the run’s state forbids, and for a reused idempotency key', async () => {
    const result = await client.upload({
      files: [{ filename: 'tiny.txt', data: 'Tiny note about nothing.' }],
    });
    await client.waitForRun(result.run.id, { timeoutMs: 60_000 });
    await expect(client.pauseRun(result.run.id)).rejects.toMatchObject({
      constructor: ConflictError,
      status: 409,
      code: 'invalid_run_state',
    });
    await client.upload({ files: [{ filename: 'a.txt', data: 'first' }], idempotencyKey: 'sdk-it-conflict' });
    await expect(
      client.upload({ files: [{ filename: 'a.txt', data: 'second' }], idempotencyKey: 'sdk-it-conflict' }),
    ).rejects.toMatchObject({ constructor: ConflictError, code: 'idempotency_conflict' });
  });

  it('PayloadTooLargeError for a file over the server’s limit', async () => {
    const big = new Uint8Array(MAX_FILE_BYTES + 1).fill(65);
    await expect(client.upload({ files: [{ filename: 'big.txt', data: big }] })).rejects.toMatchObject({
      constructor: PayloadTooLargeError,
      status: 413,
      code: 'file_too_large',
    });
  });

  it('UnsupportedMediaTypeError for an upload holding a file no worker can read; nothing is kept', async () => {
    const before = (await client.listWorkspaces()).workspaces.length;
    const zip = new Uint8Array([0x50, 0x4b, 0x05, 0x06, ...new Array(18).fill(0)]);
    const error = await client
      .upload({
        files: [
          { filename: 'fine.md', data: '# Fine' },
          { filename: 'archive.zip', data: zip },
        ],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsupportedMediaTypeError);
    expect(error).toMatchObject({
      status: 415,
      code: 'unsupported_file_format',
      files: [
        { index: 1, filename: 'archive.zip', code: 'unsupported_media_type', reason: expect.any(String) },
      ],
      supportedFormats: expect.arrayContaining(['PDF']),
    });
    expect((await client.listWorkspaces()).workspaces).toHaveLength(before);
  });

  it('BadRequestError for a query over the length limit', async () => {
    const { workspaces } = await client.listWorkspaces();
    await expect(
      client.search({ workspaceId: workspaces[0]!.id, q: 'x'.repeat(2001) }),
    ).rejects.toMatchObject({ constructor: BadRequestError, code: 'query_too_long' });
  });
});
