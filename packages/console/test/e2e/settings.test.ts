import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
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
 * Issue 43, the console reaches what the API can do: a workspace's settings (name, description,
 * language; read-only for readers), sources edited in place with their patterns shown, syncs that
 * found nothing marked so, and a workspace's documents that fit a phone with their actions in reach.
 * One service, two browsers (the owner's and a reader's).
 */
const OWNER = { email: 'ada@example.com', password: 'correct horse battery staple' };
const READER = { email: 'rita@example.com', password: 'a reader password 123' };

let c: ConsoleUnderTest;
let page: Page;
let url: string;
let root: string;
let reader: TestBrowser | undefined;
const ids = {} as { ws: string; folder: string; bucket: string };

const overflow = (p: Page) =>
  p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
const setWidth = (w: (typeof WIDTHS)[number]) => page.setViewportSize({ width: w.width, height: w.height });

/** Waits for the source's sync under way (if any) to finish listing and its run to finish. */
async function settled(sourceId: string) {
  await expect
    .poll(
      async () => {
        const s = (await api(page, 'GET', `/v1/workspaces/${ids.ws}/sources/${sourceId}`)).body;
        return s.syncRunId === null && s.lastSync !== null;
      },
      { timeout: 60_000, interval: 250 },
    )
    .toBe(true);
  const s = (await api(page, 'GET', `/v1/workspaces/${ids.ws}/sources/${sourceId}`)).body;
  return waitForRun(page, s.lastSync.runId);
}

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'docslurp-settings-'));
  await mkdir(path.join(root, 'handbook', 'drafts'), { recursive: true });
  await writeFile(path.join(root, 'handbook', 'leave.md'), '# Leave\n\nStaff get thirty days of leave.\n');
  await writeFile(path.join(root, 'handbook', 'travel.md'), '# Travel\n\nTrains, not planes.\n');
  await writeFile(path.join(root, 'handbook', 'drafts', 'bonus.md'), '# Bonus\n\nNot decided yet.\n');
  c = await startConsole(OWNER, {
    SOURCE_FOLDER_ROOTS: root,
    ENCRYPTION_KEY: 'ab'.repeat(32),
    URL_FETCH_ALLOW_HOSTS: '127.0.0.1/32',
  });
  page = c.page;
  url = c.serve.url;
  await signIn(page, url, OWNER);
  const created = await api(page, 'POST', '/v1/users', { ...READER, role: 'reader' });
  expect(created.status).toBe(201);
  const ws = await api(page, 'POST', '/v1/workspaces', { name: 'Handbook' });
  ids.ws = ws.body.id;
  const up = await upload(
    page,
    [
      { name: 'a-rather-long-file-name-of-the-policies.md', data: '# Policies\n\nBe kind.\n' },
      { name: 'notes.txt', data: 'Some notes about the office.\n' },
    ],
    { workspaceId: ids.ws },
  );
  expect(up.status).toBe(202);
  await waitForRun(page, up.body.run.id);
}, 120_000);

afterAll(async () => {
  await reader?.close();
  await c?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('the settings of a workspace', () => {
  it('shows name, description and language, and saves them for one who may edit it', async () => {
    await page.goto(`${url}/workspaces/${ids.ws}`);
    const panel = page.getByTestId('settings');
    await panel.getByRole('heading', { name: 'Settings' }).waitFor();
    const form = panel.getByRole('form', { name: 'Settings' });
    expect(await form.getByLabel('Name').inputValue()).toBe('Handbook');
    expect(await form.getByLabel(/^Language/).inputValue()).toBe('auto');
    // The languages are the ones the service reads, by name.
    await form.getByLabel(/^Language/).selectOption({ label: 'German (de)' });
    await form.getByLabel('Name').fill('Staff handbook');
    await form.getByLabel(/^Description/).fill('What every new colleague reads first');
    await form.getByRole('button', { name: 'Save settings' }).click();
    await panel.getByText(/^Saved: documents processed from now on are read in the new language/).waitFor();
    const stored = (await api(page, 'GET', `/v1/workspaces/${ids.ws}`)).body;
    expect(stored).toMatchObject({
      name: 'Staff handbook',
      description: 'What every new colleague reads first',
      language: 'de',
    });
    // The heading follows, and the form shows what is stored.
    await page.getByRole('heading', { level: 1, name: 'Staff handbook' }).waitFor();
    expect(await form.getByLabel(/^Language/).inputValue()).toBe('de');
    // An empty description removes it.
    await form.getByLabel(/^Description/).fill('  ');
    await form.getByRole('button', { name: 'Save settings' }).click();
    await panel.getByText('Saved.', { exact: true }).waitFor();
    expect((await api(page, 'GET', `/v1/workspaces/${ids.ws}`)).body.description).toBeNull();
  });

  it("shows the server's own words when it refuses a language", async () => {
    // A console whose list names a language this server does not read (a newer server's list).
    await page.route('**/v1/formats', async (route) => {
      const real = await route.fetch();
      const body = await real.json();
      body.languages.push({ code: 'tlh', name: 'Klingon' });
      await route.fulfill({ response: real, json: body });
    });
    await page.goto(`${url}/workspaces/${ids.ws}`);
    const form = page.getByTestId('settings').getByRole('form', { name: 'Settings' });
    await form.getByLabel(/^Language/).selectOption({ label: 'Klingon (tlh)' });
    await form.getByRole('button', { name: 'Save settings' }).click();
    const error = form.getByRole('alert');
    await error.waitFor();
    expect(await error.textContent()).toContain(
      'The settings were not saved: The language "tlh" is not one this service reads; use "auto" or one of',
    );
    // The note has the keyboard's focus (the button did not go, but the answer is there).
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe(
      'action-note',
    );
    expect((await api(page, 'GET', `/v1/workspaces/${ids.ws}`)).body.language).toBe('de');
    await page.unroute('**/v1/formats');
  });

  it('shows a reader the settings read-only, with nothing to change', async () => {
    reader = await launchBrowser();
    await signIn(reader.page, url, READER);
    await reader.page.goto(`${url}/workspaces/${ids.ws}`);
    const panel = reader.page.getByTestId('settings');
    const summary = panel.getByTestId('settings-summary');
    await summary.waitFor();
    await expect.poll(() => summary.textContent()).toContain('German (de)');
    expect(await summary.textContent()).toBe('NameStaff handbookDescriptionnoneLanguageGerman (de)');
    expect(await panel.getByRole('textbox').count()).toBe(0);
    expect(await panel.getByRole('combobox').count()).toBe(0);
    expect(await panel.getByRole('button').count()).toBe(0);
    for (const w of WIDTHS) {
      await reader.page.setViewportSize({ width: w.width, height: w.height });
      expect(await axeFindings(reader.page), `reader's workspace at ${w.width} px`).toEqual([]);
    }
  });
});

describe('sources', () => {
  it('are added with patterns, and the list shows each source’s patterns', async () => {
    await page.goto(`${url}/workspaces/${ids.ws}/sources`);
    const form = page.getByRole('form', { name: 'Add a source' });
    await form.getByLabel('Type').selectOption('folder');
    await form.getByLabel(/^Name/).fill('Handbook folder');
    await form.getByLabel(/^Folder/).fill(path.join(root, 'handbook'));
    await form.getByLabel(/^Leave out/).fill('drafts/**');
    await form.getByRole('button', { name: 'Add source' }).click();
    await form.getByText('The source is added.').waitFor();
    const listed = (await api(page, 'GET', `/v1/workspaces/${ids.ws}/sources`)).body.sources;
    expect(listed).toHaveLength(1);
    ids.folder = listed[0].id;
    expect(listed[0].settings.exclude).toEqual(['drafts/**']);
    expect(listed[0].settings.include).toBeUndefined();
    const first = await settled(ids.folder);
    expect(first.counts).toMatchObject({ total: 2, ready: 2 });
    const row = page.locator(`tr[data-source="${ids.folder}"]`);
    await expect.poll(() => row.getByTestId('patterns').textContent()).toBe('exclude: drafts/**');
  });

  it('are edited in place: name, schedule and patterns', async () => {
    const row = page.locator(`tr[data-source="${ids.folder}"]`);
    await row.getByRole('button', { name: 'Edit Handbook folder' }).click();
    const form = page.getByRole('form', { name: 'Edit Handbook folder' });
    await form.waitFor();
    // The form holds what is stored, and has the keyboard's focus.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('name');
    expect(await form.getByLabel(/^Name/).inputValue()).toBe('Handbook folder');
    expect(await form.getByLabel(/^Sync every/).inputValue()).toBe('');
    expect(await form.getByLabel(/^Leave out/).inputValue()).toBe('drafts/**');
    for (const w of WIDTHS) {
      await setWidth(w);
      expect(await overflow(page), `source edit at ${w.width} px`).toBeLessThanOrEqual(0);
      expect(await axeFindings(page), `source edit at ${w.width} px`).toEqual([]);
    }
    await setWidth(WIDTHS[0]);
    await form.getByLabel(/^Name/).fill('Staff handbook folder');
    await form.getByLabel(/^Sync every/).fill('60');
    await form.getByLabel(/^Include only/).fill('*.md');
    await form.getByLabel(/^Leave out/).fill('drafts/**\n*.tmp');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Staff handbook folder is changed; its next sync applies it.').waitFor();
    expect(await form.count()).toBe(0);
    const stored = (await api(page, 'GET', `/v1/workspaces/${ids.ws}/sources/${ids.folder}`)).body;
    expect(stored).toMatchObject({ name: 'Staff handbook folder', intervalMinutes: 60 });
    expect(stored.settings).toMatchObject({
      path: path.join(root, 'handbook'),
      include: ['*.md'],
      exclude: ['drafts/**', '*.tmp'],
    });
    await expect
      .poll(() => row.getByTestId('patterns').textContent())
      .toBe('include: *.mdexclude: drafts/**, *.tmp');
    // Its documents stay: editing is not deleting.
    const docs = (await api(page, 'GET', `/v1/workspaces/${ids.ws}/documents`)).body.documents;
    expect(docs.filter((d: { source: string | null }) => d.source === ids.folder)).toHaveLength(2);
  });

  it("replace a bucket's keys without ever showing them", async () => {
    const created = await api(page, 'POST', `/v1/workspaces/${ids.ws}/sources`, {
      type: 's3',
      name: 'Archive bucket',
      settings: { endpoint: 'http://127.0.0.1:9', bucket: 'archive' },
      credentials: { accessKeyId: 'AKIAOLDKEY', secretAccessKey: 'old-secret-value' },
    });
    expect(created.status).toBe(201);
    ids.bucket = created.body.id;
    await settled(ids.bucket);
    await page.reload();
    const row = page.locator(`tr[data-source="${ids.bucket}"]`);
    await row.getByRole('button', { name: 'Edit Archive bucket' }).click();
    const form = page.getByRole('form', { name: 'Edit Archive bucket' });
    await form.getByTestId('keys-state').waitFor();
    expect(await form.getByTestId('keys-state').textContent()).toContain('Keys are stored');
    expect(await form.getByLabel('New access key id').inputValue()).toBe('');
    expect(await form.getByLabel('New secret access key').inputValue()).toBe('');
    const html = await page.content();
    expect(html).not.toContain('AKIAOLDKEY');
    expect(html).not.toContain('old-secret-value');
    await form.getByLabel('New access key id').fill('AKIANEWKEY');
    await form.getByLabel('New secret access key').fill('new-secret-value');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Archive bucket is changed; its next sync applies it.').waitFor();
    const events = (await api(page, 'GET', `/v1/audit?action=source.updated&target=${ids.bucket}`)).body
      .events;
    expect(events[0].details.changed).toContain('credentials');
    expect(JSON.stringify(events)).not.toContain('new-secret-value');
    expect(
      (await api(page, 'GET', `/v1/workspaces/${ids.ws}/sources/${ids.bucket}`)).body.hasCredentials,
    ).toBe(true);
    // Cancelling gives the focus back to the Edit button.
    await row.getByRole('button', { name: 'Edit Archive bucket' }).click();
    await form.getByRole('button', { name: 'Cancel editing' }).click();
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-edit')))
      .toBe(ids.bucket);
    await api(page, 'DELETE', `/v1/workspaces/${ids.ws}/sources/${ids.bucket}`);
  });
});

describe('syncs that found nothing new', () => {
  it('are folded in the run list, shown on request marked "no changes", and their run says so', async () => {
    // Nothing changed in the folder since: a sync that finds nothing, twice.
    let lastRun = '';
    for (let i = 0; i < 2; i++) {
      const r = await api(page, 'POST', `/v1/workspaces/${ids.ws}/sources/${ids.folder}/sync`, {});
      expect(r.status).toBe(202);
      lastRun = r.body.run.id;
      await settled(ids.folder);
    }
    // The source says when it was last checked (by the second sync), and that it found nothing.
    await page.goto(`${url}/workspaces/${ids.ws}/sources`);
    const cell = page.locator(`tr[data-source="${ids.folder}"]`).getByTestId('last-sync');
    await cell.getByTestId('last-checked').waitFor();
    const source = (await api(page, 'GET', `/v1/workspaces/${ids.ws}/sources/${ids.folder}`)).body;
    expect(source.lastSync.runId).toBe(lastRun);
    expect(await cell.getByTestId('last-checked').textContent()).toMatch(/^last checked \S/);
    expect(await cell.getByTestId('last-checked').locator('time').getAttribute('datetime')).toBe(
      source.lastCheckedAt,
    );
    expect(await cell.getByTestId('no-changes').textContent()).toBe('no changes');

    await page.goto(`${url}/workspaces/${ids.ws}`);
    const runs = page.getByTestId('runs');
    await runs.waitFor();
    const items = runs.locator('li');
    // Folded: only the sync that brought documents, and a toggle that says how many are left out.
    expect(await items.filter({ hasText: 'Sync of Staff handbook folder' }).count()).toBe(1);
    expect(await runs.getByTestId('no-changes').count()).toBe(0);
    const toggle = page.getByTestId('show-quiet-syncs');
    expect(await toggle.textContent()).toBe('Show 2 syncs with no changes');
    expect(await toggle.getAttribute('aria-pressed')).toBe('false');
    await toggle.click();
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    const syncs = await items.filter({ hasText: 'Sync of Staff handbook folder' }).all();
    expect(syncs).toHaveLength(3);
    // Newest first: the two that found nothing, then the first, which brought two documents.
    const marks = await Promise.all(syncs.map((li) => li.getByTestId('no-changes').count()));
    expect(marks).toEqual([1, 1, 0]);
    expect(await syncs[0]!.textContent()).toContain('completed no changes');
    // The upload's run is no sync: never marked.
    expect(await items.filter({ hasText: 'Upload of 2 files' }).getByTestId('no-changes').count()).toBe(0);

    await syncs[0]!.getByRole('link').click();
    await page.getByTestId('sync-changes').waitFor();
    expect(await page.getByTestId('sync-changes').textContent()).toBe(
      'No changes: the sync found nothing new (2 items unchanged).',
    );
    await page.goBack();
    await runs.waitFor();
    // Back on the workspace, the list is folded again: the sync that found something is the one shown.
    await items.filter({ hasText: 'Sync of Staff handbook folder' }).getByRole('link').click();
    await page.getByTestId('sync-changes').waitFor();
    expect(await page.getByTestId('sync-changes').textContent()).toBe(
      'The sync found 2 new; 0 items unchanged.',
    );
  });
});

describe('a workspace on a phone', () => {
  it('lays its documents out as blocks at 390 px, sizes, pages and actions in view', async () => {
    await page.goto(`${url}/workspaces/${ids.ws}`);
    const table = page.getByTestId('documents');
    await table.waitFor();
    for (const w of WIDTHS) {
      await setWidth(w);
      await table.locator('tbody tr').first().waitFor();
      expect(await overflow(page), `workspace at ${w.width} px`).toBeLessThanOrEqual(0);
      // No sideways scrolling inside the table's box either.
      const box = table.locator('xpath=..');
      const widths = await box.evaluate((e) => [e.scrollWidth, e.clientWidth]);
      expect(widths[0]!, `documents' box at ${w.width} px`).toBeLessThanOrEqual(widths[1]!);
      const rows = await table.locator('tbody tr').all();
      expect(rows).toHaveLength(4);
      for (const row of rows) {
        const name = (await row.getAttribute('data-document')) ?? '';
        for (const target of [
          row.getByRole('link', { name: /^Download/ }),
          row.getByRole('button', { name: /^Delete/ }),
          // By position, as the table's columns are: Document, State, Size, Pages.
          row.locator('td:nth-child(3)'),
          row.locator('td:nth-child(4)'),
        ]) {
          expect(await target.isVisible(), `${name} at ${w.width} px`).toBe(true);
          const b = (await target.boundingBox())!;
          expect(b.x, `${name} at ${w.width} px`).toBeGreaterThanOrEqual(0);
          expect(b.x + b.width, `${name} at ${w.width} px`).toBeLessThanOrEqual(w.width);
        }
      }
      if (w.width === 390) {
        // A row is a block, its short numbers side by side: not a line each.
        const size = (await rows[0]!.locator('td:nth-child(3)').boundingBox())!;
        const pages = (await rows[0]!.locator('td:nth-child(4)').boundingBox())!;
        expect(Math.abs(size.y - pages.y)).toBeLessThan(4);
      }
      expect(await axeFindings(page), `workspace at ${w.width} px`).toEqual([]);
    }
    await setWidth(WIDTHS[0]);
  });
});
