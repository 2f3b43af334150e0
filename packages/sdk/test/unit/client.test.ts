import { afterEach, describe, expect, it } from 'vitest';
import { createDocSlurpClient, DocSlurpClient, DocSlurpError, type FetchLike } from '../../src/index.js';
import { json, run, scriptedFetch } from '../support/fake-fetch.js';

const uploaded = { workspace: { id: 'ws_1' }, run: run('processing'), documents: [] };

/** The multipart body exactly as it would go over the wire. */
async function wireBody(body: RequestInit['body']): Promise<string> {
  return new Response(body as FormData).text();
}

describe('configuration', () => {
  const saved = { url: process.env.SERVICE_URL, key: process.env.SERVICE_API_KEY };
  afterEach(() => {
    for (const [name, value] of [
      ['SERVICE_URL', saved.url],
      ['SERVICE_API_KEY', saved.key],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('reads SERVICE_URL and SERVICE_API_KEY when apiUrl and apiKey are not given', async () => {
    process.env.SERVICE_URL = 'http://from-env.test/';
    process.env.SERVICE_API_KEY = 'dsk_env';
    const fake = scriptedFetch(json(200, run('processing')));
    const client = createDocSlurpClient({ fetch: fake.fetch });
    expect(client).toBeInstanceOf(DocSlurpClient);
    await client.getRun('run_1');
    expect(fake.requests[0]!.url).toBe('http://from-env.test/v1/runs/run_1');
    expect(fake.requests[0]!.headers.get('authorization')).toBe('Bearer dsk_env');
  });

  it('prefers explicit options over the environment', async () => {
    process.env.SERVICE_URL = 'http://from-env.test';
    process.env.SERVICE_API_KEY = 'dsk_env';
    const fake = scriptedFetch(json(200, run('processing')));
    await createDocSlurpClient({
      apiUrl: 'http://given.test',
      apiKey: 'dsk_given',
      fetch: fake.fetch,
    }).getRun('r');
    expect(fake.requests[0]!.url).toBe('http://given.test/v1/runs/r');
    expect(fake.requests[0]!.headers.get('authorization')).toBe('Bearer dsk_given');
  });

  it('says which setting is missing', () => {
    delete process.env.SERVICE_URL;
    delete process.env.SERVICE_API_KEY;
    expect(() => createDocSlurpClient({ apiKey: 'k' })).toThrow(/SERVICE_URL/);
    expect(() => createDocSlurpClient({ apiUrl: 'http://x.test' })).toThrow(/SERVICE_API_KEY/);
    try {
      createDocSlurpClient({ apiUrl: 'http://x.test' });
    } catch (e) {
      expect(e).toBeInstanceOf(DocSlurpError);
      expect(e).toMatchObject({ code: 'missing_api_key' });
    }
  });

  it('rejects a URL that is not http(s), and bad timeouts', () => {
    expect(() => createDocSlurpClient({ apiUrl: 'localhost:8080', apiKey: 'k' })).toThrow(/http\(s\) URL/);
    expect(() => createDocSlurpClient({ apiUrl: '/api/docslurp', apiKey: 'k' })).toThrow(/http\(s\) URL/);
    expect(() => createDocSlurpClient({ apiUrl: 'http://x.test', apiKey: 'k', timeoutMs: 0 })).toThrow(
      /timeoutMs/,
    );
  });

  it('keeps a path prefix of apiUrl and drops trailing slashes', async () => {
    const fake = scriptedFetch(json(200, { workspaces: [] }));
    await createDocSlurpClient({
      apiUrl: 'https://x.test/docslurp//',
      apiKey: 'k',
      fetch: fake.fetch,
    }).listWorkspaces();
    expect(fake.requests[0]!.url).toBe('https://x.test/docslurp/v1/workspaces');
  });
});

describe('the browser rule', () => {
  const g = globalThis as { window?: unknown };
  afterEach(() => {
    delete g.window;
  });
  const inBrowser = () => {
    g.window = { document: {} };
  };

  it('refuses an API key in a browser', () => {
    inBrowser();
    let error: unknown;
    try {
      createDocSlurpClient({ apiUrl: 'https://x.test', apiKey: 'dsk_secret' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DocSlurpError);
    expect(error).toMatchObject({ code: 'browser_not_allowed' });
    expect((error as Error).message).toMatch(/server/);
  });

  it('allows it with dangerouslyAllowBrowser: true', async () => {
    inBrowser();
    const fake = scriptedFetch(json(200, run('processing')));
    const client = createDocSlurpClient({
      apiUrl: 'https://x.test',
      apiKey: 'dsk_public',
      dangerouslyAllowBrowser: true,
      fetch: fake.fetch,
    });
    await client.getRun('r');
    expect(fake.requests[0]!.headers.get('authorization')).toBe('Bearer dsk_public');
  });

  it('talks to the app’s own proxy route without a key', async () => {
    inBrowser();
    const fake = scriptedFetch(json(200, { results: [] }));
    const client = createDocSlurpClient({ apiUrl: '/api/docslurp', fetch: fake.fetch });
    await client.search({ workspaceId: 'ws_1', q: 'q' });
    expect(fake.requests[0]!.url).toBe('/api/docslurp/v1/search');
    expect(fake.requests[0]!.headers.has('authorization')).toBe(false);
  });

  it('does not apply outside a browser', () => {
    expect(() => createDocSlurpClient({ apiUrl: 'https://x.test', apiKey: 'dsk_server' })).not.toThrow();
  });
});

describe('upload', () => {
  it('sends the fields before the files, each file with its name and media type', async () => {
    const fake = scriptedFetch(json(202, uploaded));
    const client = createDocSlurpClient({ apiUrl: 'http://svc.test', apiKey: 'k', fetch: fake.fetch });
    const result = await client.upload({
      files: [
        { filename: 'notes.md', data: '# Notes\n', contentType: 'text/markdown' },
        { filename: 'raw.bin', data: new Uint8Array([0, 1, 2, 255]) },
        { filename: 'résumé.pdf', data: new Blob(['%PDF-1.4'], { type: 'application/pdf' }) },
        { filename: 'buf.txt', data: new TextEncoder().encode('bytes').buffer, contentType: 'text/plain' },
      ],
      workspaceId: 'ws_1',
      idempotencyKey: 'batch-7',
      metadata: { source: 'crm', tags: ['a'] },
    });
    expect(result).toEqual(uploaded);
    const [request] = fake.requests;
    expect(request!.method).toBe('POST');
    expect(request!.url).toBe('http://svc.test/v1/ingest/bulk');
    const form = request!.body as FormData;
    expect([...form.keys()]).toEqual([
      'workspaceId',
      'idempotencyKey',
      'metadata',
      'files',
      'files',
      'files',
      'files',
    ]);
    expect(form.get('workspaceId')).toBe('ws_1');
    expect(form.get('idempotencyKey')).toBe('batch-7');
    expect(JSON.parse(String(form.get('metadata')))).toEqual({ source: 'crm', tags: ['a'] });
    const files = form.getAll('files') as File[];
    expect(files.map((f) => [f.name, f.type, f.size])).toEqual([
      ['notes.md', 'text/markdown', 8],
      ['raw.bin', 'application/octet-stream', 4],
      ['résumé.pdf', 'application/pdf', 8],
      ['buf.txt', 'text/plain', 5],
    ]);
    expect(new Uint8Array(await files[1]!.arrayBuffer())).toEqual(new Uint8Array([0, 1, 2, 255]));
    const wire = await wireBody(request!.body);
    expect(wire.indexOf('name="metadata"')).toBeLessThan(wire.indexOf('name="files"'));
  });

  it('sends the same body again when a keyed upload is retried', async () => {
    const fake = scriptedFetch(new TypeError('fetch failed'), json(202, uploaded));
    const client = createDocSlurpClient({ apiUrl: 'http://svc.test', apiKey: 'k', fetch: fake.fetch });
    await client.upload(
      { files: [{ filename: 'a.txt', data: 'alpha' }], idempotencyKey: 'k-1' },
      // No back-off wait worth faking: a network error waits about half a second.
    );
    expect(fake.requests).toHaveLength(2);
    const [first, second] = await Promise.all(fake.requests.map((r) => wireBody(r.body)));
    const normalise = (s: string) => s.replace(/-{2,}[\w-]+/g, '--boundary');
    expect(normalise(second!)).toBe(normalise(first!));
    expect(second).toContain('alpha');
    expect(second).toContain('k-1');
  });

  it('refuses bad files before sending anything, as a rejected promise', async () => {
    const fake = scriptedFetch();
    const client = createDocSlurpClient({ apiUrl: 'http://svc.test', apiKey: 'k', fetch: fake.fetch });
    await expect(client.upload({ files: [] })).rejects.toThrow(/at least one file/);
    await expect(client.upload({ files: [{ filename: '', data: 'x' }] })).rejects.toThrow(/filename/);
    await expect(
      client.upload({ files: [{ filename: 'a', data: undefined as unknown as string }] }),
    ).rejects.toThrow(/files\[0\]\.data must be/);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('every method calls its endpoint', () => {
  const cases: [string, (c: DocSlurpClient) => Promise<unknown>, string, string, unknown?][] = [
    ['getRun', (c) => c.getRun('run_1'), 'GET', '/v1/runs/run_1'],
    ['getRunProgress', (c) => c.getRunProgress('run_1'), 'GET', '/v1/runs/run_1/progress'],
    ['pauseRun', (c) => c.pauseRun('run_1'), 'POST', '/v1/runs/run_1/pause'],
    ['resumeRun', (c) => c.resumeRun('run_1'), 'POST', '/v1/runs/run_1/resume'],
    ['cancelRun', (c) => c.cancelRun('run_1'), 'POST', '/v1/runs/run_1/cancel'],
    [
      'ingestUrls',
      (c) => c.ingestUrls({ urls: ['https://a.test/x'], workspaceId: 'ws_1', idempotencyKey: 'u1' }),
      'POST',
      '/v1/ingest/urls',
      { urls: ['https://a.test/x'], workspaceId: 'ws_1', idempotencyKey: 'u1' },
    ],
    [
      'search',
      (c) => c.search({ workspaceId: 'ws_1', q: 'vacation', topK: 3, filters: { documentIds: ['doc_1'] } }),
      'POST',
      '/v1/search',
      { workspaceId: 'ws_1', q: 'vacation', topK: 3, filters: { documentIds: ['doc_1'] } },
    ],
    [
      'chat',
      (c) => c.chat({ workspaceId: 'ws_1', q: 'how many days?', topK: 4 }),
      'POST',
      '/v1/search/chat',
      { workspaceId: 'ws_1', q: 'how many days?', topK: 4 },
    ],
    ['listWorkspaces', (c) => c.listWorkspaces(), 'GET', '/v1/workspaces'],
    ['getWorkspace', (c) => c.getWorkspace('ws_1'), 'GET', '/v1/workspaces/ws_1'],
    ['getAvailability', (c) => c.getAvailability('ws_1'), 'GET', '/v1/workspaces/ws_1/availability'],
    ['listDocuments', (c) => c.listDocuments('ws_1'), 'GET', '/v1/workspaces/ws_1/documents'],
    ['getDocument', (c) => c.getDocument('doc_1'), 'GET', '/v1/documents/doc_1'],
    ['getDocumentText', (c) => c.getDocumentText('doc_1'), 'GET', '/v1/documents/doc_1/text'],
    ['getDocumentContent', (c) => c.getDocumentContent('doc_1'), 'GET', '/v1/documents/doc_1/content'],
    ['deleteDocument', (c) => c.deleteDocument('doc_1'), 'DELETE', '/v1/documents/doc_1'],
    [
      'createWorkspace',
      (c) => c.createWorkspace({ name: 'Handbook', description: 'HR', metadata: { team: 'hr' } }),
      'POST',
      '/v1/workspaces',
      { name: 'Handbook', description: 'HR', metadata: { team: 'hr' } },
    ],
    [
      'updateWorkspace',
      (c) => c.updateWorkspace('ws_1', { name: 'Handbook 2025', description: null }),
      'PATCH',
      '/v1/workspaces/ws_1',
      { name: 'Handbook 2025', description: null },
    ],
    ['deleteWorkspace', (c) => c.deleteWorkspace('ws_1'), 'DELETE', '/v1/workspaces/ws_1'],
    ['listFormats', (c) => c.listFormats(), 'GET', '/v1/formats'],
    [
      'createWebhook',
      (c) => c.createWebhook({ url: 'https://hooks.test/in', events: ['run.completed', 'document.failed'] }),
      'POST',
      '/v1/webhooks',
      { url: 'https://hooks.test/in', events: ['run.completed', 'document.failed'] },
    ],
    ['listWebhooks', (c) => c.listWebhooks(), 'GET', '/v1/webhooks'],
    [
      'createSource',
      (c) => c.createSource('ws_1', { type: 'folder', settings: { path: '/srv/docs' }, intervalMinutes: 60 }),
      'POST',
      '/v1/workspaces/ws_1/sources',
      { type: 'folder', settings: { path: '/srv/docs' }, intervalMinutes: 60 },
    ],
    ['listSources', (c) => c.listSources('ws_1'), 'GET', '/v1/workspaces/ws_1/sources'],
    ['getSource', (c) => c.getSource('ws_1', 'src_1'), 'GET', '/v1/workspaces/ws_1/sources/src_1'],
    [
      'updateSource',
      (c) => c.updateSource('ws_1', 'src_1', { credentials: null, intervalMinutes: null }),
      'PATCH',
      '/v1/workspaces/ws_1/sources/src_1',
      { credentials: null, intervalMinutes: null },
    ],
    ['deleteSource', (c) => c.deleteSource('ws_1', 'src_1'), 'DELETE', '/v1/workspaces/ws_1/sources/src_1'],
    [
      'syncSource',
      (c) => c.syncSource('ws_1', 'src_1', { force: true }),
      'POST',
      '/v1/workspaces/ws_1/sources/src_1/sync',
      { force: true },
    ],
    ['getWebhook', (c) => c.getWebhook('whk_1'), 'GET', '/v1/webhooks/whk_1'],
    ['deleteWebhook', (c) => c.deleteWebhook('whk_1'), 'DELETE', '/v1/webhooks/whk_1'],
    [
      'listWebhookDeliveries',
      (c) => c.listWebhookDeliveries('whk_1'),
      'GET',
      '/v1/webhooks/whk_1/deliveries',
    ],
    [
      'listWebhookDeliveries with paging',
      (c) => c.listWebhookDeliveries('whk_1', { limit: 5, before: 'dlv_9', status: 'failed' }),
      'GET',
      '/v1/webhooks/whk_1/deliveries?limit=5&before=dlv_9&status=failed',
    ],
    [
      'redeliverWebhook',
      (c) => c.redeliverWebhook('whk_1', 'dlv_1'),
      'POST',
      '/v1/webhooks/whk_1/deliveries/dlv_1/redeliver',
    ],
    ['an id with reserved characters', (c) => c.getDocument('a/b?c'), 'GET', '/v1/documents/a%2Fb%3Fc'],
  ];

  it.each(cases)('%s', async (_, call, method, path, body) => {
    const fake = scriptedFetch(json(200, {}));
    const client = createDocSlurpClient({ apiUrl: 'http://svc.test', apiKey: 'dsk_k', fetch: fake.fetch });
    await call(client);
    const [request] = fake.requests;
    expect(request!.method).toBe(method);
    expect(request!.url).toBe(`http://svc.test${path}`);
    expect(request!.headers.get('authorization')).toBe('Bearer dsk_k');
    if (body === undefined) expect(request!.body).toBeUndefined();
    else {
      expect(request!.headers.get('content-type')).toBe('application/json');
      expect(JSON.parse(String(request!.body))).toEqual(body);
    }
  });

  it('returns document text as a string and content as a Blob with its media type', async () => {
    const fake = scriptedFetch(
      new Response('<!-- page 1 -->\nHello', { headers: { 'content-type': 'text/markdown; charset=utf-8' } }),
      new Response(new Uint8Array([37, 80, 68, 70]), { headers: { 'content-type': 'application/pdf' } }),
    );
    const client = createDocSlurpClient({ apiUrl: 'http://svc.test', apiKey: 'k', fetch: fake.fetch });
    expect(await client.getDocumentText('doc_1')).toBe('<!-- page 1 -->\nHello');
    const blob = await client.getDocumentContent('doc_1');
    expect(blob.type).toBe('application/pdf');
    expect(new Uint8Array(await blob.arrayBuffer())).toEqual(new Uint8Array([37, 80, 68, 70]));
    expect(fake.requests.map((r) => r.headers.get('accept'))).toEqual(['text/markdown', '*/*']);
  });

  it('retries a rename whose answer was lost, but never a creation or a deletion', async () => {
    const lost = () => new TypeError('fetch failed', { cause: new Error('ECONNRESET') });
    const rename = scriptedFetch(lost(), json(200, { id: 'ws_1', name: 'B' }));
    const client = (fetch: FetchLike) =>
      createDocSlurpClient({ apiUrl: 'http://svc.test', apiKey: 'k', fetch, maxRetries: 2 });
    expect(await client(rename.fetch).updateWorkspace('ws_1', { name: 'B' })).toMatchObject({ name: 'B' });
    expect(rename.requests).toHaveLength(2);
    for (const call of [
      (c: DocSlurpClient) => c.createWorkspace({ name: 'A' }),
      (c: DocSlurpClient) => c.deleteWorkspace('ws_1'),
    ]) {
      const once = scriptedFetch(lost());
      await expect(call(client(once.fetch))).rejects.toMatchObject({ code: 'connection_error' });
      expect(once.requests).toHaveLength(1);
    }
  });

  it('sends workspaceName with an upload, before the files', async () => {
    const fake = scriptedFetch(json(202, {}));
    const client = createDocSlurpClient({ apiUrl: 'http://svc.test', apiKey: 'k', fetch: fake.fetch });
    await client.upload({ files: [{ filename: 'a.md', data: '# A' }], workspaceName: 'Contracts' });
    const form = fake.requests[0]!.body as FormData;
    expect([...form.keys()]).toEqual(['workspaceName', 'files']);
    expect(form.get('workspaceName')).toBe('Contracts');
  });

  it('refuses an empty id before sending anything', async () => {
    const fake = scriptedFetch();
    const client = createDocSlurpClient({ apiUrl: 'http://svc.test', apiKey: 'k', fetch: fake.fetch });
    await expect(client.getRun('')).rejects.toThrow(TypeError);
    await expect(client.waitForRun('')).rejects.toThrow(TypeError);
    expect(fake.requests).toHaveLength(0);
  });
});
