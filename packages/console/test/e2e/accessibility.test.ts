// Over 400 lines: every screen of the console at two widths under axe-core, and where the keyboard's
// focus goes, against one running service (a start and a browser cost seconds).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDocx, makePdf } from '../../../service/test/support/fixtures.js';
import { type Receiver, startReceiver } from '../../../service/test/support/webhook-receiver.js';
import { screenshotDir } from '../support/browser.js';
import {
  api,
  axeFindings,
  brokenWords,
  type ConsoleUnderTest,
  focused,
  startConsole,
  upload,
  WIDTHS,
  waitForRun,
} from '../support/console.js';

/**
 * Issue 28, the console for people who use a keyboard, a screen reader or a phone: axe-core finds no
 * serious or critical problem on any screen at 1280 and 390 px; focus never drops to the page after
 * an action; Escape closes what it opened; two-column facts and stacked tables keep words whole.
 */
const ADA = { email: 'ada@example.com', password: 'correct horse battery staple' };
let c: ConsoleUnderTest;
let page: Page;
let url: string;
let shots: string;
const shot = (p: Page, name: string) => p.screenshot({ path: path.join(shots, `${name}.png`) });
let receiver: Receiver;
let root: string;
const ids = {} as {
  workspace: string;
  pdf: string;
  guide: string;
  cancelledRun: string;
  webhook: string;
};

/** A Markdown text that skips heading levels and holds a code line wider than any screen. */
const GUIDE = [
  '# Installing',
  '',
  'Install the package, then start it.',
  '',
  '### Requirements',
  '',
  'A machine with two cores.',
  '',
  '```',
  `docslurp --config /etc/docslurp/config.toml --data-dir /var/lib/docslurp --port 8080 --log-level debug --workers 4 ${'--flag '.repeat(12)}`,
  '```',
  '',
  '| Setting | Default | Meaning |',
  '| --- | --- | --- |',
  '| SERVER_PORT | 8080 | the port the server listens on |',
  '',
].join('\n');

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'docslurp-a11y-sources-'));
  await mkdir(path.join(root, 'manual', 'apps'), { recursive: true });
  await writeFile(path.join(root, 'manual', 'apps', 'index.md'), '# Apps\n\nThe apps of the box.\n');
  receiver = await startReceiver();
  shots = await screenshotDir();
  c = await startConsole(ADA, {
    SOURCE_FOLDER_ROOTS: root,
    URL_FETCH_ALLOW_HOSTS: '127.0.0.1',
    WEBHOOK_POLL_INTERVAL_SECONDS: '0.2',
  });
  page = c.page;
  url = c.serve.url;
}, 120_000);

afterAll(async () => {
  await c?.close();
  if (process.env.UPDATE_SCREENSHOTS !== '1' && shots) await rm(shots, { recursive: true, force: true });
  await receiver?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

const setWidth = (w: (typeof WIDTHS)[number]) => page.setViewportSize({ width: w.width, height: w.height });

describe('the keyboard after signing in', () => {
  it('goes back to the password after a failed sign-in, and to the content after signing in', async () => {
    await page.goto(`${url}/`);
    for (const w of WIDTHS) {
      await setWidth(w);
      expect(await axeFindings(page), `sign-in at ${w.width} px`).toEqual([]);
    }
    await setWidth(WIDTHS[0]);
    await page.getByLabel('Email').fill(ADA.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    // Not the page: the password, to be typed again, with the alert saying what was wrong.
    expect(await focused(page)).toMatchObject({ tag: 'INPUT', name: 'password', body: false });
    expect(await page.getByLabel('Password').evaluate((e) => (e as HTMLInputElement).selectionEnd)).toBe(
      'not the password'.length,
    );
    await page.keyboard.type(ADA.password);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    expect(await focused(page)).toMatchObject({ id: 'main', body: false });
  });
});

describe('every screen under axe-core', () => {
  it('has data to show on every screen', async () => {
    const hook = await api(page, 'POST', '/v1/webhooks', {
      url: receiver.url('/a11y'),
      events: ['run.completed', 'document.ready'],
      description: 'build notifier',
    });
    expect(hook.status).toBe(201);
    ids.webhook = hook.body.webhook.id;
    const up = await upload(
      page,
      [
        { name: 'handbook.pdf', data: makePdf(['Welcome.', 'Travel expenses are paid within 30 days.']) },
        { name: 'guide.md', data: GUIDE, type: 'text/markdown' },
        {
          name: 'policy.docx',
          data: makeDocx(['# Vacation', 'Every employee receives 25 days of vacation.']),
        },
      ],
      { workspaceName: 'Company handbook' },
    );
    ids.workspace = up.body.workspace.id;
    await waitForRun(page, up.body.run.id);
    const doc = (name: string) => up.body.documents.find((d: { filename: string }) => d.filename === name).id;
    ids.pdf = doc('handbook.pdf');
    ids.guide = doc('guide.md');
    // A run cancelled at once: most of its documents are cancelled (the badge whose contrast was short).
    // More than a batch (500 in embedded mode), so that many still wait when the cancel arrives: the
    // worker starts on an upload at once, on up to a batch of it. Numbered down, so that the last
    // (the cancelled ones) come first on the run's page, which lists documents by name.
    const many = Array.from({ length: 800 }, (_, i) => ({ name: `memo-${800 - i}.txt`, data: `Memo ${i}.` }));
    const cancelled = await upload(page, many, { workspaceId: ids.workspace });
    await api(page, 'POST', `/v1/runs/${cancelled.body.run.id}/cancel`);
    ids.cancelledRun = cancelled.body.run.id;
    const settled = await waitForRun(page, ids.cancelledRun);
    expect(settled.counts.cancelled).toBeGreaterThan(0);
    const source = await api(page, 'POST', `/v1/workspaces/${ids.workspace}/sources`, {
      type: 'folder',
      name: 'Manual folder',
      settings: { path: path.join(root, 'manual') },
    });
    await api(page, 'POST', `/v1/workspaces/${ids.workspace}/sources/${source.body.id}/sync`, {});
    expect((await api(page, 'POST', '/v1/keys', { name: 'reporting job', scopes: ['search'] })).status).toBe(
      201,
    );
    await receiver.waitFor('/a11y', 1);
    // A chat answer in this tab's conversation.
    await page.goto(`${url}/workspaces/${ids.workspace}/chat`);
    await page.getByLabel('Ask a question').fill('How many days of vacation does an employee receive?');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.getByTestId('citations').waitFor();
  });

  const screens: { name: string; path: () => string; ready: (p: Page) => Promise<unknown> }[] = [
    { name: 'overview', path: () => '/', ready: (p) => p.getByTestId('document-counts').waitFor() },
    { name: 'workspaces', path: () => '/workspaces', ready: (p) => p.getByTestId('workspaces').waitFor() },
    {
      name: 'workspace',
      path: () => `/workspaces/${ids.workspace}`,
      ready: (p) => p.locator('[data-testid=documents] tbody tr').first().waitFor(),
    },
    {
      name: 'search',
      path: () => `/workspaces/${ids.workspace}/search?q=travel+expenses`,
      ready: (p) => p.getByTestId('search-results').waitFor(),
    },
    {
      name: 'chat',
      path: () => `/workspaces/${ids.workspace}/chat`,
      ready: (p) => p.getByTestId('citations').waitFor(),
    },
    {
      name: 'sources',
      path: () => `/workspaces/${ids.workspace}/sources`,
      ready: (p) => p.locator('[data-testid=sources] tbody tr').first().waitFor(),
    },
    {
      name: 'cancelled run',
      path: () => `/runs/${ids.cancelledRun}`,
      ready: (p) => p.locator('[data-testid=run-documents] .status-cancelled').first().waitFor(),
    },
    {
      name: 'PDF',
      path: () => `/documents/${ids.pdf}?view=pdf&page=2`,
      ready: (p) => p.locator('.pdf-page[data-page="2"][data-rendered="true"]').waitFor(),
    },
    {
      name: 'extracted text',
      path: () => `/documents/${ids.guide}`,
      ready: (p) => p.getByTestId('text-view').locator('pre.md-code').waitFor(),
    },
    { name: 'API keys', path: () => '/keys', ready: (p) => p.getByTestId('keys').waitFor() },
    { name: 'webhooks', path: () => '/webhooks', ready: (p) => p.getByTestId('webhooks').waitFor() },
    {
      name: 'webhook',
      path: () => `/webhooks/${ids.webhook}`,
      ready: (p) => p.getByTestId('deliveries').waitFor(),
    },
    {
      name: 'not found',
      path: () => '/no/such/screen',
      ready: (p) => p.getByRole('heading', { name: 'Not found' }).waitFor(),
    },
  ];

  for (const w of WIDTHS) {
    it(`finds nothing serious or critical on any screen at ${w.width} px`, async () => {
      await setWidth(w);
      const found: Record<string, unknown> = {};
      for (const s of screens) {
        await page.goto(url + s.path());
        await s.ready(page);
        const findings = await axeFindings(page);
        // axe calls an empty header cell minor; an actions column is named all the same.
        const unnamed = await page
          .locator('main th')
          .evaluateAll((ths) =>
            ths.filter((th) => (th.textContent ?? '').trim() === '').map((th) => th.outerHTML),
          );
        if (unnamed.length > 0)
          findings.push({ id: 'empty-table-header', impact: 'minor', help: '', targets: unnamed });
        if (findings.length > 0) found[s.name] = findings;
      }
      if (w.width < 760) {
        // The phone's menu, open.
        await page.getByRole('button', { name: 'Menu' }).click();
        const findings = await axeFindings(page);
        if (findings.length > 0) found['open menu'] = findings;
      }
      expect(found).toEqual({});
    });
  }

  it('scrolls the PDF, the extracted text and a wide code block by keyboard', async () => {
    await setWidth(WIDTHS[1]);
    await page.goto(`${url}/documents/${ids.pdf}?view=pdf`);
    const pdf = page.getByTestId('pdf-view');
    await page.locator('.pdf-page[data-page="1"][data-rendered="true"]').waitFor();
    await pdf.focus();
    const before = await pdf.evaluate((e) => e.scrollTop);
    await page.keyboard.press('PageDown');
    await expect.poll(() => pdf.evaluate((e) => e.scrollTop)).toBeGreaterThan(before);

    await page.goto(`${url}/documents/${ids.guide}`);
    const code = page.getByTestId('text-view').locator('pre.md-code');
    await code.waitFor();
    // The code block scrolls sideways within itself, so the keyboard can reach it, and scroll it.
    expect(await code.evaluate((e) => e.scrollWidth > e.clientWidth)).toBe(true);
    await expect.poll(() => code.getAttribute('tabindex')).toBe('0');
    await code.focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => code.evaluate((e) => e.scrollLeft)).toBeGreaterThan(0);
    // The rendered headings do not skip a level: # then ### become h3 then h4 under the screen's h2.
    const levels = await page
      .locator('main')
      .evaluate((m) => Array.from(m.querySelectorAll('h1, h2, h3, h4, h5, h6'), (h) => Number(h.tagName[1])));
    for (let i = 1; i < levels.length; i++) expect(levels[i]! - levels[i - 1]!).toBeLessThanOrEqual(1);
    expect(
      await page
        .getByTestId('text-view')
        .getByRole('heading', { name: 'Requirements' })
        .evaluate((h) => h.tagName),
    ).toBe('H4');
  });
});

describe('where the focus goes', () => {
  it('returns to Rename when the rename form closes, by Escape or by saving', async () => {
    await setWidth(WIDTHS[0]);
    await page.goto(`${url}/workspaces/${ids.workspace}`);
    const rename = page.getByRole('button', { name: 'Rename Company handbook', exact: true });
    await rename.click();
    const field = page.getByLabel('New name of Company handbook');
    expect(await field.evaluate((e) => e === document.activeElement)).toBe(true);
    await page.keyboard.press('Escape');
    await field.waitFor({ state: 'detached' });
    expect(await focused(page)).toMatchObject({ tag: 'BUTTON', text: 'Rename Company handbook' });

    await page.keyboard.press('Enter');
    await page.getByLabel('New name of Company handbook').fill('Staff handbook');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Staff handbook' }).waitFor();
    await expect.poll(async () => (await focused(page)).text).toBe('Rename Staff handbook');
  });

  it('goes to what happened after a confirmed delete, revoke or cancel, never to the page', async () => {
    // Delete a document: its row (and button) go; the note saying so has the focus.
    await page.goto(`${url}/workspaces/${ids.workspace}`);
    const row = page.locator('tr[data-document="memo-29.txt"]');
    await row.getByRole('button', { name: 'Delete: memo-29.txt', exact: true }).click();
    await page.keyboard.press('Enter');
    await row.waitFor({ state: 'detached' });
    expect(await focused(page)).toMatchObject({ testId: 'action-note', body: false });
    expect(await page.getByTestId('action-note').textContent()).toBe('memo-29.txt is deleted.');

    // Revoke a key: the row stays, its button goes.
    await page.goto(`${url}/keys`);
    const key = page.locator('tr', { hasText: 'reporting job' });
    await key.getByRole('button', { name: 'Revoke: key reporting job' }).click();
    await page.keyboard.press('Enter');
    await key.locator('.status', { hasText: 'revoked' }).waitFor();
    expect(await focused(page)).toMatchObject({ testId: 'action-note', body: false });

    // Cancel a run: Cancel, Pause and the confirmation all go.
    const up = await upload(
      page,
      Array.from({ length: 20 }, (_, i) => ({ name: `later-${i}.txt`, data: `Later ${i}.` })),
      { workspaceId: ids.workspace },
    );
    await api(page, 'POST', `/v1/runs/${up.body.run.id}/pause`);
    await page.goto(`${url}/runs/${up.body.run.id}`);
    await page.getByRole('button', { name: 'Cancel run' }).click();
    await page.keyboard.press('Enter');
    await page.locator('h1 .status', { hasText: 'cancelled' }).waitFor();
    expect(await focused(page)).toMatchObject({ testId: 'action-note', body: false });
    expect(await page.getByTestId('action-note').textContent()).toMatch(/^The run is cancelled/);
    // Keep backs out with Escape too, and the focus returns to Cancel (another run, kept).
  });

  it('closes the phone menu with Escape and gives the focus back to Menu', async () => {
    await setWidth(WIDTHS[1]);
    await page.goto(`${url}/workspaces`);
    const menu = page.getByRole('button', { name: 'Menu' });
    const nav = page.getByRole('navigation', { name: 'Main' });
    await menu.click();
    expect(await nav.isVisible()).toBe(true);
    await nav.getByRole('link', { name: 'Webhooks' }).focus();
    await page.keyboard.press('Escape');
    expect(await nav.isVisible()).toBe(false);
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await focused(page)).toMatchObject({ tag: 'BUTTON', text: 'Menu' });
  });
});

describe('a phone, 390 px wide', () => {
  it('keeps words whole in two-column facts and tables, with the Sources table’s Delete on screen', async () => {
    await setWidth(WIDTHS[1]);
    await page.goto(`${url}/documents/${ids.pdf}`);
    await page.locator('.pdf-page[data-page="1"]').waitFor();
    const facts = page.locator('dl.facts');
    expect(await facts.textContent()).toContain('application/pdf');
    expect(await brokenWords(facts)).toEqual([]);
    // Two columns: a term and its fact on one line.
    expect(await facts.evaluate((d) => getComputedStyle(d).gridTemplateColumns.split(' ').length)).toBe(2);

    await page.goto(`${url}/webhooks/${ids.webhook}`);
    await page.getByTestId('deliveries').waitFor();
    expect(await page.locator('.crumbs').textContent()).toBe('Webhooks / build notifier');
    expect(await brokenWords(page.locator('dl.facts'))).toEqual([]);

    await page.goto(`${url}/workspaces/${ids.workspace}/sources`);
    const table = page.getByTestId('sources');
    await table.locator('tbody tr').first().waitFor();
    expect(await brokenWords(table)).toEqual([]);
    await shot(page, 'phone-sources');
    const del = table.getByRole('button', { name: 'Delete: source Manual folder' });
    const box = (await del.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    // The form's select and number field look like its text fields.
    const look = (selector: string) =>
      page.locator(selector).evaluate((e) => {
        const s = getComputedStyle(e);
        return [s.borderTopWidth, s.borderTopColor, s.borderRadius, s.paddingLeft, s.fontSize, s.width];
      });
    const text = await look('form.key-form input[type=text]');
    expect(await look('form.key-form select')).toEqual(text);
    expect(await look('form.key-form input[type=number]')).toEqual(text);

    for (const p of [`/runs/${ids.cancelledRun}`, `/workspaces/${ids.workspace}`, '/workspaces']) {
      await page.goto(url + p);
      const t = page.locator('main table').first();
      await t.locator('tbody tr').first().waitFor();
      expect(await brokenWords(t.locator('thead')), p).toEqual([]);
    }
  });
});
