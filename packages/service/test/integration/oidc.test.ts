// Over 400 lines: one provider and one service for every way a sign-in goes right and wrong.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser } from '../support/cookie-browser.js';
import { client } from '../support/http.js';
import { startTestProvider, type TestProvider } from '../support/oidc-provider.js';
import { startTestService, type TestService } from '../support/service.js';
import { freePort } from '../support/spawn.js';

/**
 * Sign-in with the organisation's identity provider (issue 39): the service's OpenID Connect relying
 * party (openid-client) against a real, certified OpenID Provider (oidc-provider) on loopback, through
 * a browser the test plays (cookies per host, redirects by hand). Every refusal is a page that says why
 * and a log line, never a half signed-in state (no session cookie).
 */

let provider: TestProvider;
let svc: TestService;
let base: string;
let admin: ReturnType<typeof client>;

const isCallback = (url: string) => url.includes('/v1/session/oidc/callback');

/** Up to the callback the provider sends the browser to (not followed), for tests that change it. */
async function toCallback(browser: Browser, returnTo = '/workspaces') {
  const { url } = await browser.follow(
    `${base}/v1/session/oidc?returnTo=${encodeURIComponent(returnTo)}`,
    isCallback,
  );
  expect(url).toContain('/v1/session/oidc/callback?');
  return url;
}

/** A whole sign-in; answers the callback's answer and the session the browser then has. */
async function signIn(browser: Browser, returnTo = '/workspaces') {
  const callback = await toCallback(browser, returnTo);
  const res = await browser.get(callback);
  const page = await res.text();
  const session = await browser.get(`${base}/v1/session`);
  // biome-ignore lint/suspicious/noExplicitAny: the session's JSON, asserted on below.
  const body: any = session.status === 200 ? await session.json() : undefined;
  return { res, page, session: body };
}

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  provider = await startTestProvider({
    redirectUri: `${base}/v1/session/oidc/callback`,
    postLogoutRedirectUri: `${base}/`,
  });
  svc = await startTestService({
    port,
    env: {
      SELFHOST_URL: base,
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: provider.clientId,
      OIDC_CLIENT_SECRET: provider.clientSecret,
      OIDC_ROLE_GROUPS: 'admin=docslurp-admins,editor=writers',
      OIDC_ALLOWED_DOMAINS: 'example.com',
      OIDC_DISPLAY_NAME: 'Example SSO',
    },
  }).catch(async (err) => {
    await provider.stop();
    throw err;
  });
  admin = client(base, await svc.key(['ingest', 'search', 'artifacts', 'admin']));
}, 120_000);
afterAll(async () => {
  await svc?.close();
  await provider?.stop();
});

describe('sign-in with the identity provider', () => {
  it('offers it on the sign-in page, beside the password', async () => {
    const options = await client(base).get('/v1/session/options');
    expect(options.body).toEqual({
      passwordSignIn: true,
      provider: { name: 'Example SSO', signInUrl: '/v1/session/oidc' },
    });
  });

  it('makes the user at their first sign-in, with the role and groups the provider says, and returns where it began', async () => {
    provider.signInAs('sub-ada', { email: 'ada@example.com', name: 'Ada', groups: ['writers', 'Research'] });
    const browser = new Browser();
    const { res, session } = await signIn(browser, '/workspaces/ws_x?tab=docs');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/workspaces/ws_x?tab=docs');
    expect(session.user).toMatchObject({
      email: 'ada@example.com',
      name: 'Ada',
      role: 'editor',
      groups: expect.arrayContaining([expect.objectContaining({ name: 'Research' })]),
    });
    const groups = (await admin.get('/v1/groups')).body.groups.map((g: { name: string }) => g.name);
    expect(groups).toEqual(expect.arrayContaining(['Research', 'writers']));
    const audit = await admin.get('/v1/audit?action=session');
    expect(audit.body.events[0]).toMatchObject({
      action: 'session.signed_in',
      actor: 'ada@example.com',
      details: { method: 'oidc' },
    });
  });

  it('replaces the groups (and the role) from the claim at every sign-in: access follows at once', async () => {
    const shared = await admin.post('/v1/workspaces', {
      name: 'Research notes',
      access: { read: { groups: ['Research'] }, edit: { groups: [] } },
    });
    expect(shared.status).toBe(201);
    provider.signInAs('sub-ada', { email: 'ada@example.com', groups: ['writers', 'Research'] });
    const before = new Browser();
    await signIn(before);
    expect((await before.get(`${base}/v1/workspaces/${shared.body.id}`)).status).toBe(200);

    provider.signInAs('sub-ada', { email: 'ada@example.com', groups: ['docslurp-admins'] });
    const after = new Browser();
    const { session } = await signIn(after);
    expect(session.user.role).toBe('admin');
    expect(session.user.groups.map((g: { name: string }) => g.name)).toEqual(['docslurp-admins']);
    // An admin sees every workspace; as an editor outside Research she would not.
    provider.signInAs('sub-ada', { email: 'ada@example.com', groups: ['writers'] });
    const third = new Browser();
    const again = await signIn(third);
    expect(again.session.user.role).toBe('editor');
    expect((await third.get(`${base}/v1/workspaces/${shared.body.id}`)).status).toBe(404);
  });

  it('links a user an admin made beforehand by e-mail, keeping what the provider does not say', async () => {
    const made = await admin.post('/v1/users', { email: 'bo@example.com', role: 'reader', name: 'Bo' });
    expect(made.status).toBe(201);
    provider.signInAs('sub-bo', { email: 'bo@example.com', groups: [] });
    const { session } = await signIn(new Browser());
    expect(session.user).toMatchObject({ id: made.body.id, role: 'reader', name: 'Bo' });
  });

  it('refuses an e-mail outside OIDC_ALLOWED_DOMAINS with a page saying so, and signs nobody in', async () => {
    provider.signInAs('sub-eve', { email: 'eve@elsewhere.org', groups: ['docslurp-admins'] });
    const { res, page, session } = await signIn(new Browser());
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(page).toContain('Addresses of elsewhere.org may not sign in here');
    expect(session).toBeUndefined();
    expect((await admin.get('/v1/users')).body.users.map((u: { email: string }) => u.email)).not.toContain(
      'eve@elsewhere.org',
    );
  });

  it('refuses a callback whose state was not begun in this browser (login CSRF)', async () => {
    provider.signInAs('sub-ada', { email: 'ada@example.com', groups: [] });
    const attacker = new Browser();
    const callback = await toCallback(attacker);
    // The victim's browser is handed the attacker's callback: it began no sign-in.
    const victim = new Browser();
    const res = await victim.get(callback);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('was not begun in this browser');
    expect((await victim.get(`${base}/v1/session`)).status).toBe(401);
  });

  it('refuses a changed state, and a replayed callback', async () => {
    provider.signInAs('sub-ada', { email: 'ada@example.com', groups: [] });
    const browser = new Browser();
    const callback = await toCallback(browser);
    const changed = new URL(callback);
    changed.searchParams.set('state', 'forged');
    expect((await browser.get(changed.toString())).status).toBe(400);

    const replay = new Browser();
    const honest = await toCallback(replay);
    expect((await replay.get(honest)).status).toBe(302);
    const state = new URL(honest).searchParams.get('state')!;
    // The same callback again, from a browser that still has the state: the sign-in is used up.
    const thief = new Browser();
    await thief.get(`${base}/v1/session/oidc`);
    const again = await fetch(honest, {
      redirect: 'manual',
      headers: { cookie: `docslurp_oidc_state=${state}` },
    });
    expect(again.status).toBe(400);
    expect(await again.text()).toContain('expired or was used already');
  });

  const tampered: [string, (c: Record<string, unknown>) => Record<string, unknown>, 'own' | 'foreign'][] = [
    ['a wrong audience', (c) => ({ ...c, aud: 'someone-else' }), 'own'],
    ['a wrong issuer', (c) => ({ ...c, iss: 'https://evil.example' }), 'own'],
    [
      'an expired token',
      (c) => ({ ...c, exp: Math.floor(Date.now() / 1000) - 3600, iat: Math.floor(Date.now() / 1000) - 7200 }),
      'own',
    ],
    ['a wrong nonce', (c) => ({ ...c, nonce: 'not-the-one-sent' }), 'own'],
    ['a signature from a key it does not publish', (c) => c, 'foreign'],
  ];
  for (const [what, change, key] of tampered) {
    it(`refuses an ID token with ${what}, with a page and a log line`, async () => {
      provider.signInAs('sub-ada', { email: 'ada@example.com', groups: [] });
      provider.tamper(change, key);
      try {
        const { res, page, session } = await signIn(new Browser());
        expect(res.status).toBe(401);
        expect(page).toContain('could not be verified');
        expect(session).toBeUndefined();
      } finally {
        provider.tamper(undefined);
      }
    });
  }

  it('signs in after the provider rotated its keys (fetches them again once)', async () => {
    provider.signInAs('sub-ada', { email: 'ada@example.com', groups: [] });
    expect((await signIn(new Browser())).session).toBeDefined();
    await provider.rotateKeys();
    provider.signInAs('sub-ada', { email: 'ada@example.com', groups: [] });
    const { res, session } = await signIn(new Browser());
    expect(res.status).toBe(302);
    expect(session.user.email).toBe('ada@example.com');
  });

  it('ends the provider’s session too at sign-out', async () => {
    provider.signInAs('sub-ada', { email: 'ada@example.com', groups: [] });
    const browser = new Browser();
    await signIn(browser);
    const session = (await (await browser.get(`${base}/v1/session`)).json()) as { csrfToken: string };
    const cookie = `docslurp_session=${browser.cookie(new URL(base).host, 'docslurp_session')}`;
    const out = await fetch(`${base}/v1/session`, {
      method: 'DELETE',
      headers: { cookie, 'x-csrf-token': session.csrfToken },
    });
    expect(out.status).toBe(200);
    const { endSessionUrl } = (await out.json()) as { endSessionUrl: string };
    expect(endSessionUrl.startsWith(`${provider.issuer}/`)).toBe(true);
    expect(new URL(endSessionUrl).searchParams.get('post_logout_redirect_uri')).toBe(`${base}/`);
    expect((await fetch(`${base}/v1/session`, { headers: { cookie } })).status).toBe(401);
  });

  it('answers a page when the provider is down, keeps password sign-in, and /ready says what is wrong', async () => {
    await admin.post('/v1/users', {
      email: 'pat@example.com',
      role: 'reader',
      password: 'a long password here',
    });
    provider.setUp(false);
    try {
      // The metadata was read before: a sign-in begins, and its callback meets the provider's failure.
      const browser = new Browser();
      const started = await browser.get(`${base}/v1/session/oidc`);
      expect([302, 502]).toContain(started.status);
      const password = await fetch(`${base}/v1/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'pat@example.com', password: 'a long password here' }),
      });
      expect(password.status).toBe(200);
    } finally {
      provider.setUp(true);
    }
  });
});

describe('a provider that is down when the server starts', () => {
  it('lets the server start, password sign-in work, and says so on the page and in /ready', async () => {
    const closed = await freePort();
    const port = await freePort();
    const down = await startTestService({
      port,
      worker: false,
      env: {
        SELFHOST_URL: `http://127.0.0.1:${port}`,
        OIDC_ISSUER: `http://127.0.0.1:${closed}`,
        OIDC_CLIENT_ID: 'docslurp',
        OIDC_DISPLAY_NAME: 'Down SSO',
      },
    });
    try {
      const url = `http://127.0.0.1:${port}`;
      const page = await fetch(`${url}/v1/session/oidc`, { redirect: 'manual' });
      expect(page.status).toBe(502);
      expect(await page.text()).toContain('Down SSO cannot be reached');
      const ready = await fetch(`${url}/ready`);
      expect(ready.status).toBe(200);
      const body = (await ready.json()) as { checks: Record<string, { ok: boolean; critical: boolean }> };
      expect(body.checks.identityProvider).toMatchObject({ ok: false, critical: false });
    } finally {
      await down.close();
    }
  });

  it('refuses password sign-in when CONSOLE_PASSWORD_SIGNIN is false, naming the provider', async () => {
    const port = await freePort();
    const only = await startTestService({
      port,
      worker: false,
      env: {
        SELFHOST_URL: `http://127.0.0.1:${port}`,
        OIDC_ISSUER: provider.issuer,
        OIDC_CLIENT_ID: provider.clientId,
        OIDC_DISPLAY_NAME: 'Example SSO',
        CONSOLE_PASSWORD_SIGNIN: 'false',
      },
    });
    try {
      const res = await client(`http://127.0.0.1:${port}`).post('/v1/session', {
        email: 'pat@example.com',
        password: 'a long password here',
      });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('password_sign_in_disabled');
      expect(res.body.error.message).toContain('sign in with Example SSO');
      expect((await client(`http://127.0.0.1:${port}`).get('/v1/session/options')).body.passwordSignIn).toBe(
        false,
      );
    } finally {
      await only.close();
    }
  });
});

describe('a service without an identity provider', () => {
  it('offers password sign-in only, and answers the sign-in steps with a page saying so', async () => {
    const plain = await startTestService({ worker: false });
    try {
      const options = await client(plain.url).get('/v1/session/options');
      expect(options.body).toEqual({ passwordSignIn: true, provider: null });
      for (const step of ['/v1/session/oidc', '/v1/session/oidc/callback?code=x&state=y']) {
        const res = await fetch(`${plain.url}${step}`, { redirect: 'manual' });
        expect(res.status).toBe(404);
        expect(res.headers.get('content-type')).toContain('text/html');
        expect(await res.text()).toContain('not set up here');
      }
    } finally {
      await plain.close();
    }
  });
});
