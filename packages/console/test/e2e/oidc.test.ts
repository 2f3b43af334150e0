import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProvider, type TestProvider } from '../../../service/test/support/oidc-provider.js';
import { freePort } from '../../../service/test/support/spawn.js';
import { api, axeFindings, type ConsoleUnderTest, startConsole, WIDTHS } from '../support/console.js';

/**
 * "Sign in with …" in a real Chromium against a real OpenID Provider (`oidc-provider`, the service's
 * test harness), on a server where only the provider signs people in (CONSOLE_PASSWORD_SIGNIN=false):
 * the sign-in page has the provider's button and no password form; the person comes back signed in
 * with the role and groups the provider gave, on the screen they asked for; signing out ends the
 * provider's session too and lands on the sign-in page again.
 */
const OWNER = { email: 'olga@example.com', password: 'correct horse battery staple' };
let provider: TestProvider;
let c: ConsoleUnderTest;
let page: Page;
let base: string;

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  provider = await startTestProvider({
    redirectUri: `${base}/v1/session/oidc/callback`,
    postLogoutRedirectUri: `${base}/`,
  });
  c = await startConsole(OWNER, {
    SERVER_PORT: String(port),
    SELFHOST_URL: base,
    OIDC_ISSUER: provider.issuer,
    OIDC_CLIENT_ID: provider.clientId,
    OIDC_CLIENT_SECRET: provider.clientSecret,
    OIDC_ROLE_GROUPS: 'admin=docslurp-admins,editor=writers',
    OIDC_DISPLAY_NAME: 'Example SSO',
    CONSOLE_PASSWORD_SIGNIN: 'false',
  }).catch(async (err) => {
    await provider.stop();
    throw err;
  });
  page = c.page;
}, 120_000);

afterAll(async () => {
  // The context first: a body the recorder still waits for (the provider's pages, left mid-load by
  // their redirects) would otherwise hold the browser's close for ever; closing ends those reads.
  await c?.browser.context.close();
  await c?.close();
  await provider?.stop();
});

describe('signing in with the identity provider', () => {
  it('offers only the provider when passwords are off, and the page passes axe-core', async () => {
    await page.goto(`${base}/`);
    await page.getByRole('link', { name: 'Sign in with Example SSO' }).waitFor();
    expect(await page.getByLabel('Password').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Sign in' }).count()).toBe(0);
    expect(await page.getByText('signs people in through Example SSO only').count()).toBe(1);
    for (const w of WIDTHS) {
      await page.setViewportSize({ width: w.width, height: w.height });
      expect(await axeFindings(page), `sign-in at ${w.width} px`).toEqual([]);
    }
    await page.setViewportSize({ width: WIDTHS[0].width, height: WIDTHS[0].height });
  });

  it('comes back signed in, on the screen asked for, with the role and groups the provider gave', async () => {
    provider.signInAs('sub-rita', {
      email: 'rita@example.com',
      name: 'Rita',
      groups: ['writers', 'Research'],
    });
    // A bookmark of a screen, opened signed out: the sign-in returns there.
    await page.goto(`${base}/workspaces`);
    await page.getByRole('link', { name: 'Sign in with Example SSO' }).click();
    await page.getByTestId('user-email').filter({ hasText: 'rita@example.com' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/workspaces');
    await page.getByRole('heading', { name: 'Workspaces', level: 1 }).waitFor();
    const session = await api(page, 'GET', '/v1/session');
    expect(session.body.user.role).toBe('editor');
    expect(session.body.user.groups.map((g: { name: string }) => g.name)).toEqual(['Research', 'writers']);
    // An editor: it may create workspaces, and sees none of the owners' and admins' screens.
    await page.getByTestId('dropzone').waitFor();
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Overview', 'Workspaces']);
  });

  it("ends the provider's session on signing out, and lands on the sign-in page", async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    // oidc-provider asks the person to confirm; a provider may as well end it at once.
    await page.waitForURL((u) => u.href.startsWith(provider.issuer));
    await page.getByRole('button', { name: /sign me out/i }).click();
    await page.waitForURL(`${base}/`);
    await page.getByRole('link', { name: 'Sign in with Example SSO' }).waitFor();
    expect((await api(page, 'GET', '/v1/session')).status).toBe(401);
  });
});
