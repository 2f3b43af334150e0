import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/http.js';
import { startTestService, type TestService } from '../support/service.js';

/** Languages through the API (issue 24): each document's, the workspace's, and answers in the question's. */
let svc: TestService;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  svc = await startTestService();
  api = client(svc.url, await svc.key());
});
afterAll(() => svc?.close());

const german = `# Neustart

Der Server startet nach einem Kernel-Update neu. Ein Neustart dauert auf einem gewöhnlichen Server etwa zwei Minuten. Während des Neustarts sind die Dienste nicht erreichbar.

# Drucker

Drucker werden mit CUPS eingerichtet. Die Weboberfläche von CUPS läuft auf Port 631 und ist nur lokal erreichbar.
`;
const japanese = `# バックアップ

サーバーの完全バックアップには約三時間かかります。バックアップは毎晩二時に始まり、結果はメールで届きます。
`;

describe('languages', () => {
  it("detects each document's language, lists the workspace's, and answers in the language of the question", async () => {
    const up = await api.upload([
      { name: 'betrieb.md', content: german, type: 'text/markdown' },
      { name: 'backup.md', content: japanese, type: 'text/markdown' },
    ]);
    const workspaceId = up.body.workspace.id as string;
    await api.waitForRun(up.body.run.id);
    const docs = (await api.get(`/v1/workspaces/${workspaceId}/documents`)).body.documents as {
      filename: string;
      language: string;
    }[];
    expect(Object.fromEntries(docs.map((d) => [d.filename, d.language]))).toEqual({
      'betrieb.md': 'de',
      'backup.md': 'ja',
    });
    const ws = (await api.get(`/v1/workspaces/${workspaceId}`)).body;
    expect(ws).toMatchObject({ language: 'auto', languages: ['de', 'ja'] });

    const de = (
      await api.post('/v1/search/chat', { workspaceId, q: 'Wie lange dauert ein Neustart des Servers?' })
    ).body;
    expect(de.kind).toBe('extractive');
    expect(de.answer).toContain('etwa zwei Minuten');
    const ja = (
      await api.post('/v1/search/chat', { workspaceId, q: 'バックアップにはどのくらい時間がかかりますか？' })
    ).body;
    expect(ja.kind).toBe('extractive');
    expect(ja.answer).toContain('約三時間');
    const declined = (
      await api.post('/v1/search/chat', {
        workspaceId,
        q: 'Wie viele Urlaubstage bekommen die Angestellten?',
      })
    ).body;
    expect(declined).toEqual({
      answer: 'Dazu habe ich in diesem Arbeitsbereich keine Antwort gefunden.',
      citations: [],
      kind: 'declined',
    });
    const search = (await api.post('/v1/search', { workspaceId, q: 'Neustart', topK: 3 })).body.results;
    expect(search[0].citation.filename).toBe('betrieb.md');
  });

  it('lets a workspace set the language its documents are read in, and refuses one it does not know', async () => {
    const created = await api.post('/v1/workspaces', { name: 'Notizen', language: 'de' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ language: 'de', languages: [] });
    const workspaceId = created.body.id as string;
    // Too short to tell by itself: read as the workspace says.
    const up = await api.upload([{ name: 'kurz.txt', content: 'Port 631', type: 'text/plain' }], {
      workspaceId,
    });
    await api.waitForRun(up.body.run.id);
    const docs = (await api.get(`/v1/workspaces/${workspaceId}/documents`)).body.documents;
    expect(docs[0].language).toBe('de');
    const bad = await api.patch(`/v1/workspaces/${workspaceId}`, { language: 'klingon' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('"auto"');
    const changed = await api.patch(`/v1/workspaces/${workspaceId}`, { language: 'auto' });
    expect(changed.body.language).toBe('auto');
    const formats = (await api.get('/v1/formats')).body.languages as { code: string; name: string }[];
    expect(formats).toContainEqual({ code: 'ja', name: 'Japanese' });
  });
});
