// Over 400 lines: the console in a real browser against one running service (a start and a browser
// cost seconds), a screen per describe block.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../../sdk/src/index.js';
import { makeDocx, makePdf, makeZip } from '../../../service/test/support/fixtures.js';
import {
  cliPath,
  embeddedDataDir,
  runCli,
  type ServeProcess,
  spawnServe,
  stopLeftoverPostgres,
} from '../../../service/test/support/spawn.js';
import { missingFile, skipWithout } from '../../../service/test/support/tools.js';
import { startReceiver } from '../../../service/test/support/webhook-receiver.js';
import { describeFormats } from '../../src/lib/formats.js';
import { CHROMIUM, consoleDist, launchBrowser, screenshotDir, type TestBrowser } from '../support/browser.js';

const noChromium = skipWithout(missingFile(CHROMIUM, 'chromium'), 'the console in Chromium');

const ADA = { email: 'ada@example.com', password: 'correct horse battery staple' };
const BOB = { email: 'bob@example.com', password: 'another long password' };
// A key the server ensures at start: it must never reach the browser.
const SERVER_KEY = `dsk_${'k3y'.repeat(10)}xy`;

const PDF_PAGES = [
  'Employee handbook. Welcome to the company. This handbook explains how we work together and where to find help.',
  'Travel expenses. Keep every receipt. Reimbursement of travel expenses is paid within 30 days after the receipts are submitted to the finance team.',
  'Security. Lock your screen when you leave your desk and report lost badges to the front desk at once.',
];
const pdf = makePdf(PDF_PAGES);
const docx = makeDocx([
  '# Vacation policy',
  'Every employee receives 25 days of paid vacation per year.',
  'Unused vacation days can be carried over until the end of March of the following year.',
]);
// Large enough that a throttled upload shows its bars moving, one file after the other.
const notes = Buffer.from(
  `# Meeting notes\n\n${Array.from(
    { length: 2500 },
    (_, i) => `Weekly sync ${i}: the roadmap review moved to Thursday; action items were assigned.`,
  ).join('\n\n')}\n`,
);
/** The workspace the first upload creates, and its name once renamed. */
const NAME = 'Company handbook';
const RENAMED = 'Company handbook, 2025 edition';
const BROKEN = { name: 'broken.pdf', type: 'application/pdf', data: Buffer.from('%PDF-1.7\nthis is no PDF') };
const FILES = [
  { name: 'notes.md', type: 'text/markdown', data: notes },
  { name: 'handbook.pdf', type: 'application/pdf', data: pdf },
  {
    name: 'policy.docx',
    type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    data: docx,
  },
];

let serve: ServeProcess;
let dataDir: string;
let ada: TestBrowser;
let page: Page;
let shots: string;
let workspaceId: string;
let workspaceUrl: string;
/** The folder the server lets folder sources read (SOURCE_FOLDER_ROOTS). */
let sourceRoot: string;

const shot = (p: Page, name: string) => p.screenshot({ path: path.join(shots, `${name}.png`) });

/** The parts of the run's bar as drawn: each one's state, its share of the bar's width and its colour. */
function barParts(p: Page) {
  return p.getByTestId('run-bar').evaluate((bar) => {
    const width = bar.getBoundingClientRect().width;
    return Array.from(bar.querySelectorAll<HTMLElement>('.bar-part'), (part) => ({
      state: part.dataset.state,
      share: Math.round((part.getBoundingClientRect().width / width) * 100) / 100,
      tone: Array.from(part.classList).find((c) => c.startsWith('tone-')),
    }));
  });
}

/**
 * Waits for the bar's parts to be `expected`, each share within 0.05 (a part's width grows over
 * 0.3 s, so a bar read just after a change can be mid-way). A share that is off is shown as it is.
 */
function barSettles(p: Page, expected: [state: string, tone: string, share: number][]) {
  return expect
    .poll(
      async () =>
        (await barParts(p)).map((x, i) => [
          x.state,
          x.tone,
          Math.abs(x.share - (expected[i]?.[2] ?? Number.NaN)) < 0.05 ? 'as expected' : x.share,
        ]),
      { timeout: 5_000 },
    )
    .toEqual(expected.map(([state, tone]) => [state, tone, 'as expected']));
}

/** Whether the page scrolls sideways (wider than the window): it must not, at any width. */
const sideScroll = (p: Page) =>
  p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** Drops files onto the upload area the way a browser does: a `drop` event carrying a DataTransfer. */
async function dropFiles(p: Page, files: { name: string; type: string; data: Buffer }[]) {
  const payload = files.map((f) => ({ name: f.name, type: f.type, b64: f.data.toString('base64') }));
  const dataTransfer = await p.evaluateHandle((list) => {
    const dt = new DataTransfer();
    for (const f of list) {
      const bytes = Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0));
      dt.items.add(new File([bytes], f.name, { type: f.type }));
    }
    return dt;
  }, payload);
  await p.dispatchEvent('[data-testid=dropzone]', 'dragenter', { dataTransfer });
  await p.dispatchEvent('[data-testid=dropzone]', 'drop', { dataTransfer });
}

async function signIn(p: Page, who: { email: string; password: string }) {
  await p.goto(`${serve.url}/`);
  await p.getByLabel('Email').fill(who.email);
  await p.getByLabel('Password').fill(who.password);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByTestId('user-email').filter({ hasText: who.email }).waitFor();
}

/** Calls the API from inside the page, as the console's own code does (same origin, cookie attached). */
function inPage(p: Page, method: string, url: string, options: { csrf?: string; json?: unknown } = {}) {
  return p.evaluate(
    async ({ method, url, csrf, json }) => {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (csrf) headers['x-csrf-token'] = csrf;
      if (json !== undefined) headers['content-type'] = 'application/json';
      const r = await fetch(url, {
        method,
        headers,
        ...(json === undefined ? {} : { body: JSON.stringify(json) }),
      });
      const text = await r.text();
      return { status: r.status, body: text ? JSON.parse(text) : null };
    },
    { method, url, csrf: options.csrf, json: options.json },
  );
}

beforeAll(async () => {
  if (noChromium) return;
  for (const built of [cliPath, path.join(consoleDist, 'index.html')]) {
    if (!existsSync(built)) throw new Error(`${built} is missing: run "npm run build" first (npm test does)`);
  }
  shots = await screenshotDir();
  dataDir = await embeddedDataDir();
  sourceRoot = await mkdtemp(path.join(os.tmpdir(), 'docslurp-console-sources-'));
  serve = await spawnServe(dataDir, {
    SOURCE_FOLDER_ROOTS: sourceRoot,
    CONSOLE_ADMIN_EMAIL: ADA.email,
    CONSOLE_ADMIN_PASSWORD: ADA.password,
    SERVICE_BOOTSTRAP_API_KEY: SERVER_KEY,
    JOB_POLL_INTERVAL_SECONDS: '0.5',
    // Webhook receivers of the tests listen on 127.0.0.1.
    URL_FETCH_ALLOW_HOSTS: '127.0.0.1',
    WEBHOOK_POLL_INTERVAL_SECONDS: '0.2',
  });
  ada = await launchBrowser();
  page = ada.page;
}, 120_000);

afterAll(async () => {
  await ada?.close();
  await serve?.stop();
  if (dataDir) {
    stopLeftoverPostgres(dataDir);
    await rm(dataDir, { recursive: true, force: true });
  }
  if (sourceRoot) await rm(sourceRoot, { recursive: true, force: true });
  if (process.env.UPDATE_SCREENSHOTS !== '1' && shots) await rm(shots, { recursive: true, force: true });
});

describe.skipIf(noChromium)('the web console in Chromium', () => {
  it('explains how to sign in when the server starts, and signs in with a session', async () => {
    await serve.waitForOutput(/Web console:/);
    expect(serve.output()).toContain(`Web console: ${serve.url}/`);
    expect(serve.output()).toContain(`sign in as ${ADA.email}`);

    await page.goto(`${serve.url}/`);
    await page.getByRole('heading', { name: 'Sign in to DocSlurp' }).waitFor();
    await shot(page, 'signin');
    await page.getByLabel('Email').fill(ADA.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain(
      'The email or password is not correct',
    );

    await page.getByLabel('Password').fill(ADA.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    expect(await page.getByTestId('user-email').textContent()).toBe(ADA.email);
    const cookie = (await ada.context.cookies()).find((c) => c.name === 'docslurp_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    // HttpOnly: the page's scripts cannot read the session.
    expect(await page.evaluate(() => document.cookie)).toBe('');
  });

  it('uploads three dropped files in one request, with a progress bar per file filling in order', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Workspaces' }).click();
    await page.getByRole('heading', { name: 'New workspace' }).waitFor();
    await dropFiles(page, FILES);
    await expect.poll(() => page.getByTestId('upload-file').count()).toBe(3);
    // The new workspace's name: the first file's until changed.
    const name = page.getByLabel('Name of the new workspace');
    // Three unrelated names: the day, never "notes and 2 more".
    expect(await name.inputValue()).toMatch(/^Documents of /);
    await name.fill(NAME);

    // A slow uplink (about 200 KB/s), so that the bars can be seen moving.
    const cdp = await ada.context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 200 * 1024,
    });
    const uploads: string[] = [];
    const onRequest = (r: { url(): string; method(): string }) => {
      if (r.url().endsWith('/v1/ingest/bulk')) uploads.push(r.method());
    };
    page.on('request', onRequest);
    await page.getByRole('button', { name: /Upload 3 files/ }).click();

    const samples: number[][] = [];
    let screenshotTaken = false;
    while (!page.url().includes('/runs/')) {
      const bars = await page
        .getByRole('progressbar', { name: /^Upload of / })
        .evaluateAll((els) => els.map((e) => Number(e.getAttribute('aria-valuenow'))))
        .catch(() => []);
      if (bars.length === 3) {
        samples.push(bars);
        if (!screenshotTaken && bars[0]! > 20 && bars[0]! < 90) {
          await shot(page, 'upload');
          screenshotTaken = true;
        }
      }
      await page.waitForTimeout(50);
    }
    page.off('request', onRequest);
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    expect(uploads).toEqual(['POST']); // one multipart request for the three files
    // The bars moved through intermediate values, and a file started only once the one before it was done.
    expect(samples.some((s) => s[0]! > 0 && s[0]! < 100)).toBe(true);
    for (const s of samples) {
      if (s[1]! > 0) expect(s[0]).toBe(100);
      if (s[2]! > 0) expect(s[1]).toBe(100);
    }
    expect(screenshotTaken).toBe(true);
  });

  it('shows the run live until it completes, per document with its stage', async () => {
    await page.getByRole('heading', { name: /^Upload of 3 files/ }).waitFor();
    const runId = /\/runs\/(run_[\w-]+)/.exec(page.url())![1]!;
    await page.locator('h1 .status', { hasText: 'completed' }).waitFor({ timeout: 60_000 });
    const rows = page.getByTestId('run-documents').locator('tbody tr');
    expect(await rows.count()).toBe(3);
    for (const f of FILES) {
      const row = page.locator(`tr[data-document="${f.name}"]`);
      expect(await row.getAttribute('data-status')).toBe('ready');
      expect(await row.locator('td').nth(2).textContent()).toBe('processed');
      expect(await row.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('100');
      expect(await row.locator('.bar-fill').getAttribute('class')).toContain('tone-ok');
    }
    // In words and in colour: all three processed and ready, the whole bar green.
    const words = 'Completed: 3 of 3 documents processed (3 ready).';
    expect(await page.getByTestId('run-progress').textContent()).toBe(words);
    // The bar's width eases to its share: read once it has settled (a loaded machine caught it at 0.89).
    await expect
      .poll(() => barParts(page), { timeout: 5_000 })
      .toEqual([{ state: 'ready', share: 1, tone: 'tone-ok' }]);
    // The live region tells screen readers the outcome; the page's title names the run.
    expect(await page.getByRole('status').textContent()).toBe(words);
    expect(await page.title()).toBe('Upload of 3 files (completed) · DocSlurp');
    // A finished run shows the pace it went at (documents per second over its work).
    expect(await page.getByTestId('run-pace').textContent()).toMatch(/^[\d.]+ documents\/s$/);
    await shot(page, 'run');
    const run = await inPage(page, 'GET', `/v1/runs/${runId}`);
    expect(run.body.status).toBe('completed');
    workspaceId = run.body.workspaceId;
    workspaceUrl = `${serve.url}/workspaces/${workspaceId}`;
    // The breadcrumb names the workspace, not its id.
    await page.locator('.crumbs').getByRole('link', { name: NAME, exact: true }).waitFor();
    expect((await inPage(page, 'GET', `/v1/workspaces/${workspaceId}`)).body.name).toBe(NAME);
  });

  it('lists the documents with state, size and pages, shows the text with page markers and downloads the original', async () => {
    await page.locator('.crumbs').getByRole('link', { name: NAME, exact: true }).click();
    await page.getByTestId('documents').waitFor();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(NAME);
    expect(await page.title()).toBe(`${NAME} · DocSlurp`);
    const pdfRow = page.locator('tr[data-document="handbook.pdf"]');
    expect(await pdfRow.locator('.status').textContent()).toBe('ready');
    expect(await pdfRow.locator('td').nth(2).textContent()).toBe(`${(pdf.length / 1024).toFixed(1)} KB`);
    expect(await pdfRow.locator('td').nth(3).textContent()).toBe('3');
    await shot(page, 'workspace');

    const download = page.waitForEvent('download');
    await pdfRow.getByRole('link', { name: 'Download' }).click();
    const saved = await (await download).path();
    expect(Buffer.compare(await readFile(saved), pdf)).toBe(0);

    await page
      .locator('tr[data-document="policy.docx"]')
      .getByRole('link', { name: 'policy.docx', exact: true })
      .click();
    await page.getByTestId('text-view').waitFor();
    expect(await page.getByTestId('text-view').textContent()).toContain(
      'Every employee receives 25 days of paid vacation per year.',
    );
    // The text's Markdown is rendered: its heading is a heading, with no '#' shown.
    await page.getByTestId('text-view').getByRole('heading', { name: 'Vacation policy' }).waitFor();
    expect(await page.getByTestId('text-view').textContent()).not.toContain('#');
    expect(await page.title()).toBe('policy.docx · DocSlurp');

    await page.goBack();
    // Until a PDF is opened, the PDF renderer has not been fetched: it is not part of the first load.
    const pdfCode = () =>
      ada.responses.map((r) => r.url).filter((u) => /\/assets\/(PdfView|pdf\.worker)/.test(u));
    expect(pdfCode()).toEqual([]);
    await page
      .locator('tr[data-document="handbook.pdf"]')
      .getByRole('link', { name: 'handbook.pdf', exact: true })
      .click();
    // A PDF opens as the original, rendered page by page.
    await page.locator('.pdf-page[data-page="1"][data-rendered="true"]').waitFor();
    await expect.poll(() => pdfCode().some((u) => u.includes('pdf.worker'))).toBe(true);
    await page.getByRole('button', { name: 'Extracted text' }).click();
    const markers = await page.locator('.page-marker').allTextContents();
    expect(markers).toEqual(['Page 1', 'Page 2', 'Page 3']);
    expect(await page.locator('[data-page="2"]').textContent()).toContain('Reimbursement of travel expenses');
    // And back to the original: rendered again from the bytes already fetched.
    await page.getByRole('button', { name: 'Original PDF' }).click();
    await page.locator('.pdf-page[data-page="1"][data-rendered="true"]').waitFor();
  });

  it('searches with the matches highlighted and opens a PDF citation at its page, the passage highlighted', async () => {
    await page.goto(`${workspaceUrl}/search`);
    await page.getByLabel('Search the workspace').fill('travel reimbursement receipts');
    await page.getByRole('button', { name: 'Search' }).click();
    const first = page.getByTestId('search-results').locator('.result').first();
    await first.waitFor();
    expect(await first.locator('.citation-link').textContent()).toBe('handbook.pdf, page 2');
    const marked = (await first.locator('mark').allTextContents()).map((t) => t.toLowerCase());
    expect(marked).toEqual(expect.arrayContaining(['travel', 'reimbursement', 'receipts']));
    // The internal score is behind a "Details" toggle, named for its result.
    const score = first.getByText(/relevance score/);
    expect(await score.isVisible()).toBe(false);
    await first.locator('summary', { hasText: 'Details' }).click();
    expect(await score.isVisible()).toBe(true);
    await expect.poll(() => page.title()).toBe(`Search: travel reimbursement receipts · ${NAME} · DocSlurp`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(NAME);
    await shot(page, 'search');

    const from = ada.timeline.length;
    await first.locator('.citation-link').click();
    await page.getByTestId('pdf-view').waitFor();
    // No waterfall: the record, the text and the PDF's bytes were all asked for before any answer came.
    const docId = /\/documents\/(doc_[\w-]+)/.exec(page.url())![1]!;
    const mine = ada.timeline
      .slice(from)
      .filter((e) => new URL(e.url).pathname.startsWith(`/v1/documents/${docId}`));
    const firstAnswer = mine.findIndex((e) => e.kind === 'response');
    const asked = mine
      .slice(0, firstAnswer)
      .map((e) => new URL(e.url).pathname.replace(`/v1/documents/${docId}`, ''));
    expect(asked.sort()).toEqual(['', '/content', '/text']);
    const page2 = page.locator('.pdf-page[data-page="2"]');
    await page.locator('.pdf-page[data-page="2"][data-rendered="true"]').waitFor();
    await page2.locator('.cited').first().waitFor();
    const cited = (await page2.locator('.cited').allTextContents()).join(' ');
    expect(cited).toContain('Reimbursement of travel expenses');
    expect(await page.locator('.pdf-page[data-page="1"] .cited').count()).toBe(0);
    // Opened at the cited page: the highlighted passage is on screen, inside the PDF's scroll box.
    const onScreen = () =>
      page.evaluate(() => {
        const box = document.querySelector('[data-testid=pdf-view]')!.getBoundingClientRect();
        const cited = document.querySelector('.pdf-page[data-page="2"] .cited')!.getBoundingClientRect();
        return cited.top >= box.top && cited.bottom <= box.bottom && cited.bottom <= window.innerHeight;
      });
    await expect.poll(onScreen).toBe(true);
    expect(await page.getByTestId('cited-passage').textContent()).toContain('on page 2');
    expect(ada.responses.some((r) => /\/assets\/pdf\.worker/.test(r.url) && r.status === 200)).toBe(true);
    await shot(page, 'document-pdf');
  });

  it('streams a chat answer whose citation markers link to the cited passages, and says it is quoted', async () => {
    await page.goto(`${workspaceUrl}/chat`);
    await page.getByLabel('Ask a question').fill('How many vacation days does an employee receive per year?');
    await page.getByRole('button', { name: 'Ask' }).click();
    const answer = page.getByTestId('answer').first();
    await page.getByTestId('citations').waitFor();
    expect(await answer.textContent()).toContain('25 days of paid vacation');
    // This server has no chat model: the answer is the passages' own sentences, and says so.
    expect(await answer.getAttribute('data-kind')).toBe('quoted');
    expect(await answer.textContent()).toContain('Quoted from the documents: no answer model is configured');
    const quote = answer.locator('q').first();
    expect(await quote.textContent()).toContain('25 days of paid vacation');
    const marker = answer.locator('a.marker').first();
    // Seen as [1]; heard as "[1] policy.docx".
    expect(await marker.textContent()).toBe('[1] policy.docx');
    expect(await marker.locator('.sr-only').textContent()).toBe(' policy.docx');
    const chatRequest = ada.requests.find((r) => r.url.endsWith('/v1/search/chat'));
    expect(chatRequest?.headers.accept).toBe('text/event-stream');
    await shot(page, 'chat');

    const citedText = await quote.textContent();
    await marker.click();
    await page.getByTestId('text-view').locator('mark').first().waitFor();
    const mark = (await page.getByTestId('text-view').locator('mark').allTextContents()).join(' ');
    expect(mark.replace(/\s+/g, ' ')).toContain(citedText!.replace(/\s+/g, ' ').trim());
    const markVisible = await page.evaluate(() => {
      const box = document.querySelector('[data-testid=text-view]')!.getBoundingClientRect();
      const m = document.querySelector('[data-testid=text-view] mark')!.getBoundingClientRect();
      return m.top >= box.top && m.top < box.bottom && m.top < window.innerHeight;
    });
    expect(markVisible).toBe(true);
    expect(page.url()).toContain('/documents/');
    // Back to the conversation: it is still there.
    await page.goBack();
    expect(await page.getByTestId('answer').first().textContent()).toContain('25 days of paid vacation');
  });

  it('pauses and resumes runs, and shows failures with their reasons', async () => {
    await page.goto(workspaceUrl);
    const many = Array.from({ length: 40 }, (_, i) => ({
      name: `memo-${String(i).padStart(2, '0')}.txt`,
      type: 'text/plain',
      // About 120 KB each: a worker takes eight of them in a batch (WORKER_BATCH_MAX_BYTES), so most
      // are still waiting when the run is paused.
      data: Buffer.from(`Memo ${i}. The quarterly figures for region ${i} are attached. `.repeat(2000)),
    }));
    await page
      .getByTestId('file-input')
      .setInputFiles([BROKEN, ...many].map((f) => ({ name: f.name, mimeType: f.type, buffer: f.data })));
    await page.getByRole('button', { name: /Add 41 files/ }).click();
    await page.getByRole('button', { name: 'Pause run' }).click();
    await page.locator('h1 .status', { hasText: 'paused' }).waitFor();
    const runId = /\/runs\/(run_[\w-]+)/.exec(page.url())![1]!;
    // Paused means no new document starts: the batch in hand gives back what it has not started, and
    // from then on the queued count holds still.
    const counts = async () =>
      (await inPage(page, 'GET', `/v1/runs/${runId}`)).body.counts as { queued: number; processing: number };
    await expect.poll(async () => (await counts()).processing, { timeout: 30_000 }).toBe(0);
    const before = (await counts()).queued;
    expect(before).toBeGreaterThan(0);
    await page.waitForTimeout(2500);
    expect((await counts()).queued).toBe(before);
    await shot(page, 'run-paused');

    await page.getByRole('button', { name: 'Resume run' }).click();
    await page.locator('h1 .status', { hasText: 'completed' }).waitFor({ timeout: 90_000 });
    const failure = page.getByTestId('run-failures').locator('li');
    expect(await failure.count()).toBe(1);
    // The reason in words; its code behind "Details".
    expect(await failure.textContent()).toMatch(/^broken\.pdf: [A-Z]\S* /);
    expect(['corrupt_document', 'unsupported_media_type']).toContain(
      await failure.locator('details code').textContent(),
    );
    expect(await failure.locator('details code').isVisible()).toBe(false);
    expect(await page.locator('tr[data-document="broken.pdf"]').getAttribute('data-status')).toBe('failed');
    // A completed run with a failure: 40 green, 1 red, and the words for both.
    expect(await page.getByTestId('run-progress').textContent()).toBe(
      'Completed: 41 of 41 documents processed (40 ready, 1 failed).',
    );
    await barSettles(page, [
      ['ready', 'tone-ok', 40 / 41],
      ['failed', 'tone-bad', 1 / 41],
    ]);
  });

  it('shows a run whose documents all failed in red and in words, never as a full blue bar', async () => {
    await page.goto(workspaceUrl);
    await page
      .getByTestId('file-input')
      .setInputFiles([{ name: 'broken-again.pdf', mimeType: BROKEN.type, buffer: BROKEN.data }]);
    await page.getByRole('button', { name: /Add 1 file/ }).click();
    await page.locator('h1 .status', { hasText: 'failed' }).waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('run-progress').textContent()).toBe(
      'Failed: 1 of 1 document processed (1 failed).',
    );
    await barSettles(page, [['failed', 'tone-bad', 1]]);
    expect(await page.getByTestId('run-counts').textContent()).toBe(' 1 failed');
    const row = page.locator('tr[data-document="broken-again.pdf"]');
    expect(await row.locator('.bar-fill').getAttribute('class')).toBe('bar-fill tone-bad');
    expect(await row.locator('.caption').textContent()).toBe('processed: failed');
    expect(await page.locator('.tone-busy').count()).toBe(0);
    expect(await page.getByRole('status').textContent()).toBe(
      'Failed: 1 of 1 document processed (1 failed).',
    );
  });

  it('refuses files it cannot read before sending them, naming the formats it reads', async () => {
    await page.goto(workspaceUrl);
    const sent = ada.requests.filter((r) => r.url.endsWith('/v1/ingest/bulk')).length;
    const zip = makeZip([{ name: 'inside.txt', data: 'A text file inside an archive.' }]);
    const binary = Buffer.from(Array.from({ length: 2048 }, (_, i) => (i * 7919 + 13) % 256));
    await page.getByTestId('file-input').setInputFiles([
      { name: 'archive.zip', mimeType: 'application/zip', buffer: zip },
      { name: 'program.exe', mimeType: 'application/octet-stream', buffer: binary },
      { name: 'empty.txt', mimeType: 'text/plain', buffer: Buffer.alloc(0) },
      { name: 'fine.md', mimeType: 'text/markdown', buffer: Buffer.from('# Fine\n\nA readable note.\n') },
      // Named like an archive, but a PDF: the content decides, as on the server.
      { name: 'report.zip', mimeType: 'application/zip', buffer: pdf },
    ]);
    const refused = page.getByTestId('refused-files');
    await refused.waitFor();
    expect(await refused.getAttribute('role')).toBe('alert');
    const text = (await refused.textContent())!;
    expect(text).toContain('These 3 files were not added: DocSlurp cannot read them.');
    expect(await refused.locator('li').allTextContents()).toEqual([
      'archive.zip: a zip archive: DocSlurp does not unpack archives, upload the files inside it',
      'program.exe: binary content of no format DocSlurp reads',
      'empty.txt: the file is empty',
    ]);
    // The formats named are the service's own list.
    const formats = (await inPage(page, 'GET', '/v1/formats')).body;
    await refused.getByTestId('supported-formats').waitFor();
    expect(await refused.getByTestId('supported-formats').textContent()).toBe(
      `DocSlurp reads ${describeFormats(formats.formats)}.`,
    );
    expect(text).toMatch(
      /DocSlurp reads PDF, Word \(\.docx\), .*Markdown, plain text, CSV and TSV.*legacy Office/,
    );
    expect(await page.getByTestId('upload-file').allTextContents()).toEqual([
      expect.stringContaining('fine.md'),
      expect.stringContaining('report.zip'),
    ]);
    // Nothing was sent: the refusal is the browser's.
    expect(ada.requests.filter((r) => r.url.endsWith('/v1/ingest/bulk')).length).toBe(sent);
    for (const name of ['fine.md', 'report.zip'])
      await page.getByRole('button', { name: `remove ${name}`, exact: true }).click();
    expect(await page.getByTestId('upload-file').count()).toBe(0);
  });

  it('shows a very long text as it is, saying why, so that it opens quickly', async () => {
    await page.goto(workspaceUrl);
    const long = Array.from(
      { length: 9000 },
      (_, i) => `## Part ${i}\n\nA paragraph of part ${i} with some words.\n`,
    ).join('\n');
    expect(long.length).toBeGreaterThan(500_000);
    await page
      .getByTestId('file-input')
      .setInputFiles([{ name: 'long.md', mimeType: 'text/markdown', buffer: Buffer.from(long) }]);
    await page.getByRole('button', { name: /Add 1 file/ }).click();
    await page.locator('h1 .status', { hasText: 'completed' }).waitFor({ timeout: 60_000 });
    await page
      .locator('tr[data-document="long.md"]')
      .getByRole('link', { name: 'long.md', exact: true })
      .click();
    await page.getByTestId('text-view').waitFor();
    expect(await page.getByTestId('unformatted-note').textContent()).toMatch(
      /The text is long \(0\.5 million characters\)/,
    );
    expect(await page.getByTestId('text-view').locator('h4').count()).toBe(0);
    expect(await page.getByTestId('text-view').textContent()).toContain('## Part 8999');
  });

  let cancelledRun: string;

  it('asks before cancelling a run, then shows what was processed and what was cancelled, with the final counts', async () => {
    await page.goto(workspaceUrl);
    // Three large documents (seconds each) among many small ones: one of them is being processed
    // when the run is cancelled, and settles after it (the worker stops it, or it finishes).
    const big = (n: number) => ({
      name: `big-${n}.md`,
      mimeType: 'text/markdown',
      buffer: Buffer.from(
        Array.from(
          { length: 60_000 },
          (_, i) => `## Section ${i}\n\nParagraph ${i} of long report ${n}: figures, dates and notes.\n`,
        ).join('\n'),
      ),
    });
    const small = Array.from({ length: 117 }, (_, i) => ({
      name: `file${i + 1}.txt`,
      mimeType: 'text/plain',
      buffer: Buffer.from(`File ${i + 1}. A short note about item ${i + 1}.`),
    }));
    await page.getByTestId('file-input').setInputFiles([big(1), big(2), big(3), ...small]);
    await page.getByRole('button', { name: /Add 120 files/ }).click();
    await page.getByRole('heading', { name: /^Upload of 120 files/ }).waitFor();
    cancelledRun = /\/runs\/(run_[\w-]+)/.exec(page.url())![1]!;
    const api = async () => (await inPage(page, 'GET', `/v1/runs/${cancelledRun}/progress`)).body;

    // Cancel asks first; "Keep the run" backs out and nothing is cancelled.
    await page.getByRole('button', { name: 'Cancel run' }).click();
    const confirm = page.getByRole('button', { name: /^Yes, cancel/ });
    await confirm.waitFor();
    expect(await confirm.textContent()).toMatch(/^Yes, cancel: \d+ waiting documents will not be processed$/);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toMatch(/^Yes, cancel/);
    expect((await api()).status).toBe('processing');
    await page.getByRole('button', { name: 'Keep the run' }).click();
    expect(await confirm.count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel run');
    expect((await api()).status).toBe('processing');

    // Confirmed while a large document is being processed, some are done and others still wait.
    await page.getByRole('button', { name: 'Cancel run' }).click();
    await expect
      .poll(
        async () => {
          const p = await api();
          // Being parsed, not only claimed: a claimed document of a cancelled run is cancelled when
          // its turn comes, while one being parsed is worked on to the end (seconds for these).
          const bigBusy = p.documents.some(
            (d: { filename: string; status: string; stage: string }) =>
              d.filename.startsWith('big-') && d.status === 'processing' && d.stage === 'parsing',
          );
          return bigBusy && p.counts.queued > 0 && p.counts.ready > 0;
        },
        { timeout: 60_000, interval: 50 },
      )
      .toBe(true);
    await confirm.click();
    // The run is terminal while that document is usually still being processed (read as soon as the
    // cancel lands). On a busy machine the worker may settle it first, or have given a claimed
    // document back to the queue just before: CI met both, so the page is held to the final counts
    // below, whichever came first.
    let atCancel = await api();
    await expect
      .poll(
        async () => {
          atCancel = await api();
          return atCancel.status;
        },
        { timeout: 10_000, interval: 20 },
      )
      .toBe('cancelled');
    expect(atCancel.counts.processing).toBeLessThanOrEqual(1);
    await page.locator('h1 .status', { hasText: 'cancelled' }).waitFor();

    // Once nothing is left to settle, the page shows the API's final counts, not the ones it had at
    // the cancel.
    await expect
      .poll(
        async () => {
          const { counts } = await api();
          return counts.processing + counts.queued;
        },
        { timeout: 60_000 },
      )
      .toBe(0);
    const final = (await api()).counts;
    expect(final.ready).toBeGreaterThanOrEqual(1);
    expect(final.ready + final.cancelled).toBe(120);
    const words =
      `Cancelled: ${final.ready} of 120 documents processed (${final.ready} ready); ` +
      `${final.cancelled} cancelled before they were processed.`;
    await expect.poll(() => page.getByTestId('run-progress').textContent(), { timeout: 10_000 }).toBe(words);
    expect(await page.getByTestId('run-announcement').textContent()).toBe(words);
    // Not "100 %": the bar is green for what was processed, hatched grey for what was cancelled.
    expect(await page.locator('.run-summary').textContent()).not.toContain('100');
    expect(await page.getByTestId('run-bar').getAttribute('aria-valuenow')).toBe(
      String(Math.round((final.ready / 120) * 100)),
    );
    await barSettles(page, [
      ['ready', 'tone-ok', final.ready / 120],
      ['cancelled', 'tone-cancelled', final.cancelled / 120],
    ]);
    const cancelledRow = page.locator('tr[data-status="cancelled"]').first();
    expect(await cancelledRow.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('0');
    expect(await cancelledRow.locator('.caption').textContent()).toBe('not processed: cancelled');
    expect(await cancelledRow.locator('.status').textContent()).toBe('cancelled');
    await shot(page, 'run-cancelled');
  });

  it('reads a run of many files page by page, sorted as people number them, filtered by state', async () => {
    const column = (attribute: string) =>
      page
        .getByTestId('run-documents')
        .locator('tbody tr')
        .evaluateAll((rows, a) => rows.map((r) => r.getAttribute(a)), attribute);
    // Natural order: file2 before file10.
    expect((await column('data-document')).slice(0, 14)).toEqual([
      'big-1.md',
      'big-2.md',
      'big-3.md',
      ...Array.from({ length: 11 }, (_, i) => `file${i + 1}.txt`),
    ]);
    expect(await page.getByTestId('page-info').textContent()).toBe('Documents 1–50 of 120');
    await page.getByRole('button', { name: 'Next page' }).click();
    expect(await page.getByTestId('page-info').textContent()).toBe('Documents 51–100 of 120');
    expect((await column('data-document'))[0]).toBe('file48.txt');
    await page.getByRole('button', { name: 'Next page' }).click();
    expect(await page.getByTestId('page-info').textContent()).toBe('Documents 101–120 of 120');
    expect((await column('data-document')).at(-1)).toBe('file117.txt');
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);

    // The summary counts, and a filter per state: only cancelled documents, from the first page again.
    const counts = (await inPage(page, 'GET', `/v1/runs/${cancelledRun}`)).body.counts;
    expect(await page.getByTestId('run-counts').locator('li').allTextContents()).toEqual([
      ` ${counts.ready} ready`,
      ` ${counts.cancelled} cancelled`,
    ]);
    const cancelledFilter = page.getByRole('button', { name: `cancelled (${counts.cancelled})` });
    await cancelledFilter.click();
    expect(await cancelledFilter.getAttribute('aria-pressed')).toBe('true');
    // How many were cancelled depends on how far the worker got (batches of small files go fast):
    // the filtered list pages only when it is longer than a page.
    if (counts.cancelled > 50)
      expect(await page.getByTestId('page-info').textContent()).toBe(`Documents 1–50 of ${counts.cancelled}`);
    else expect(await page.getByTestId('page-info').count()).toBe(0);
    expect(new Set(await column('data-status'))).toEqual(new Set(['cancelled']));
    expect((await column('data-status')).length).toBe(Math.min(50, counts.cancelled));
    await page.getByRole('button', { name: `ready (${counts.ready})` }).click();
    expect(new Set(await column('data-status'))).toEqual(new Set(['ready']));
    expect((await column('data-status')).length).toBe(Math.min(50, counts.ready));
  });

  it('gives an overview: documents by state, work in progress and recent failures', async () => {
    // Earlier tests leave runs that may still be finishing on a busy machine; the counts shown must
    // be compared with the API once nothing changes them any more.
    for (let i = 0; ; i++) {
      const o = (await inPage(page, 'GET', '/v1/overview')).body;
      if (o.runsProcessing === 0) break;
      if (i > 600) throw new Error('runs still processing after 60 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    const from = ada.timeline.length;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview' }).click();
    await page.getByTestId('recent-failures').waitFor();
    // Both things the screen shows were asked for at once. (A poll of the run page left before the
    // click may still land after it: it is not the overview's.)
    const api = ada.timeline
      .slice(from)
      .filter((e) => e.url.includes('/v1/') && !new URL(e.url).pathname.startsWith('/v1/runs/'));
    expect(
      api
        .slice(0, 2)
        .map((e) => [e.kind, new URL(e.url).pathname])
        .sort(),
    ).toEqual([
      ['request', '/v1/overview'],
      ['request', '/v1/workspaces'],
    ]);
    const overview = (await inPage(page, 'GET', '/v1/overview')).body;
    const counts = await page.getByTestId('document-counts').locator('li').allTextContents();
    expect(counts).toContain(`ready ${overview.documents.ready}`);
    expect(counts).toContain(`failed ${overview.documents.failed}`);
    expect(counts).toContain(`cancelled ${overview.documents.cancelled}`);
    expect(await page.getByTestId('recent-failures').textContent()).toContain('broken.pdf');
    await shot(page, 'overview');
  });

  it('deletes a document', async () => {
    await page.goto(workspaceUrl);
    const row = page.locator('tr[data-document="memo-00.txt"]');
    // Each button names the document it acts on.
    await row.getByRole('button', { name: 'Delete: memo-00.txt', exact: true }).click();
    await row.getByRole('button', { name: 'Delete for good: memo-00.txt', exact: true }).click();
    await row.waitFor({ state: 'detached' });
    const docs = (await inPage(page, 'GET', `/v1/workspaces/${workspaceId}/documents`)).body.documents;
    expect(docs.some((d: { filename: string }) => d.filename === 'memo-00.txt')).toBe(false);
  });

  it('renames the workspace: its heading, title and breadcrumbs follow', async () => {
    await page.goto(workspaceUrl);
    await page.getByTestId('documents').waitFor();
    await page.getByRole('button', { name: `Rename ${NAME}`, exact: true }).click();
    const field = page.getByLabel(`New name of ${NAME}`);
    expect(await field.evaluate((e) => e === document.activeElement)).toBe(true);
    await field.fill(RENAMED);
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('heading', { level: 1, name: RENAMED }).waitFor();
    await expect.poll(() => page.title()).toBe(`${RENAMED} · DocSlurp`);
    expect((await inPage(page, 'GET', `/v1/workspaces/${workspaceId}`)).body.name).toBe(RENAMED);
    await page.getByTestId('runs').getByRole('link').first().click();
    await page.locator('.crumbs').getByRole('link', { name: RENAMED, exact: true }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Workspaces' }).click();
    await page.getByTestId('workspaces').getByRole('link', { name: RENAMED, exact: true }).waitFor();
  });

  it('deletes a workspace after a confirmation that says what goes, and it is gone everywhere', async () => {
    await page.goto(`${serve.url}/workspaces`);
    await dropFiles(page, [
      { name: 'scratch.md', type: 'text/markdown', data: Buffer.from('# Scratch\n\nDraft.') },
    ]);
    await page.getByLabel('Name of the new workspace').fill('Scratch pad');
    await page.getByRole('button', { name: /Upload 1 file/ }).click();
    await page.locator('h1 .status', { hasText: 'completed' }).waitFor({ timeout: 60_000 });
    const scratch = (await inPage(page, 'GET', '/v1/workspaces')).body.workspaces.find(
      (w: { name: string }) => w.name === 'Scratch pad',
    ).id as string;
    await page.locator('.crumbs').getByRole('link', { name: 'Scratch pad', exact: true }).click();
    expect(await page.getByTestId('delete-note').textContent()).toBe(
      'Deletes 1 document with their original files, extracted text and search index. This cannot be undone.',
    );
    await page.getByRole('button', { name: 'Delete workspace: Scratch pad', exact: true }).click();
    const confirm = page.getByRole('button', {
      name: 'Delete Scratch pad and its document: Scratch pad',
      exact: true,
    });
    expect(await confirm.textContent()).toBe('Delete Scratch pad and its document');
    await confirm.click();
    await page.getByRole('heading', { level: 1, name: 'Workspaces' }).waitFor();
    await page.getByTestId('workspaces').getByRole('link', { name: RENAMED, exact: true }).waitFor();
    expect(await page.getByTestId('workspaces').getByRole('link', { name: 'Scratch pad' }).count()).toBe(0);
    expect((await inPage(page, 'GET', `/v1/workspaces/${scratch}`)).status).toBe(404);
    await page.goto(`${serve.url}/workspaces/${scratch}`);
    await page.getByRole('heading', { name: 'Workspace not found' }).waitFor();
  });

  it('creates a key with chosen scopes, shows it once with a copy button, and revokes it', async () => {
    await ada.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: serve.url });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Name').fill('reporting job');
    await page.locator('input[name=scope][value=search]').check();
    await page.locator('input[name=scope][value=artifacts]').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = await page.getByTestId('new-key').inputValue();
    expect(secret).toMatch(/^dsk_\w{20,}$/);
    await page.getByRole('button', { name: 'Copy key' }).click();
    await page.getByRole('button', { name: 'Key copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await shot(page, 'keys');

    // The key works for its scopes from a server (here: the test), and only for them.
    const asServer = (p: string) => fetch(serve.url + p, { headers: { authorization: `Bearer ${secret}` } });
    expect((await asServer('/v1/workspaces')).status).toBe(200);
    expect((await asServer(`/v1/runs/run_x`)).status).toBe(403); // no ingest scope

    await page.getByRole('button', { name: 'Done: hide the key' }).click();
    expect(await page.getByTestId('new-key').count()).toBe(0);
    // Shown once: the list has the prefix only, and nothing the browser received since has the secret.
    const received = ada.responses.length;
    await page.reload();
    const row = page.locator('tr', { hasText: 'reporting job' });
    expect(await row.locator('td').nth(2).textContent()).toBe('search, artifacts');
    await row.getByRole('button', { name: 'Revoke: key reporting job', exact: true }).click();
    await row.getByRole('button', { name: 'Revoke now: key reporting job', exact: true }).click();
    await row.locator('.status', { hasText: 'revoked' }).waitFor();
    expect(ada.responses.slice(received).some((r) => r.body.includes(secret))).toBe(false);
    expect((await asServer('/v1/workspaces')).status).toBe(401);
  });

  it('creates a key that acts as one user, named in the list, which sees only what that user may', async () => {
    const asAdmin = (path: string, body: unknown) =>
      fetch(serve.url + path, {
        method: 'POST',
        headers: { authorization: `Bearer ${SERVER_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await asAdmin('/v1/users', { email: 'bound-reader@example.com', role: 'reader' })).status).toBe(
      201,
    );
    // A workspace only the owner's side sees: the reader is in no group it is shared with.
    expect((await asAdmin('/v1/groups', { name: 'Key test' })).status).toBe(201);
    const hidden = await asAdmin('/v1/workspaces', {
      name: 'Not for the bound key',
      access: { read: { groups: ['Key test'] }, edit: { groups: ['Key test'] } },
    });
    expect(hidden.status).toBe(201);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Name').fill('reader app');
    await page.getByLabel('Acts as').fill('bound-reader@example.com');
    await page.locator('input[name=scope][value=artifacts]').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = await page.getByTestId('new-key').inputValue();
    await page.getByRole('button', { name: 'Done: hide the key' }).click();
    const row = page.locator('tr', { hasText: 'reader app' });
    await row.getByText('bound-reader@example.com').waitFor();
    const names = async (key: string) => {
      const r = await fetch(`${serve.url}/v1/workspaces`, { headers: { authorization: `Bearer ${key}` } });
      expect(r.status).toBe(200);
      return ((await r.json()) as { workspaces: { name: string }[] }).workspaces.map((w) => w.name);
    };
    expect(await names(SERVER_KEY)).toContain('Not for the bound key');
    expect(await names(secret)).not.toContain('Not for the bound key');
    // An account key says so in the same column.
    expect(await page.locator('tr', { hasText: 'reporting job' }).getByText('the account').count()).toBe(1);
  });

  it('adds a webhook endpoint, shows its secret once, lists its signed deliveries and redelivers one', async () => {
    const receiver = await startReceiver();
    try {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
      await page.getByLabel('URL').fill(receiver.url('/console'));
      await page.getByLabel('Description').fill('build notifier');
      await page.locator('input[name=event][value="document.ready"]').check();
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      const secret = await page.getByTestId('new-webhook-secret').inputValue();
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      await page.getByRole('button', { name: 'Done: hide the secret' }).click();
      expect(await page.getByTestId('new-webhook-secret').count()).toBe(0);
      const received = ada.responses.length;

      // Work done by a server of the account (its key) is announced to the endpoint.
      const form = new FormData();
      form.append('files', new Blob(['# Hooked\n\nA note for the webhook.']), 'hooked.md');
      const up = await fetch(`${serve.url}/v1/ingest/bulk`, {
        method: 'POST',
        headers: { authorization: `Bearer ${SERVER_KEY}` },
        body: form,
      });
      expect(up.status).toBe(202);
      const hooks = await receiver.waitFor('/console', 2);
      const events = await Promise.all(hooks.map((h) => verifyWebhook(secret, h.headers, h.body)));
      expect(events.map((e) => e.type).sort()).toEqual(['document.ready', 'run.completed']);

      await page.getByRole('link', { name: 'build notifier' }).click();
      const rows = page.getByTestId('deliveries').locator('tbody tr');
      await rows.nth(1).waitFor();
      expect(await rows.count()).toBe(2);
      await page.waitForFunction(() => document.title === 'Webhook build notifier · DocSlurp');
      const readyRow = rows.filter({ hasText: 'document.ready' });
      expect(await readyRow.locator('.status').textContent()).toBe('succeeded');
      expect(await readyRow.getByRole('link', { name: 'hooked.md' }).count()).toBe(1);
      await readyRow.getByRole('button', { name: /^Redeliver document.ready of doc_/ }).click();
      const [, , again] = await receiver.waitFor('/console', 3);
      const resent = await verifyWebhook(secret, again!.headers, again!.body);
      expect(resent.id).toBe(events.find((e) => e.type === 'document.ready')!.id);
      await readyRow.getByText('Details').click();
      await readyRow
        .getByTestId('attempts')
        .getByText(/Attempt 2 \(redelivery\)/)
        .waitFor();
      await shot(page, 'webhook');

      // The secret was in the answer that created the endpoint, and in nothing the browser got since.
      expect(ada.responses.slice(received).some((r) => r.body.includes(secret.slice(6)))).toBe(false);
      await page.getByRole('link', { name: 'Webhooks' }).first().click();
      const row = page.locator('tr', { hasText: 'build notifier' });
      await row.getByRole('button', { name: 'Delete: endpoint build notifier', exact: true }).click();
      await row.getByRole('button', { name: 'Delete now: endpoint build notifier', exact: true }).click();
      await page.getByText('No endpoints yet.').waitFor();
    } finally {
      await receiver.close();
    }
  });

  it('adds a folder source on the Sources tab, syncs it now, shows the last sync and deletes it', async () => {
    const folder = path.join(sourceRoot, 'handbook');
    await mkdir(folder);
    await writeFile(path.join(folder, 'parking.md'), '# Parking\n\nThe car park opens at seven.\n');
    await writeFile(path.join(folder, 'canteen.md'), '# Canteen\n\nSoup is served on Fridays.\n');
    const session = (await inPage(page, 'GET', '/v1/session')).body;
    const ws = await inPage(page, 'POST', '/v1/workspaces', {
      csrf: session.csrfToken,
      json: { name: 'Synced handbook' },
    });
    await page.goto(`${serve.url}/workspaces/${ws.body.id}`);
    await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Sources' }).click();
    await page.getByRole('heading', { name: 'Add a source' }).waitFor();
    await expect.poll(() => page.title()).toBe('Sources · Synced handbook · DocSlurp');
    await page.getByLabel('Type').selectOption('folder');
    await page.getByLabel('Name').fill('Handbook folder');
    await page.getByRole('textbox', { name: /^Folder/ }).fill(folder);
    await page.getByRole('button', { name: 'Add source' }).click();
    const row = page.locator('[data-testid=sources] tbody tr').filter({ hasText: 'Handbook folder' });
    await row.waitFor();
    // Adding a source starts its first sync (issue 28); "Sync now" answers that same run meanwhile.
    await row.getByRole('button', { name: 'Sync now: Handbook folder' }).click();
    await row.getByTestId('last-sync').getByText('completed').waitFor({ timeout: 30_000 });
    await shot(page, 'sources');
    const docs = (await inPage(page, 'GET', `/v1/workspaces/${ws.body.id}/documents`)).body.documents;
    expect(docs.map((d: { sourceItem: string }) => d.sourceItem).sort()).toEqual([
      'canteen.md',
      'parking.md',
    ]);

    // A folder outside the allowed roots is refused with the reason.
    await page.getByRole('textbox', { name: /^Folder/ }).fill('/etc');
    await page.getByRole('button', { name: 'Add source' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('SOURCE_FOLDER_ROOTS');

    await row.getByRole('button', { name: 'Delete: source Handbook folder' }).click();
    await row.getByRole('button', { name: 'Delete with its documents: source Handbook folder' }).click();
    await row.waitFor({ state: 'detached' });
    const after = (await inPage(page, 'GET', `/v1/workspaces/${ws.body.id}/documents`)).body.documents;
    expect(after).toEqual([]);
  });

  it('never lets an API key reach the browser, and runs under a strict CSP without violations', async () => {
    const bodies = ada.responses.filter((r) => !r.url.endsWith('/v1/keys') || r.method !== 'POST');
    expect(bodies.length).toBeGreaterThan(20);
    for (const r of bodies) {
      expect(r.body, r.url).not.toContain(SERVER_KEY);
      expect(r.body, r.url).not.toMatch(/dsk_[A-Za-z0-9_-]{20,}/);
    }
    // The console authenticates with its cookie only.
    expect(ada.requests.filter((r) => r.headers.authorization !== undefined)).toEqual([]);
    const scripts = ada.responses.filter((r) => /javascript/.test(r.contentType));
    expect(scripts.length).toBeGreaterThanOrEqual(2);
    const html = ada.responses.find(
      (r) => r.url === `${serve.url}/` && r.contentType.startsWith('text/html'),
    );
    expect(html!.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    const head = await fetch(`${serve.url}/`, { headers: { accept: 'text/html' } });
    const csp = head.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(
      await page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations),
    ).toEqual([]);
    const stored = await page.evaluate(
      () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }),
    );
    expect(stored).not.toMatch(/dsk_/);
  });

  it('rejects a state-changing request without the CSRF token', async () => {
    const forged = await inPage(page, 'POST', '/v1/keys', { json: { scopes: ['search'] } });
    expect(forged.status).toBe(403);
    expect(forged.body.error.code).toBe('csrf_token_invalid');
    const session = (await inPage(page, 'GET', '/v1/session')).body;
    const allowed = await inPage(page, 'POST', '/v1/search', {
      csrf: session.csrfToken,
      json: { workspaceId, q: 'vacation' },
    });
    expect(allowed.status).toBe(200);
  });

  it("keeps one account's workspace out of another account's session", async () => {
    await runCli(dataDir, [
      'users',
      'create',
      '--email',
      BOB.email,
      '--password',
      BOB.password,
      '--account',
      'other',
    ]);
    const bob = await launchBrowser();
    try {
      await signIn(bob.page, BOB);
      await bob.page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Workspaces' })
        .click();
      await bob.page.getByText('None yet.').waitFor();
      await bob.page.goto(workspaceUrl);
      await bob.page.getByRole('heading', { name: 'Workspace not found' }).waitFor();
      const docs = (await inPage(page, 'GET', `/v1/workspaces/${workspaceId}/documents`)).body.documents;
      const docId = docs[0].id as string;
      await bob.page.goto(`${serve.url}/documents/${docId}`);
      await bob.page.getByRole('heading', { name: 'Document not found' }).waitFor();
      expect((await inPage(bob.page, 'GET', `/v1/documents/${docId}/content`)).status).toBe(404);
      expect(bob.responses.some((r) => r.body.includes('Reimbursement of travel expenses'))).toBe(false);
    } finally {
      await bob.close();
    }
  });

  it('works with a keyboard and a screen reader: skip link, aria-current, a title per screen, named buttons', async () => {
    await page.goto(`${serve.url}/keys`);
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    expect(await page.title()).toBe('API keys · DocSlurp');
    const focused = () =>
      page.evaluate(() => {
        const e = document.activeElement;
        return { tag: e?.tagName, id: e?.id, text: e?.textContent, inMain: !!e?.closest('main') };
      });
    // The first Tab reaches the skip link, shown while it has focus; Enter moves past the navigation.
    await page.keyboard.press('Tab');
    expect(await focused()).toMatchObject({ tag: 'A', text: 'Skip to content' });
    const skip = (await page.getByRole('link', { name: 'Skip to content' }).boundingBox())!;
    expect(skip.y).toBeGreaterThanOrEqual(0);
    await page.keyboard.press('Enter');
    expect(await focused()).toMatchObject({ id: 'main' });
    await page.keyboard.press('Tab');
    expect(await focused()).toMatchObject({ inMain: true });

    // aria-current: the screen's own link is the page; the section's link is current on its screens.
    const nav = page.getByRole('navigation', { name: 'Main' });
    const current = () =>
      nav
        .getByRole('link')
        .evaluateAll((links) => links.map((l) => [l.textContent, l.getAttribute('aria-current')]));
    expect(await current()).toEqual([
      ['Overview', null],
      ['Workspaces', null],
      ['Webhooks', null],
      ['API keys', 'page'],
      // Ada is the account's owner: the screens of owners and admins are hers too.
      ['People', null],
      ['Groups', null],
      ['Audit log', null],
    ]);
    await nav.getByRole('link', { name: 'Workspaces' }).click();
    await page.getByRole('heading', { name: 'Workspaces', level: 1 }).waitFor();
    // A new screen: focus starts at its content, and its title says which screen it is.
    expect(await focused()).toMatchObject({ id: 'main' });
    expect(await page.title()).toBe('Workspaces · DocSlurp');
    expect(await current()).toEqual([
      ['Overview', null],
      ['Workspaces', 'page'],
      ['Webhooks', null],
      ['API keys', null],
      ['People', null],
      ['Groups', null],
      ['Audit log', null],
    ]);
    await page.goto(workspaceUrl);
    await page.getByTestId('documents').waitFor();
    expect((await current())[1]).toEqual(['Workspaces', 'true']);
    const tabs = page.getByRole('navigation', { name: 'Workspace' }).getByRole('link');
    expect(await tabs.evaluateAll((ls) => ls.map((l) => l.getAttribute('aria-current')))).toEqual([
      'page',
      null,
      null,
      null,
      null,
    ]);

    // Every button says what it acts on: no two buttons of a screen share a name.
    const buttonNames = async () => {
      const tree = await page.locator('main').ariaSnapshot();
      return Array.from(tree.matchAll(/\bbutton "((?:[^"\\]|\\.)*)"/g), (m) => m[1]!);
    };
    for (const url of [workspaceUrl, `${serve.url}/runs/${cancelledRun}`]) {
      await page.goto(url);
      await page.locator('table tbody tr').first().waitFor();
      const names = await buttonNames();
      expect(names.length).toBeGreaterThan(3);
      expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
    }
  });

  it('works on a phone: at 390 px no screen scrolls sideways, the top bar folds, tables scroll in their box', async () => {
    const docs = (await inPage(page, 'GET', `/v1/workspaces/${workspaceId}/documents`)).body.documents as {
      id: string;
      filename: string;
    }[];
    const docId = (name: string) => docs.find((d) => d.filename === name)!.id;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      const screens: { url: string; ready: () => Promise<unknown>; title: string }[] = [
        { url: '/', ready: () => page.getByTestId('recent-failures').waitFor(), title: 'Overview' },
        { url: '/workspaces', ready: () => page.getByTestId('workspaces').waitFor(), title: 'Workspaces' },
        {
          url: `/workspaces/${workspaceId}`,
          ready: () => page.getByTestId('documents').waitFor(),
          title: RENAMED,
        },
        {
          url: `/workspaces/${workspaceId}/search?q=travel+reimbursement`,
          ready: () => page.getByTestId('search-results').waitFor(),
          title: `Search: travel reimbursement · ${RENAMED}`,
        },
        {
          url: `/workspaces/${workspaceId}/chat`,
          ready: () => page.getByTestId('answer').first().waitFor(),
          title: `Chat · ${RENAMED}`,
        },
        {
          url: `/runs/${cancelledRun}`,
          ready: () => page.getByTestId('run-documents').waitFor(),
          title: 'Upload of 120 files (cancelled)',
        },
        {
          url: `/documents/${docId('policy.docx')}`,
          ready: () => page.getByTestId('text-view').waitFor(),
          title: 'policy.docx',
        },
        {
          url: `/documents/${docId('handbook.pdf')}?view=pdf&page=2`,
          ready: () => page.locator('.pdf-page[data-page="2"][data-rendered="true"]').waitFor(),
          title: 'handbook.pdf',
        },
        { url: '/keys', ready: () => page.getByTestId('keys').waitFor(), title: 'API keys' },
        {
          url: '/webhooks',
          ready: () => page.getByRole('heading', { name: 'Add an endpoint' }).waitFor(),
          title: 'Webhooks',
        },
        {
          url: '/no/such/screen',
          ready: () => page.getByRole('heading', { name: 'Not found' }).waitFor(),
          title: 'Not found',
        },
      ];
      for (const s of screens) {
        await page.goto(serve.url + s.url);
        await s.ready();
        // The workspace's name comes with its own request, beside the screen's.
        await expect.poll(() => page.title()).toBe(`${s.title} · DocSlurp`);
        expect(await sideScroll(page), s.url).toBeLessThanOrEqual(0);
        if (s.url.startsWith('/runs/')) await shot(page, 'phone-run');
      }

      // The top bar folds: the navigation is behind "Menu" until it is opened, and opening it adds no width.
      await page.goto(`${serve.url}/workspaces/${workspaceId}`);
      await page.getByTestId('documents').waitFor();
      const nav = page.getByRole('navigation', { name: 'Main' });
      const menu = page.getByRole('button', { name: 'Menu' });
      expect(await nav.isVisible()).toBe(false);
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      await menu.click();
      expect(await menu.getAttribute('aria-expanded')).toBe('true');
      expect(await nav.isVisible()).toBe(true);
      expect(await sideScroll(page)).toBeLessThanOrEqual(0);
      await shot(page, 'phone-menu');
      await nav.getByRole('link', { name: 'API keys' }).click();
      await page.getByTestId('keys').waitFor();
      expect(await nav.isVisible()).toBe(false); // closed again on the new screen

      // A wide table (the workspaces' counts) scrolls inside its own box, and long ids wrap instead of
      // widening the page; a workspace's documents are blocks that fit, their actions in reach (issue 43).
      await page.goto(`${serve.url}/workspaces`);
      const box = page.locator('.table-scroll', { has: page.getByTestId('workspaces') });
      const widths = await box.evaluate((b) => ({ scroll: b.scrollWidth, client: b.clientWidth }));
      expect(widths.scroll).toBeGreaterThan(widths.client);
      await page.goto(`${serve.url}/workspaces/${workspaceId}`);
      const docsBox = page.locator('.table-scroll', { has: page.getByTestId('documents') });
      const fit = await docsBox.evaluate((b) => ({ scroll: b.scrollWidth, client: b.clientWidth }));
      expect(fit.scroll).toBeLessThanOrEqual(fit.client);
      await page.goto(`${serve.url}/runs/${cancelledRun}`);
      const h1 = (await page.getByRole('heading', { level: 1 }).boundingBox())!;
      expect(h1.x + h1.width).toBeLessThanOrEqual(390);
    } finally {
      await page.setViewportSize({ width: 1280, height: 860 });
    }
  });

  it('signs out on the server: the old session cookie stops working', async () => {
    const cookie = (await ada.context.cookies()).find((c) => c.name === 'docslurp_session')!;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to DocSlurp' }).waitFor();
    expect(await page.title()).toBe('Sign in · DocSlurp');
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await sideScroll(page)).toBeLessThanOrEqual(0);
    const replay = await fetch(`${serve.url}/v1/workspaces`, {
      headers: { cookie: `docslurp_session=${cookie.value}` },
    });
    expect(replay.status).toBe(401);
    expect(((await replay.json()) as { error: { code: string } }).error.code).toBe('session_expired');
  });
});
