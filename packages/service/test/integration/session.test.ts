import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertUser } from '../../src/access/people.js';
import { client } from '../support/http.js';
import { startTestService, type TestService } from '../support/service.js';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ env: { LOGIN_ATTEMPTS_PER_MINUTE: '5' } });
  const a = await svc.deps.accounts.ensureAccount('default');
  const b = await svc.deps.accounts.ensureAccount('other');
  await insertUser(svc.deps, a.id, {
    email: 'ada@example.com',
    password: 'correct horse battery',
    role: 'owner',
  });
  await insertUser(svc.deps, b.id, {
    email: 'bob@example.com',
    password: 'another long password',
    role: 'owner',
  });
});
afterAll(() => svc?.close());

interface Browser {
  cookie: string;
  csrf: string;
  setCookie: string;
}

async function signIn(email: string, password: string): Promise<Browser> {
  const res = await fetch(`${svc.url}/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  expect(res.status).toBe(200);
  const setCookie = res.headers.get('set-cookie')!;
  const body = (await res.json()) as { csrfToken: string };
  return { cookie: setCookie.split(';')[0]!, csrf: body.csrfToken, setCookie };
}

/** Requests as the console makes them: the session cookie, and the CSRF token when asked to. */
function asBrowser(b: Browser, withCsrf = true) {
  return async (method: string, path: string, json?: unknown) => {
    const res = await fetch(svc.url + path, {
      method,
      headers: {
        cookie: b.cookie,
        ...(withCsrf ? { 'x-csrf-token': b.csrf } : {}),
        ...(json === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
  };
}

describe('console sessions', () => {
  it('refuses wrong passwords and unknown emails with the same answer', async () => {
    const wrong = await client(svc.url).post('/v1/session', {
      email: 'ada@example.com',
      password: 'nope nope nope',
    });
    const unknown = await client(svc.url).post('/v1/session', {
      email: 'nobody@example.com',
      password: 'nope nope nope',
    });
    expect([wrong.status, wrong.body.error.code]).toEqual([401, 'invalid_credentials']);
    expect([unknown.status, unknown.body.error.message]).toEqual([401, wrong.body.error.message]);
  });

  it('signs in with an HttpOnly, SameSite=Lax cookie (not Secure over plain http)', async () => {
    const b = await signIn('ada@example.com', 'correct horse battery');
    expect(b.setCookie).toMatch(/^docslurp_session=[\w-]{40,};/);
    expect(b.setCookie).toMatch(/HttpOnly/i);
    expect(b.setCookie).toMatch(/SameSite=Lax/i);
    expect(b.setCookie).not.toMatch(/Secure/i);
    const me = await asBrowser(b)('GET', '/v1/session');
    expect(me.body.user.email).toBe('ada@example.com');
    expect(me.body.csrfToken).toBe(b.csrf);
  });

  it('marks the cookie Secure when the console is served over https', async () => {
    const { buildApp } = await import('../../src/app.js');
    const app = await buildApp({
      ...svc.deps,
      config: { ...svc.config, server: { ...svc.config.server, publicUrl: 'https://docs.example.com' } },
    });
    try {
      const r = await app.inject({
        method: 'POST',
        url: '/v1/session',
        payload: { email: 'ada@example.com', password: 'correct horse battery' },
      });
      expect(r.statusCode).toBe(200);
      expect(String(r.headers['set-cookie'])).toMatch(/; Secure/i);
    } finally {
      await app.close();
    }
  });

  it('uses the /v1 API with the session: reads freely, writes only with the CSRF token', async () => {
    const b = await signIn('ada@example.com', 'correct horse battery');
    const call = asBrowser(b);
    const noCsrf = asBrowser(b, false);
    const form = new FormData();
    form.append('files', new Blob(['Sessions carry the account and every scope.']), 'session.txt');
    const forged = await fetch(`${svc.url}/v1/ingest/bulk`, {
      method: 'POST',
      headers: { cookie: b.cookie },
      body: form,
    });
    expect(forged.status).toBe(403);
    expect(((await forged.json()) as { error: { code: string } }).error.code).toBe('csrf_token_invalid');
    const wrongToken = await fetch(`${svc.url}/v1/ingest/bulk`, {
      method: 'POST',
      headers: { cookie: b.cookie, 'x-csrf-token': `${b.csrf}x` },
      body: form,
    });
    expect(wrongToken.status).toBe(403);

    const up = await fetch(`${svc.url}/v1/ingest/bulk`, {
      method: 'POST',
      headers: { cookie: b.cookie, 'x-csrf-token': b.csrf },
      body: form,
    });
    expect(up.status).toBe(202);
    const upload = (await up.json()) as { workspace: { id: string }; run: { id: string } };
    expect((await noCsrf('GET', `/v1/runs/${upload.run.id}`)).status).toBe(200);
    await client(svc.url, await svc.key()).waitForRun(upload.run.id);
    const search = await call('POST', '/v1/search', {
      workspaceId: upload.workspace.id,
      q: 'sessions carry scopes',
    });
    expect(search.status).toBe(200);
    expect(search.body.results).toHaveLength(1);
    expect((await noCsrf('POST', '/v1/search', { workspaceId: upload.workspace.id, q: 'x' })).status).toBe(
      403,
    );
  });

  it("never shows another account's workspace to a session", async () => {
    const ada = asBrowser(await signIn('ada@example.com', 'correct horse battery'));
    const bob = asBrowser(await signIn('bob@example.com', 'another long password'));
    const adaWorkspaces = (await ada('GET', '/v1/workspaces')).body.workspaces;
    expect(adaWorkspaces.length).toBeGreaterThan(0);
    const wsId = adaWorkspaces[0].id;
    expect((await bob('GET', '/v1/workspaces')).body.workspaces).toEqual([]);
    expect((await bob('GET', `/v1/workspaces/${wsId}/documents`)).status).toBe(404);
    expect((await bob('POST', '/v1/search', { workspaceId: wsId, q: 'sessions' })).status).toBe(404);
  });

  it('manages API keys: created once with chosen scopes, listed without secrets, revoked', async () => {
    const call = asBrowser(await signIn('ada@example.com', 'correct horse battery'));
    const created = await call('POST', '/v1/keys', { name: 'ci', scopes: ['search'] });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^dsk_/);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const keyClient = client(svc.url, created.body.secret);
    expect((await keyClient.get('/v1/workspaces')).status).toBe(403); // search only
    const listed = await call('GET', '/v1/keys');
    const entry = listed.body.keys.find((k: { id: string }) => k.id === created.body.key.id);
    expect(entry).toMatchObject({ name: 'ci', scopes: ['search'], revokedAt: null });
    expect(JSON.stringify(listed.body)).not.toContain(created.body.secret);
    expect((await call('DELETE', `/v1/keys/${created.body.key.id}`)).body.revokedAt).not.toBeNull();
    expect((await keyClient.post('/v1/search', { workspaceId: 'ws_x', q: 'x' })).status).toBe(401);
  });

  it('keeps key management away from API keys and from other accounts', async () => {
    const apiKey = client(svc.url, await svc.key());
    const r = await apiKey.get('/v1/keys');
    expect([r.status, r.body.error.code]).toEqual([403, 'session_required']);
    const ada = asBrowser(await signIn('ada@example.com', 'correct horse battery'));
    const adaKey = (await ada('POST', '/v1/keys', { scopes: ['ingest'] })).body.key.id;
    const bob = asBrowser(await signIn('bob@example.com', 'another long password'));
    expect((await bob('DELETE', `/v1/keys/${adaKey}`)).status).toBe(404);
    expect((await bob('GET', '/v1/keys')).body.keys.some((k: { id: string }) => k.id === adaKey)).toBe(false);
  });

  it('signs out on the server: the old cookie no longer works', async () => {
    const b = await signIn('ada@example.com', 'correct horse battery');
    const call = asBrowser(b);
    expect((await asBrowser(b, false)('DELETE', '/v1/session')).status).toBe(403);
    const out = await call('DELETE', '/v1/session');
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/docslurp_session=;/);
    const after = await call('GET', '/v1/workspaces');
    expect([after.status, after.body.error.code]).toEqual([401, 'session_expired']);
  });

  it('limits sign-in attempts per email', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const r = await fetch(`${svc.url}/v1/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'target@example.com', password: `guess-${i}` }),
      });
      statuses.push(r.status);
      if (r.status === 429) expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5)).toEqual([429, 429]);
  });
});

describe('the overview', () => {
  it('shows documents by state, runs in progress and recent failures of the account only', async () => {
    const api = client(svc.url, await svc.key());
    // An OLE file that is no Office document (an Outlook .msg): accepted, then refused by the parser.
    const msg = Buffer.concat([
      Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]),
      Buffer.alloc(500),
    ]);
    const up = await api.upload([{ name: 'bad.bin', content: msg }]);
    await api.waitForRun(up.body.run.id);
    const o = await api.get('/v1/overview');
    expect(o.status).toBe(200);
    expect(o.body.documents.failed).toBeGreaterThanOrEqual(1);
    expect(o.body.recentFailures[0]).toMatchObject({ filename: 'bad.bin', code: 'unsupported_media_type' });
    const other = client(svc.url, await svc.key(['artifacts'], 'third'));
    expect((await other.get('/v1/overview')).body).toMatchObject({
      documents: { total: 0 },
      recentFailures: [],
    });
  });
});
