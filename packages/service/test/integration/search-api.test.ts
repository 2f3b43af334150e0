import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/http.js';
import { startTestService, type TestService } from '../support/service.js';

let svc: TestService;
let api: ReturnType<typeof client>;
let workspaceId: string;

const policy = 'Remote work is allowed two days per week. Managers approve remote work requests.';
const longDoc = Array.from(
  { length: 12 },
  (_, i) =>
    `## Section ${i + 1}\n\nThe travel budget rules in section ${i + 1} explain how travel costs are approved, booked and reimbursed for trips of type ${i + 1}, with receipts kept for audits.`,
).join('\n\n');

beforeAll(async () => {
  svc = await startTestService();
  api = client(svc.url, await svc.key());
  const first = await api.upload(
    [
      { name: 'policy.md', content: `# Remote work\n\n${policy}\n`, type: 'text/markdown' },
      { name: 'policy-copy.md', content: `# Remote work\n\n${policy}\n`, type: 'text/markdown' },
      { name: 'travel.md', content: `# Travel\n\n${longDoc}\n`, type: 'text/markdown' },
    ],
    { metadata: '{"team":"hr","year":2024}' },
  );
  workspaceId = first.body.workspace.id;
  await api.waitForRun(first.body.run.id);
  const second = await api.upload(
    [{ name: 'it.txt', content: 'Remote work needs a VPN connection approved by IT.', type: 'text/plain' }],
    { workspaceId, metadata: '{"team":"it","year":2023}' },
  );
  await api.waitForRun(second.body.run.id);
});
afterAll(() => svc?.close());

const search = (body: Record<string, unknown>) => api.post('/v1/search', { workspaceId, ...body });
const names = (r: { body: { results: { citation: { filename: string } }[] } }) =>
  r.body.results.map((h) => h.citation.filename);

describe('search API', () => {
  it('returns a passage once when two documents hold the same text', async () => {
    const r = await search({ q: 'remote work requests', topK: 10 });
    const copies = names(r).filter((n) => n === 'policy.md' || n === 'policy-copy.md');
    expect(copies).toHaveLength(1);
    expect(names(r)).toContain('it.txt');
  });

  it('filters by file name, media type and upload metadata', async () => {
    expect(names(await search({ q: 'remote work', filters: { filenames: ['it.txt'] } }))).toEqual(['it.txt']);
    expect(names(await search({ q: 'remote work', filters: { mediaTypes: ['text/plain'] } }))).toEqual([
      'it.txt',
    ]);
    expect(names(await search({ q: 'remote work', filters: { mediaTypes: ['text/*'] } }))).toContain(
      'it.txt',
    );
    expect(names(await search({ q: 'remote work', filters: { metadata: { team: 'it' } } }))).toEqual([
      'it.txt',
    ]);
    const hr = names(
      await search({ q: 'remote work', filters: { metadata: { team: ['hr', 'legal'], year: 2024 } } }),
    );
    expect(hr.length).toBeGreaterThan(0);
    expect(hr).not.toContain('it.txt');
    expect(
      (await search({ q: 'remote work', filters: { metadata: { team: 'finance' } } })).body.results,
    ).toEqual([]);
    const bad = await search({ q: 'remote work', filters: { owner: 'x' } });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'invalid_request']);
  });

  it('caps passages per document and honours topK', async () => {
    const all = await search({ q: 'travel costs approved receipts', topK: 20 });
    expect(names(all).filter((n) => n === 'travel.md').length).toBeGreaterThan(2);
    const capped = await search({ q: 'travel costs approved receipts', topK: 20, maxChunksPerDocument: 2 });
    expect(names(capped).filter((n) => n === 'travel.md')).toHaveLength(2);
    expect((await search({ q: 'travel costs approved receipts', topK: 3 })).body.results).toHaveLength(3);
  });

  it('gives each passage a snippet whose offsets and highlights point at the query’s words', async () => {
    const r = await search({
      q: 'Who approves remote work requests?',
      topK: 1,
      filters: { filenames: ['policy.md'] },
    });
    const hit = r.body.results[0];
    expect(hit.snippet.text).toBe('Managers approve remote work requests.');
    const docText = (await api.get(`/v1/documents/${hit.citation.documentId}/text`)).body as string;
    expect(docText.slice(hit.snippet.charStart, hit.snippet.charEnd)).toBe(hit.snippet.text);
    const marked = hit.snippet.highlights.map((h: { start: number; end: number }) =>
      hit.snippet.text.slice(h.start, h.end),
    );
    expect(marked).toEqual(['approve', 'remote', 'work', 'requests']);
  });

  it('refuses vector mode when no embedding model is configured, and searches lexically by default', async () => {
    const r = await search({ q: 'remote work', mode: 'vector' });
    expect([r.status, r.body.error.code]).toEqual([400, 'vector_search_unavailable']);
    expect((await search({ q: 'remote work', mode: 'hybrid' })).status).toBe(200);
    const get = await api.get(`/v1/search?workspaceId=${workspaceId}&q=travel&topK=5&maxChunksPerDocument=1`);
    expect(names(get)).toEqual(['travel.md']);
  });
});
