// Over 400 lines: the console points of issue 28 in a real browser against one running service (a
// start and a browser cost seconds), one describe block per point.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { RunProgress } from '@service/sdk';
import type { Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeImagePdf, makePdf } from '../../../service/test/support/fixtures.js';
import { screenshotDir } from '../support/browser.js';
import { api, type ConsoleUnderTest, signIn, startConsole, upload, waitForRun } from '../support/console.js';

/**
 * Issue 28, the console as a new user met it: runs named by what they were, an ETA after Resume
 * that follows the work since, counts that add up, citations that say where a passage is, empty
 * workspaces that say so (and can be created), snippets, cancelled documents processed again,
 * documents of a source named by their path, and only the source types the server allows.
 */
const ADA = { email: 'ada@example.com', password: 'correct horse battery staple' };
let c: ConsoleUnderTest;
let page: Page;
let url: string;
let shots: string;
const shot = (p: Page, name: string) => p.screenshot({ path: path.join(shots, `${name}.png`) });
let root: string;
const ids = {} as { synced: string; handbook: string };

const PAGES = [
  'Employee handbook. Welcome to the company.',
  'Travel expenses. Reimbursement of travel expenses is paid within 30 days after the receipts are submitted.',
];
/** A passage well over a snippet's 280 characters, with one sentence about parking in its middle. */
const LONG = [
  '# Facilities',
  '',
  [
    ...Array.from(
      { length: 6 },
      (_, i) => `The building has ${i + 3} floors of offices, meeting rooms and quiet corners.`,
    ),
    'Parking permits for the underground garage are issued by the front desk on the first day.',
    ...Array.from(
      { length: 6 },
      (_, i) => `The canteen serves ${i + 2} warm dishes and a salad bar every weekday.`,
    ),
  ].join(' '),
  '',
].join('\n');

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'docslurp-rough-edges-'));
  for (const [dir, text] of [
    ['matrix', '# Matrix\n\n## Setup\n\nMatrix setup needs a domain name and a certificate.\n'],
    ['wiki', '# Wiki\n\n## Setup\n\nThe wiki runs without any setup.\n'],
  ] as const) {
    await mkdir(path.join(root, 'manual', 'apps', dir), { recursive: true });
    await writeFile(path.join(root, 'manual', 'apps', dir, 'index.md'), text);
  }
  shots = await screenshotDir();
  c = await startConsole(ADA, { SOURCE_FOLDER_ROOTS: root });
  page = c.page;
  url = c.serve.url;
  await signIn(page, url, ADA);
}, 120_000);

afterAll(async () => {
  await c?.close();
  if (process.env.UPDATE_SCREENSHOTS !== '1' && shots) await rm(shots, { recursive: true, force: true });
  if (root) await rm(root, { recursive: true, force: true });
});

describe('an empty workspace', () => {
  it('is created from the console, and says it has no documents yet where it has none', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Workspaces' }).click();
    await page.getByRole('heading', { name: 'Or create an empty workspace' }).waitFor();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Synced manual');
    await page.getByLabel('Description').fill('The box manual, from its folder');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByRole('heading', { level: 1, name: 'Synced manual' }).waitFor();
    ids.synced = /\/workspaces\/(ws_[\w-]+)/.exec(page.url())![1]!;
    expect((await api(page, 'GET', `/v1/workspaces/${ids.synced}`)).body.description).toBe(
      'The box manual, from its folder',
    );
    // No bare "Runs" heading over nothing; the documents say how to get some.
    await page.getByText('This workspace has no documents yet.').waitFor();
    expect(await page.getByRole('heading', { name: 'Runs' }).count()).toBe(0);
    await shot(page, 'workspace-empty');

    for (const tab of ['Search', 'Chat']) {
      await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: tab }).click();
      const note = page.getByTestId('nothing-to-search');
      await note.waitFor();
      expect(await note.textContent()).toBe(
        'This workspace has no documents yet. Add files or a source to search them here.',
      );
      // Nothing to ask: no box to ask in.
      expect((await page.getByRole('textbox').count()) + (await page.getByRole('searchbox').count())).toBe(0);
    }
  });
});

describe('a folder source', () => {
  it('offers only the source types the server allows', async () => {
    await page.goto(`${url}/workspaces/${ids.synced}/sources`);
    const options = () => page.getByLabel('Type').locator('option').allTextContents();
    await expect.poll(options).toEqual(['Website', 'S3 bucket', 'Folder on the server']);
    // A server that allows no folder (SOURCE_FOLDER_ROOTS unset) says so in the listing.
    await page.route('**/v1/workspaces/*/sources', async (route) => {
      if (route.request().method() !== 'GET') return route.continue();
      const real = await route.fetch();
      await route.fulfill({
        response: real,
        json: { ...(await real.json()), allowedTypes: ['website', 's3'] },
      });
    });
    await page.reload();
    await expect.poll(options).toEqual(['Website', 'S3 bucket']);
    await page.unroute('**/v1/workspaces/*/sources');
  });

  it('names its documents by their path within it, in lists, run pages, search results and citations', async () => {
    await page.goto(`${url}/workspaces/${ids.synced}/sources`);
    await page.getByLabel('Type').selectOption('folder');
    await page.getByLabel('Name').fill('Manual folder');
    await page.getByRole('textbox', { name: /^Folder/ }).fill(path.join(root, 'manual'));
    await page.getByRole('button', { name: 'Add source' }).click();
    const row = page.locator('[data-testid=sources] tbody tr').filter({ hasText: 'Manual folder' });
    await row.waitFor();
    if ((await row.getByTestId('last-sync').textContent()) === 'never')
      await row.getByRole('button', { name: 'Sync now: Manual folder' }).click();
    await row.getByTestId('last-sync').getByText('completed').waitFor({ timeout: 60_000 });

    // The sync's run, named by its source, and its documents by their paths.
    await row.getByTestId('last-sync').getByRole('link').click();
    await page.getByRole('heading', { level: 1, name: /^Sync of Manual folder/ }).waitFor();
    expect(await page.title()).toBe('Sync of Manual folder (completed) · DocSlurp');
    const names = () => page.getByTestId('run-documents').locator('tbody td.name a').allTextContents();
    expect(await names()).toEqual(['apps/matrix/index.md', 'apps/wiki/index.md']);

    await page.goto(`${url}/workspaces/${ids.synced}`);
    await page.getByTestId('documents').waitFor();
    expect(await page.getByTestId('documents').locator('tbody td:first-child a').allTextContents()).toEqual([
      'apps/matrix/index.md',
      'apps/wiki/index.md',
    ]);
    const runs = page.getByTestId('runs').locator('li');
    expect(await runs.first().getByRole('link').textContent()).toBe('Sync of Manual folder');
    await shot(page, 'workspace-source');
    // And when: the run's start, as a time.
    expect(await runs.first().locator('time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);

    await page.goto(`${url}/workspaces/${ids.synced}/search?q=domain+certificate`);
    const first = page.getByTestId('search-results').locator('.result').first();
    await first.waitFor();
    expect(await first.locator('.citation-link').textContent()).toBe('apps/matrix/index.md');
    // The headings the passage sits under, as the API gives them.
    const found = await api(page, 'POST', '/v1/search', { workspaceId: ids.synced, q: 'domain certificate' });
    const headings: string[] = found.body.results[0].citation.headingPath;
    expect(headings[0]).toBe('Matrix');
    expect(await first.locator('.heading-path').textContent()).toBe(` · ${headings.join(' › ')}`);

    await page.goto(`${url}/workspaces/${ids.synced}/chat`);
    await page.getByLabel('Ask a question').fill('What does the Matrix setup need?');
    await page.getByRole('button', { name: 'Ask' }).click();
    const cited = page.getByTestId('citations').locator('li').filter({ hasText: 'apps/matrix/index.md' });
    await cited.waitFor();
    expect(await cited.locator('.citation-link').textContent()).toBe('apps/matrix/index.md');
    expect(await cited.locator('.heading-path').textContent()).toBe(` · ${headings.join(' › ')}`);
  });
});

describe('citations', () => {
  it('say in a chat what they say in search: the page and the headings of the passage', async () => {
    const up = await upload(
      page,
      [
        { name: 'handbook.pdf', data: makePdf(PAGES), type: 'application/pdf' },
        { name: 'facilities.md', data: LONG, type: 'text/markdown' },
      ],
      { workspaceName: 'Company handbook' },
    );
    ids.handbook = up.body.workspace.id;
    await waitForRun(page, up.body.run.id);
    await page.goto(`${url}/workspaces/${ids.handbook}/chat`);
    const ask = async (question: string, file: string) => {
      await page.getByLabel('Ask a question').fill(question);
      await page.getByRole('button', { name: 'Ask' }).click();
      const cited = page.getByTestId('citations').last().locator('li').filter({ hasText: file });
      await cited.first().waitFor();
      return (await cited.first().locator('.result-head, a, .heading-path').allTextContents()).join('');
    };
    // Never the bare file name a citation used to be ("1. handbook.pdf 2. handbook.pdf"): its page,
    // and the headings its passage sits under, as in search results.
    expect(await ask('When are travel expenses reimbursed?', 'handbook.pdf')).toMatch(
      /^handbook\.pdf, page 2/,
    );
    expect(await ask('Who issues parking permits for the garage?', 'facilities.md')).toBe(
      'facilities.md · Facilities',
    );
    await page.goto(`${url}/workspaces/${ids.handbook}/search?q=travel+expenses+reimbursed`);
    const hit = page.getByTestId('search-results').locator('.result').first();
    await hit.waitFor();
    expect(await hit.locator('.result-head').textContent()).toBe('handbook.pdf, page 2');
  });
});

describe('search results', () => {
  it('show the excerpt that matches, and the whole passage on request', async () => {
    await page.goto(`${url}/workspaces/${ids.handbook}/search?q=parking+permits`);
    const hit = page.getByTestId('search-results').locator('.result').first();
    await hit.waitFor();
    const shown = async () => (await hit.locator('.passage').textContent())!.trim();
    const excerpt = await shown();
    expect(excerpt).toContain('Parking permits for the underground garage');
    expect(excerpt.length).toBeLessThan(400);
    expect(excerpt).not.toContain('The canteen serves 7 warm dishes');
    expect(await hit.locator('.passage mark').allTextContents()).toEqual(
      expect.arrayContaining(['Parking', 'permits']),
    );
    const more = hit.getByRole('button', { name: 'Show the whole passage' });
    expect(await more.getAttribute('aria-expanded')).toBe('false');
    await more.click();
    const less = hit.getByRole('button', { name: 'Show the excerpt only' });
    expect(await less.getAttribute('aria-expanded')).toBe('true');
    const whole = await shown();
    expect(whole).toContain('The building has 3 floors');
    expect(whole).toContain('The canteen serves 7 warm dishes');
    expect(whole.length).toBeGreaterThan(800);
  });
});

describe('runs', () => {
  let paused: string;

  it('are named by what they were and when, on their page and in the overview', async () => {
    const memos = Array.from({ length: 80 }, (_, i) => ({
      name: `memo-${String(i).padStart(2, '0')}.txt`,
      // About 120 KB each: a worker's batch holds a few (WORKER_BATCH_MAX_BYTES), so the run is
      // finished batch by batch, its progress seen between them.
      data: `Memo ${i}. The quarterly figures for region ${i} are attached. `.repeat(2000),
      type: 'text/plain',
    }));
    const up = await upload(page, memos, { workspaceId: ids.handbook });
    paused = up.body.run.id;
    // Paused once the first document is done: the run has a pace from before the pause, and most of
    // its documents wait.
    await page.evaluate(async (runId) => {
      for (;;) {
        const p = await (await fetch(`/v1/runs/${runId}/progress`)).json();
        if (p.counts.ready + p.counts.failed > 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const s = await (await fetch('/v1/session')).json();
      await fetch(`/v1/runs/${runId}/pause`, { method: 'POST', headers: { 'x-csrf-token': s.csrfToken } });
    }, paused);
    await page.goto(`${url}/runs/${paused}`);
    await page.getByRole('heading', { level: 1, name: /^Upload of 80 files/ }).waitFor();
    expect(await page.getByTestId('run-when').locator('time').first().getAttribute('datetime')).toBe(
      up.body.run.createdAt,
    );
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview' }).click();
    const active = page.getByTestId('active-runs').locator('li').filter({ hasText: 'Upload of 80 files' });
    await active.waitFor();
    expect(await active.textContent()).toContain('in Company handbook');
  });

  it('estimate what is left after Resume from the work since the resume, not over the pause', async () => {
    const progress = async () => (await api(page, 'GET', `/v1/runs/${paused}/progress`)).body;
    await expect.poll(async () => (await progress()).counts.processing, { timeout: 30_000 }).toBe(0);
    const before = await progress();
    const processedBefore = before.counts.ready + before.counts.needs_ocr + before.counts.failed;
    expect(before.counts.queued).toBeGreaterThan(20);
    // A pause long enough that a minute reaching back over it would show a pace far below the real one.
    await page.waitForTimeout(12_000);
    await page.goto(`${url}/runs/${paused}`);
    await page.getByRole('button', { name: 'Resume run' }).waitFor();
    // Every progress answer the page gets after the resume, with the time it arrived.
    const seen: { at: number; body: RunProgress }[] = [];
    const onResponse = async (r: Response) => {
      if (!r.url().endsWith(`/v1/runs/${paused}/progress`)) return;
      const at = Date.now();
      seen.push({ at, body: await r.json() });
    };
    page.on('response', onResponse);
    const resumedFrom = Date.now();
    await page.getByRole('button', { name: 'Resume run' }).click();
    await page.locator('h1 .status', { hasText: 'completed' }).waitFor({ timeout: 120_000 });
    page.off('response', onResponse);

    // The service's pace counts the documents finished since the resume over the time since (it
    // cannot have had more time than the test saw): its estimate is never above what that pace
    // gives. Measured over the pause as well, it would be many times higher.
    // Before a document has finished since the resume there is nothing to estimate from.
    const estimates = seen
      .filter((s) => s.at > resumedFrom && s.body.status === 'processing' && s.body.etaSeconds !== null)
      .map((s) => {
        const c = s.body.counts;
        const since = c.ready + c.needs_ocr + c.failed - processedBefore;
        const elapsed = (s.at - resumedFrom) / 1000;
        const bound = since > 0 ? Math.ceil(((c.queued + c.processing) * elapsed) / since) + 1 : -1;
        return { eta: s.body.etaSeconds!, since, bound };
      });
    expect(estimates.length).toBeGreaterThan(0);
    for (const e of estimates) expect(e.eta, JSON.stringify(e)).toBeLessThanOrEqual(e.bound);
  });

  it('say that a document a worker has claimed but not started is starting, not queued', async () => {
    // The moment between a claim and a start lasts milliseconds: the page gets the service's own
    // answer with one document in it.
    await page.route(`**/v1/runs/${paused}/progress`, async (route) => {
      const real = await route.fetch();
      const body = await real.json();
      const i = body.documents.findIndex((d: { filename: string }) => d.filename === 'memo-00.txt');
      body.documents[i] = { ...body.documents[i], status: 'processing', stage: 'queued' };
      await route.fulfill({ response: real, json: body });
    });
    await page.goto(`${url}/runs/${paused}`);
    const row = page.locator('tr[data-document="memo-00.txt"]');
    await row.locator('.caption').waitFor();
    expect(await row.locator('.status').textContent()).toBe('processing');
    expect(await row.locator('.caption').textContent()).toBe('starting');
    await page.unroute(`**/v1/runs/${paused}/progress`);
  });
});

describe('cancelled documents', () => {
  it('are processed again from the run page, together in a new run, and one by one from the document', async () => {
    // Enough that many are still waiting when the cancel request arrives: the worker starts on an
    // upload at once and claims up to a batch of them (500 in embedded mode).
    const files = Array.from({ length: 800 }, (_, i) => ({
      name: `later-${i}.txt`,
      data: `Later note ${i}.`,
    }));
    const up = await upload(page, files, { workspaceId: ids.handbook });
    await api(page, 'POST', `/v1/runs/${up.body.run.id}/cancel`);
    const cancelled = (await waitForRun(page, up.body.run.id)).counts.cancelled as number;
    expect(cancelled).toBeGreaterThan(2);
    await page.goto(`${url}/runs/${up.body.run.id}`);
    // One document first, from its own page.
    const one = (await api(page, 'GET', `/v1/runs/${up.body.run.id}/progress`)).body.documents.find(
      (d: { status: string }) => d.status === 'cancelled',
    );
    await page.goto(`${url}/documents/${one.id}`);
    await page.getByRole('button', { name: 'Process again' }).click();
    expect(await page.getByTestId('action-note').textContent()).toBe(
      'It is queued to be processed again, in a new run.',
    );
    await page.locator('h1 .status', { hasText: 'ready' }).waitFor({ timeout: 60_000 });

    await page.goto(`${url}/runs/${up.body.run.id}`);
    const again = page.getByRole('button', {
      name: `Process the ${cancelled - 1} cancelled documents again`,
    });
    await again.click();
    await page
      .getByRole('heading', { level: 1, name: new RegExp(`^${cancelled - 1} documents processed again`) })
      .waitFor();
    await page.locator('h1 .status', { hasText: 'completed' }).waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('run-progress').textContent()).toBe(
      `Completed: ${cancelled - 1} of ${cancelled - 1} documents processed (${cancelled - 1} ready).`,
    );
    await shot(page, 'run-reprocess');
    const docs = (await api(page, 'GET', `/v1/workspaces/${ids.handbook}/documents`)).body.documents;
    expect(
      docs.filter(
        (d: { filename: string; status: string }) => d.filename.startsWith('later-') && d.status !== 'ready',
      ),
    ).toEqual([]);
  });
});

describe('the workspaces table', () => {
  it("adds up: each workspace's documents by state, needing OCR and waiting included", async () => {
    const scan = makeImagePdf(Buffer.alloc(64 * 64, 200), 64, 64);
    const ocr = await upload(page, [{ name: 'scan.pdf', data: scan, type: 'application/pdf' }], {
      workspaceName: 'Scans',
    });
    await waitForRun(page, ocr.body.run.id);
    const waiting = await upload(
      page,
      Array.from({ length: 5 }, (_, i) => ({ name: `wait-${i}.txt`, data: `Waiting ${i}.` })),
      { workspaceId: ocr.body.workspace.id },
    );
    await api(page, 'POST', `/v1/runs/${waiting.body.run.id}/pause`);
    await page.goto(`${url}/workspaces`);
    const table = page.getByTestId('workspaces');
    await table.waitFor();
    const rows = await table.locator('tbody tr').evaluateAll((trs) =>
      trs.map((tr) => ({
        id: tr.getAttribute('data-workspace'),
        counts: Object.fromEntries(
          Array.from(tr.querySelectorAll<HTMLElement>('td[data-count]'), (td) => [
            td.dataset.count,
            Number(td.textContent),
          ]),
        ) as Record<string, number>,
      })),
    );
    expect(rows.length).toBe(3);
    for (const r of rows) {
      const { total, ...states } = r.counts;
      expect(
        Object.values(states).reduce((a, b) => a + b, 0),
        `${r.id}`,
      ).toBe(total);
    }
    const scans = rows.find((r) => r.id === ocr.body.workspace.id)!.counts;
    expect(scans.needs_ocr).toBe(1);
    expect(scans.queued! + scans.processing!).toBe(5);
    const headers = await table.locator('thead th').allTextContents();
    expect(headers).toEqual([
      'Workspace',
      'Documents',
      'Ready',
      'Waiting',
      'Processing',
      'Need OCR',
      'Failed',
      'Cancelled',
      'Created',
    ]);
  });
});

describe('a new workspace from an upload', () => {
  it('is proposed a name the files have in common, never the first file "and 13 more"', async () => {
    await page.goto(`${url}/workspaces`);
    const input = page.getByTestId('file-input');
    const name = page.getByLabel('Name of the new workspace');
    const choose = (names: string[]) =>
      input.setInputFiles(
        names.map((n) => ({ name: n, mimeType: 'text/plain', buffer: Buffer.from(`Text of ${n}.`) })),
      );
    await choose(Array.from({ length: 14 }, (_, i) => `memo-${i + 1}.txt`));
    await expect.poll(() => name.inputValue()).toBe('memo');
    for (let i = 0; i < 14; i++) await page.getByRole('button', { name: `remove memo-${i + 1}.txt` }).click();
    await choose([
      'TESTING',
      'README.md',
      'install.rst',
      ...Array.from({ length: 11 }, (_, i) => `part${i}.md`),
    ]);
    await expect.poll(() => page.getByTestId('upload-file').count()).toBe(14);
    expect(await name.inputValue()).toMatch(/^Documents of /);
    expect(await name.inputValue()).not.toContain('more');
  });
});
