import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDocSlurpClient,
  type DocSlurpClient,
  NotFoundError,
  PermissionDeniedError,
} from '../../src/index.js';
import { type RunningServer, startServer } from '../support/server.js';

/**
 * People, groups, access and acting for a user, through the SDK against a real server: an application
 * that serves its own signed-in people with one key (`act-as`), each of them seeing what they may.
 */
let server: RunningServer;
let client: DocSlurpClient;

beforeAll(async () => {
  server = await startServer();
  // The bootstrap key has every scope: admin and act-as included.
  client = createDocSlurpClient({ apiUrl: server.url, apiKey: server.apiKey });
});
afterAll(() => server?.stop());

describe('people, groups, access and acting for a user', () => {
  it('shows each user only what they may see, and audits who changed what', async () => {
    const hr = await client.groups.create({ name: 'HR' });
    const ana = await client.users.create({ email: 'ana@example.com', role: 'reader', groups: ['HR'] });
    const bo = await client.users.create({ email: 'bo@example.com', role: 'reader' });
    expect(ana).toMatchObject({ role: 'reader', groups: [hr.id], passwordSignIn: false });

    const open = await client.upload({
      files: [
        { filename: 'canteen.md', data: new Blob(['# Canteen\n\nLunch is served from noon to two.\n']) },
      ],
      workspaceName: 'Company',
    });
    await client.waitForRun(open.run.id);
    const hidden = await client.upload({
      workspaceId: open.workspace.id,
      files: [
        {
          filename: 'pay.md',
          data: new Blob(['# Pay\n\nSalaries are paid on the 25th; lunch vouchers too.\n']),
        },
      ],
      access: { groups: ['HR'] },
    });
    await client.waitForRun(hidden.run.id);
    expect(hidden.documents[0]!.access).toEqual({ users: [], groups: [hr.id] });

    const asAna = client.asUser('ana@example.com');
    const asBo = client.asUser(bo.id);
    const names = async (c: DocSlurpClient) =>
      (await c.search({ workspaceId: open.workspace.id, q: 'lunch', topK: 5 })).results
        .map((h) => h.citation.filename)
        .sort();
    expect(await names(asAna)).toEqual(['canteen.md', 'pay.md']);
    expect(await names(asBo)).toEqual(['canteen.md']);
    await expect(asBo.getDocument(hidden.documents[0]!.id)).rejects.toBeInstanceOf(NotFoundError);
    // A reader may not upload, whatever the key may.
    await expect(
      asBo.upload({ workspaceId: open.workspace.id, files: [{ filename: 'x.md', data: new Blob(['x']) }] }),
    ).rejects.toBeInstanceOf(PermissionDeniedError);

    // Opened to every reader of the workspace: Bo sees it on the next request.
    await client.setDocumentAccess(hidden.documents[0]!.id, null);
    expect(await names(asBo)).toEqual(['canteen.md', 'pay.md']);
    await client.groups.removeMember(hr.id, ana.id);
    expect((await client.groups.get(hr.id)).members).toEqual([]);

    const events = await client.audit.list({ action: 'document' });
    expect(events.events.map((e) => e.action)).toContain('document.access_changed');
    const people = await client.audit.list({ action: 'user' });
    expect(people.events.map((e) => e.details)).toContainEqual(
      expect.objectContaining({ email: 'ana@example.com' }),
    );
    expect(people.events.every((e) => e.actor.startsWith('dsk_'))).toBe(true);
  });
});
