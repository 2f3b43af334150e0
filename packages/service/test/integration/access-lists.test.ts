import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/http.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * A deleted user or group leaves every access list (adapters/postgres/access-lists.ts): workspaces'
 * readers and editors, documents', sources'. Else a group made later under the same id, or a list
 * that still names a user who is gone, would keep granting what nobody decided to grant.
 */
let svc: TestService;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  svc = await startTestService({ env: { URL_FETCH_ALLOW_HOSTS: '127.0.0.1' } });
  api = client(svc.url, await svc.key(['ingest', 'search', 'artifacts', 'admin']));
});
afterAll(() => svc?.close());

describe('deleting people and groups', () => {
  it('takes them off the access lists of workspaces, documents and sources', async () => {
    const group = (await api.post('/v1/groups', { name: 'Board' })).body;
    const keep = (await api.post('/v1/groups', { name: 'Staff' })).body;
    const user = (await api.post('/v1/users', { email: 'gone@example.com', role: 'reader' })).body;
    const both = { groups: [group.id, keep.id], users: [user.id] };
    const ws = await api.post('/v1/workspaces', { name: 'Minutes', access: { read: both, edit: both } });
    expect(ws.status, JSON.stringify(ws.body)).toBe(201);
    const up = await api.upload([{ name: 'm.md', content: '# Minutes\n\nApproved.\n' }], {
      workspaceId: ws.body.id,
      access: JSON.stringify(both),
    });
    expect(up.status, JSON.stringify(up.body)).toBe(202);
    const source = await api.post(`/v1/workspaces/${ws.body.id}/sources`, {
      type: 'website',
      settings: { startUrl: 'http://127.0.0.1:9/' },
      access: both,
    });
    expect(source.status, JSON.stringify(source.body)).toBe(201);

    expect((await api.delete(`/v1/groups/${group.id}`)).status).toBe(200);
    expect((await api.delete(`/v1/users/${user.id}`)).status).toBe(200);

    const left = { groups: [keep.id], users: [] };
    const lists = (body: { access: unknown }) => JSON.parse(JSON.stringify(body.access));
    const workspace = (await api.get(`/v1/workspaces/${ws.body.id}`)).body;
    expect(lists(workspace)).toMatchObject({ read: left, edit: left });
    const document = (await api.get(`/v1/documents/${up.body.documents[0].id}`)).body;
    expect(lists(document)).toMatchObject(left);
    const synced = (await api.get(`/v1/workspaces/${ws.body.id}/sources/${source.body.id}`)).body;
    expect(lists(synced)).toMatchObject(left);
  });
});
