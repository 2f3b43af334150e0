import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type TestBrowser } from '../support/browser.js';
import {
  api,
  axeFindings,
  type ConsoleUnderTest,
  signIn,
  startConsole,
  upload,
  WIDTHS,
  waitForRun,
} from '../support/console.js';

/**
 * Issue 39 in the console: an owner invites a reader and an editor, makes groups, restricts a
 * workspace and a document to a group; the reader sees neither them nor a button it may not use;
 * the editor uploads; the audit log shows it all. One service, three browsers (one per person).
 */
const OWNER = { email: 'olga@example.com', password: 'correct horse battery staple' };
const READER = { email: 'rita@example.com', password: 'a reader password 123' };
const EDITOR = { email: 'ed@example.com', password: 'an editor password 456' };

let c: ConsoleUnderTest;
let page: Page;
let url: string;
const others: TestBrowser[] = [];
const ids = {} as { policies: string; secret: string; handbook: string; salaries: string; hr: string };

const overflow = (p: Page) =>
  p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** A second person's own browser (own cookies), signed in. */
async function browserOf(who: { email: string; password: string }): Promise<Page> {
  const b = await launchBrowser();
  others.push(b);
  await signIn(b.page, url, who);
  return b.page;
}

beforeAll(async () => {
  c = await startConsole(OWNER);
  page = c.page;
  url = c.serve.url;
  await signIn(page, url, OWNER);
}, 120_000);

afterAll(async () => {
  for (const b of others) await b.close();
  await c?.close();
});

describe('people and groups', () => {
  it('lets the owner invite a reader and an editor with their roles', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'People' }).click();
    await page.getByRole('heading', { name: 'People', level: 1 }).waitFor();
    for (const [who, role] of [
      [READER, 'reader'],
      [EDITOR, 'editor'],
    ] as const) {
      const form = page.getByRole('form', { name: 'Invite someone' });
      await form.getByLabel('Email').fill(who.email);
      await form.getByLabel('Role').selectOption(role);
      await form.getByLabel(/^Password/).fill(who.password);
      await form.getByRole('button', { name: 'Invite' }).click();
      await form.getByText(`${who.email} is added as ${role}.`).waitFor();
      // The role select of the row says what the service stored.
      await expect
        .poll(() => page.getByRole('combobox', { name: `Role of ${who.email}` }).inputValue())
        .toBe(role);
    }
    const users = await api(page, 'GET', '/v1/users');
    expect(users.body.users.map((u: { email: string; role: string }) => [u.email, u.role]).sort()).toEqual([
      [EDITOR.email, 'editor'],
      [OWNER.email, 'owner'],
      [READER.email, 'reader'],
    ]);
  });

  it('creates groups, renames one and adds members', async () => {
    await page.goto(`${url}/groups`);
    const form = page.getByRole('form', { name: 'Create a group' });
    for (const name of ['Human resources', 'Board']) {
      await form.getByLabel('Name').fill(name);
      await form.getByRole('button', { name: 'Create group' }).click();
      await page.locator(`tr[data-group="${name}"]`).waitFor();
    }
    // Renamed in place; the keyboard comes back to its Rename button.
    await page.getByRole('button', { name: 'Rename group Human resources' }).click();
    await page.getByLabel('New name of group Human resources').fill('HR');
    await page.keyboard.press('Enter');
    await page.locator('tr[data-group="HR"]').waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Rename group HR');

    const hr = page.locator('tr[data-group="HR"]');
    await hr.getByLabel('Person to add to HR').selectOption({ label: READER.email });
    await hr.getByRole('button', { name: 'Add to HR' }).click();
    await hr.getByTestId('members').getByText(READER.email).waitFor();

    const groups = await api(page, 'GET', '/v1/groups');
    const users = await api(page, 'GET', '/v1/users');
    const idOf = (email: string) => users.body.users.find((u: { email: string }) => u.email === email).id;
    const byName = Object.fromEntries(
      groups.body.groups.map((g: { name: string; members: string[] }) => [g.name, g.members]),
    );
    expect(byName).toEqual({ HR: [idOf(READER.email)], Board: [] });
    ids.hr = groups.body.groups.find((g: { name: string }) => g.name === 'HR').id;
    // The People screen names the reader's group.
    await page.goto(`${url}/people`);
    await expect.poll(() => page.locator(`tr[data-user="${READER.email}"]`).textContent()).toContain('HR');
  });
});

describe('who may see what', () => {
  it('restricts an upload to a group, and a workspace through its Sharing panel', async () => {
    const open = await upload(
      page,
      [
        {
          name: 'handbook.md',
          type: 'text/markdown',
          data: '# Handbook\n\nWelcome aboard: lunch is at noon.\n',
        },
      ],
      { workspaceName: 'Policies' },
    );
    expect(open.status).toBe(202);
    ids.policies = open.body.workspace.id;
    ids.handbook = open.body.documents[0].id;
    await waitForRun(page, open.body.run.id);

    // The uploader's access choice applies to every file of the upload.
    await page.goto(`${url}/workspaces/${ids.policies}`);
    await page.getByTestId('file-input').setInputFiles([
      {
        name: 'salaries.md',
        mimeType: 'text/markdown',
        buffer: Buffer.from('# Salaries\n\nThe salary bands of the board, confidential.\n'),
      },
    ]);
    const who = page.getByRole('group', { name: 'Who may read these files' });
    await who.getByLabel(/Only the groups and people chosen/).check();
    await who.getByLabel('group Board').check();
    await page.getByRole('button', { name: /^Add 1 file/ }).click();
    await page.waitForURL(/\/runs\//);
    const runId = new URL(page.url()).pathname.split('/').pop()!;
    await waitForRun(page, runId);
    const docs = await api(page, 'GET', `/v1/workspaces/${ids.policies}/documents`);
    const salaries = docs.body.documents.find((d: { filename: string }) => d.filename === 'salaries.md');
    ids.salaries = salaries.id;
    const board = (await api(page, 'GET', '/v1/groups')).body.groups.find(
      (g: { name: string }) => g.name === 'Board',
    );
    expect(salaries.access).toEqual({ users: [], groups: [board.id] });

    await page.goto(`${url}/workspaces/${ids.policies}`);
    await page.locator('tr[data-document="salaries.md"]').getByTestId('restricted').waitFor();
    expect(await page.locator('tr[data-document="handbook.md"]').getByTestId('restricted').count()).toBe(0);

    // A second workspace, shared with the board only.
    const secret = await upload(
      page,
      [{ name: 'minutes.md', type: 'text/markdown', data: '# Minutes\n\nThe board met on Monday.\n' }],
      { workspaceName: 'Board room' },
    );
    ids.secret = secret.body.workspace.id;
    await waitForRun(page, secret.body.run.id);
    await page.goto(`${url}/workspaces/${ids.secret}`);
    const sharing = page.getByTestId('sharing');
    await expect
      .poll(() => sharing.getByTestId('sharing-summary').textContent())
      .toContain('Everyone in the account');
    await sharing.getByLabel(/Only the groups and people chosen/).check();
    await sharing.getByRole('group', { name: 'May read' }).getByLabel('group Board').check();
    await sharing.getByRole('button', { name: 'Save sharing' }).click();
    await sharing.getByText(/^Saved: only the groups and people chosen/).waitFor();
    await expect
      .poll(() => sharing.getByTestId('sharing-summary').textContent())
      .toMatch(/May read\s*group Board/);
    const ws = await api(page, 'GET', `/v1/workspaces/${ids.secret}`);
    expect(ws.body.access).toEqual({
      read: { users: [], groups: [board.id] },
      edit: { users: [], groups: [] },
    });
  });

  it("changes a document's access on its page", async () => {
    await page.goto(`${url}/documents/${ids.handbook}`);
    const summary = page.getByTestId('document-access-summary');
    await expect.poll(() => summary.textContent()).toBe('Everyone who may read the workspace');
    await page.getByRole('button', { name: 'Change who may read it' }).click();
    const form = page.getByRole('form', { name: 'Who may read it' });
    await form.getByLabel(/Only the groups and people chosen/).check();
    await form.getByLabel('group HR').check();
    await form.getByRole('button', { name: 'Save access' }).click();
    await expect.poll(() => summary.textContent()).toBe('Only group HR');
    // The form is gone; the screen's note says what changed and has the keyboard's focus.
    expect(await form.count()).toBe(0);
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid')))
      .toBe('action-note');
    expect((await api(page, 'GET', `/v1/documents/${ids.handbook}`)).body.access).toEqual({
      users: [],
      groups: [ids.hr],
    });
  });
});

describe('a reader', () => {
  let reader: Page;
  beforeAll(async () => {
    reader = await browserOf(READER);
  }, 60_000);

  it('sees no button it may not use', async () => {
    const nav = reader.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Overview', 'Workspaces']);
    await reader.goto(`${url}/workspaces`);
    await reader.getByTestId('workspaces').waitFor();
    expect(await reader.getByTestId('dropzone').count()).toBe(0);
    expect(await reader.getByRole('button', { name: 'Create workspace' }).count()).toBe(0);

    await reader.goto(`${url}/workspaces/${ids.policies}`);
    await reader.locator('tr[data-document="handbook.md"]').waitFor();
    expect(await reader.getByRole('heading', { name: 'Add documents' }).count()).toBe(0);
    expect(await reader.getByTestId('dropzone').count()).toBe(0);
    expect(
      await reader.getByRole('button', { name: /Delete|Rename|Process again|Save sharing/ }).count(),
    ).toBe(0);
    // Download stays: reading is what a reader does.
    await reader.getByRole('link', { name: 'Download handbook.md' }).waitFor();

    await reader.goto(`${url}/documents/${ids.handbook}`);
    await reader.getByTestId('document-access-summary').waitFor();
    expect(
      await reader.getByRole('button', { name: /Delete|Change who may read it|Process again/ }).count(),
    ).toBe(0);

    await reader.goto(`${url}/workspaces/${ids.policies}/sources`);
    await reader.getByText('No sources yet.').waitFor();
    expect(await reader.getByRole('button', { name: 'Add source' }).count()).toBe(0);

    // A bookmark of an admin's screen says so, and asks the service for nothing it would refuse.
    const asked: string[] = [];
    reader.on('request', (r) => asked.push(new URL(r.url()).pathname));
    await reader.goto(`${url}/people`);
    await reader.getByText('Only owners and admins see this screen.').waitFor();
    expect(asked).not.toContain('/v1/users');
  });

  it('sees neither the restricted document nor the restricted workspace, in lists or in search', async () => {
    await reader.goto(`${url}/workspaces`);
    const list = reader.getByTestId('workspaces');
    await list.getByRole('link', { name: 'Policies' }).waitFor();
    expect(await list.getByRole('link', { name: 'Board room' }).count()).toBe(0);

    await reader.goto(`${url}/workspaces/${ids.policies}`);
    await reader.locator('tr[data-document="handbook.md"]').waitFor();
    expect(await reader.locator('tr[data-document="salaries.md"]').count()).toBe(0);

    // Search finds the visible document's words, and nothing of the hidden one.
    await reader.goto(`${url}/workspaces/${ids.policies}/search?q=lunch+noon`);
    await expect.poll(() => reader.getByTestId('search-results').textContent()).toContain('handbook.md');
    // The same search finds the hidden document for the owner: it is there, and hidden from the reader.
    const hidden = `${url}/workspaces/${ids.policies}/search?q=salary+bands+confidential`;
    await page.goto(hidden);
    await expect.poll(() => page.getByTestId('search-results').textContent()).toContain('salaries.md');
    await reader.goto(hidden);
    await reader
      .getByTestId('search-results')
      .or(reader.getByText(/No passage matches/))
      .first()
      .waitFor();
    expect(await reader.getByText('salaries.md').count()).toBe(0);
    // Neither its name nor a word of its text among the passages found.
    const found = (await reader.locator('[data-testid="search-results"]').allTextContents()).join(' ');
    expect(found).not.toMatch(/salar|confidential/i);

    await reader.goto(`${url}/documents/${ids.salaries}`);
    await reader.getByRole('heading', { name: 'Document not found' }).waitFor();
    await reader.goto(`${url}/workspaces/${ids.secret}`);
    await reader.getByRole('heading', { name: 'Workspace not found' }).waitFor();
  });
});

describe('an editor', () => {
  it('uploads to a workspace it may edit, and manages nobody', async () => {
    const editor = await browserOf(EDITOR);
    const nav = editor.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Overview', 'Workspaces']);
    await editor.goto(`${url}/workspaces/${ids.policies}`);
    await editor.getByRole('heading', { name: 'Add documents' }).waitFor();
    expect(await editor.getByRole('button', { name: 'Delete workspace' }).count()).toBe(0);
    expect(await editor.getByRole('button', { name: 'Save sharing' }).count()).toBe(0);
    await editor
      .getByTestId('file-input')
      .setInputFiles([
        { name: 'travel.md', mimeType: 'text/markdown', buffer: Buffer.from('# Travel\n\nBook trains.\n') },
      ]);
    await editor.getByRole('button', { name: /^Add 1 file/ }).click();
    await editor.waitForURL(/\/runs\//);
    const runId = new URL(editor.url()).pathname.split('/').pop()!;
    await waitForRun(editor, runId);
    await editor.goto(`${url}/workspaces/${ids.policies}`);
    await editor.locator('tr[data-document="travel.md"]').waitFor();
    await editor.getByRole('button', { name: 'Delete: travel.md' }).waitFor();
  });
});

describe('the audit log', () => {
  it('lists the changes, and filters them', async () => {
    await page.goto(`${url}/audit`);
    const events = page.getByTestId('audit-events');
    await events.waitFor();
    const actions = await events
      .locator('tr[data-action]')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-action')));
    for (const a of [
      'user.created',
      'group.created',
      'group.renamed',
      'group.member_added',
      'workspace.access_changed',
      'document.access_changed',
      'session.signed_in',
    ])
      expect(actions).toContain(a);
    // Newest first: the editor's sign-in came after the owner restricted the board's workspace.
    expect(actions.indexOf('session.signed_in')).toBeLessThan(actions.indexOf('workspace.access_changed'));

    await page.getByLabel(/^Action/).fill('group');
    await page.getByRole('button', { name: 'Show events' }).click();
    await page.waitForURL(/action=group/);
    await expect
      .poll(() =>
        events
          .locator('tr[data-action]')
          .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-action'))),
      )
      .toEqual(['group.member_added', 'group.renamed', 'group.created', 'group.created']);
    await expect
      .poll(() => events.locator('tr[data-action="group.renamed"]').textContent())
      .toContain(OWNER.email);
  });
});

describe('the new screens', () => {
  it('fit a phone and a laptop, and axe-core finds nothing serious on them', async () => {
    const screens = [
      ['people', '/people', 'People'],
      ['groups', '/groups', 'Groups'],
      ['audit', '/audit', 'Audit log'],
      ['workspace sharing', `/workspaces/${ids.secret}`, 'Board room'],
    ] as const;
    for (const w of WIDTHS) {
      await page.setViewportSize({ width: w.width, height: w.height });
      for (const [name, path, heading] of screens) {
        await page.goto(`${url}${path}`);
        await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
        await page.locator('table, [data-testid="sharing"]').first().waitFor();
        expect(await overflow(page), `${name} at ${w.width} px`).toBeLessThanOrEqual(0);
        expect(await axeFindings(page), `${name} at ${w.width} px`).toEqual([]);
      }
      // The document's access form open, and the uploader's choice shown.
      await page.goto(`${url}/documents/${ids.handbook}`);
      await page.getByRole('button', { name: 'Change who may read it' }).click();
      await page.getByLabel('group HR').waitFor();
      expect(await overflow(page), `document access at ${w.width} px`).toBeLessThanOrEqual(0);
      expect(await axeFindings(page), `document access at ${w.width} px`).toEqual([]);
      await page.goto(`${url}/workspaces/${ids.policies}`);
      await page
        .getByTestId('file-input')
        .setInputFiles([{ name: 'draft.md', mimeType: 'text/markdown', buffer: Buffer.from('# Draft\n') }]);
      await page
        .getByRole('group', { name: 'Who may read these files' })
        .getByLabel(/Only the groups/)
        .check();
      await page.getByLabel('group Board').waitFor();
      expect(await overflow(page), `uploader at ${w.width} px`).toBeLessThanOrEqual(0);
      expect(await axeFindings(page), `uploader at ${w.width} px`).toEqual([]);
    }
    await page.setViewportSize({ width: WIDTHS[0].width, height: WIDTHS[0].height });
  });
});
