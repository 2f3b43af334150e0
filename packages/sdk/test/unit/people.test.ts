import { describe, expect, it } from 'vitest';
import { createDocSlurpClient, DocSlurpError } from '../../src/index.js';
import { json, run, scriptedFetch } from '../support/fake-fetch.js';

const user = {
  id: 'usr_1',
  email: 'ana@example.com',
  name: null,
  role: 'reader',
  groups: [],
  passwordSignIn: false,
  createdAt: '2026-12-01T00:00:00Z',
  lastSignInAt: null,
};
const group = { id: 'grp_1', name: 'HR', members: ['usr_1'], createdAt: '2026-12-01T00:00:00Z' };

describe('acting for a user', () => {
  it('sends DocSlurp-On-Behalf-Of from the client, asUser and the call, the call winning', async () => {
    const fake = scriptedFetch(
      json(200, run('processing')),
      json(200, run('processing')),
      json(200, run('processing')),
      json(200, run('processing')),
    );
    const client = createDocSlurpClient({ apiUrl: 'http://x.test', apiKey: 'dsk_k', fetch: fake.fetch });
    await client.getRun('r');
    await client.asUser('ana@example.com').getRun('r');
    await createDocSlurpClient({
      apiUrl: 'http://x.test',
      apiKey: 'dsk_k',
      fetch: fake.fetch,
      onBehalfOf: 'usr_2',
    }).getRun('r', {
      onBehalfOf: 'usr_3',
    });
    await client.asUser(' usr_4 ').getRun('r');
    expect(fake.requests.map((r) => r.headers.get('docslurp-on-behalf-of'))).toEqual([
      null,
      'ana@example.com',
      'usr_3',
      'usr_4',
    ]);
    // asUser keeps the key and the origin.
    expect(fake.requests[1]!.headers.get('authorization')).toBe('Bearer dsk_k');
  });

  it('refuses a user that no header could carry', () => {
    const client = createDocSlurpClient({
      apiUrl: 'http://x.test',
      apiKey: 'dsk_k',
      fetch: scriptedFetch().fetch,
    });
    expect(() => client.asUser('')).toThrow(DocSlurpError);
    expect(() => client.asUser('a\r\nx: y')).toThrow(/user id or e-mail/);
  });
});

describe('people, groups and the audit log', () => {
  it('call their routes with their methods and bodies', async () => {
    const fake = scriptedFetch(
      json(200, { users: [user] }),
      json(201, user),
      json(200, { ...user, role: 'editor' }),
      json(200, group),
      json(200, group),
      json(200, { events: [], nextCursor: null }),
    );
    const client = createDocSlurpClient({ apiUrl: 'http://x.test', apiKey: 'dsk_k', fetch: fake.fetch });
    expect(await client.users.list()).toEqual([user]);
    await client.users.create({ email: 'ana@example.com', role: 'reader', groups: ['HR'] });
    await client.users.update('usr_1', { role: 'editor' });
    await client.groups.addMember('grp_1', 'usr_1');
    await client.groups.removeMember('grp_1', 'usr_1');
    await client.audit.list({ action: 'user', since: new Date('2026-12-01T00:00:00Z'), limit: 10 });
    expect(fake.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET http://x.test/v1/users',
      'POST http://x.test/v1/users',
      'PATCH http://x.test/v1/users/usr_1',
      'PUT http://x.test/v1/groups/grp_1/members/usr_1',
      'DELETE http://x.test/v1/groups/grp_1/members/usr_1',
      'GET http://x.test/v1/audit?action=user&since=2026-12-01T00%3A00%3A00.000Z&limit=10',
    ]);
    expect(JSON.parse(fake.requests[1]!.body as string)).toEqual({
      email: 'ana@example.com',
      role: 'reader',
      groups: ['HR'],
    });
  });

  it('sends an upload’s access as its multipart field', async () => {
    const fake = scriptedFetch(
      json(202, { workspace: { id: 'ws_1' }, run: run('processing'), documents: [] }),
    );
    const client = createDocSlurpClient({ apiUrl: 'http://x.test', apiKey: 'dsk_k', fetch: fake.fetch });
    await client.upload({
      files: [{ filename: 'a.md', data: new Blob(['# A']) }],
      access: { groups: ['HR'] },
    });
    const form = await new Response(fake.requests[0]!.body as FormData).formData();
    expect(JSON.parse(form.get('access') as string)).toEqual({ groups: ['HR'] });
  });
});
