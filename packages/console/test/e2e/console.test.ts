// Over 400 lines: the console in a real browser against one running service (a start and a browser
// cost seconds), a screen per describe block.
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDocx, makePdf } from '../../../service/test/support/fixtures.js';
import {
  cliPath,
  embeddedDataDir,
  runCli,
  type ServeProcess,
  spawnServe,
  stopLeftoverPostgres,
} from '../../../service/test/support/spawn.js';
import { consoleDist, launchBrowser, screenshotDir, type TestBrowser } from '../support/browser.js';

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

const shot = (p: Page, name: string) => p.screenshot({ path: path.join(shots, `${name}.png`) });

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
  for (const built of [cliPath, path.join(consoleDist, 'index.html')]) {
    if (!existsSync(built)) throw new Error(`${built} is missing: run "npm run build" first (npm test does)`);
  }
  shots = await screenshotDir();
  dataDir = await embeddedDataDir();
  serve = await spawnServe(dataDir, {
    CONSOLE_ADMIN_EMAIL: ADA.email,
    CONSOLE_ADMIN_PASSWORD: ADA.password,
    SERVICE_BOOTSTRAP_API_KEY: SERVER_KEY,
    JOB_POLL_INTERVAL_SECONDS: '0.5',
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
  if (process.env.UPDATE_SCREENSHOTS !== '1' && shots) await rm(shots, { recursive: true, force: true });
});

describe('the web console in Chromium', () => {
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
    await page.getByRole('heading', { name: /^Run run_/ }).waitFor();
    const runId = /\/runs\/(run_[\w-]+)/.exec(page.url())![1]!;
    await page.locator('h1 .status', { hasText: 'completed' }).waitFor({ timeout: 60_000 });
    const rows = page.getByTestId('run-documents').locator('tbody tr');
    expect(await rows.count()).toBe(3);
    for (const f of FILES) {
      const row = page.locator(`tr[data-document="${f.name}"]`);
      expect(await row.getAttribute('data-status')).toBe('ready');
      expect(await row.locator('td').nth(2).textContent()).toBe('done');
      expect(await row.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('100');
    }
    expect(await page.getByTestId('run-progress').textContent()).toContain('100% · 3 ready');
    // A finished run shows the pace it went at (documents per second over its work).
    expect(await page.getByTestId('run-pace').textContent()).toMatch(/^[\d.]+ documents\/s$/);
    await shot(page, 'run');
    const run = await inPage(page, 'GET', `/v1/runs/${runId}`);
    expect(run.body.status).toBe('completed');
    workspaceId = run.body.workspaceId;
    workspaceUrl = `${serve.url}/workspaces/${workspaceId}`;
  });

  it('lists the documents with state, size and pages, shows the text with page markers and downloads the original', async () => {
    await page.getByRole('link', { name: `Workspace ${workspaceId}` }).click();
    await page.getByTestId('documents').waitFor();
    const pdfRow = page.locator('tr[data-document="handbook.pdf"]');
    expect(await pdfRow.locator('.status').textContent()).toBe('ready');
    expect(await pdfRow.locator('td').nth(2).textContent()).toBe(`${(pdf.length / 1024).toFixed(1)} KB`);
    expect(await pdfRow.locator('td').nth(3).textContent()).toBe('3');
    await shot(page, 'workspace');

    const download = page.waitForEvent('download');
    await pdfRow.getByRole('link', { name: 'Download' }).click();
    const saved = await (await download).path();
    expect(Buffer.compare(await readFile(saved), pdf)).toBe(0);

    await page.locator('tr[data-document="policy.docx"]').getByRole('link', { name: 'policy.docx' }).click();
    await page.getByTestId('text-view').waitFor();
    expect(await page.getByTestId('text-view').textContent()).toContain(
      'Every employee receives 25 days of paid vacation per year.',
    );

    await page.goBack();
    // Until a PDF is opened, the PDF renderer has not been fetched: it is not part of the first load.
    const pdfCode = () =>
      ada.responses.map((r) => r.url).filter((u) => /\/assets\/(PdfView|pdf\.worker)/.test(u));
    expect(pdfCode()).toEqual([]);
    await page
      .locator('tr[data-document="handbook.pdf"]')
      .getByRole('link', { name: 'handbook.pdf' })
      .click();
    // A PDF opens as the original, rendered page by page.
    await page.locator('.pdf-page[data-page="1"][data-rendered="true"]').waitFor();
    await expect.poll(() => pdfCode().some((u) => u.includes('pdf.worker'))).toBe(true);
    await page.getByRole('button', { name: 'Extracted text' }).click();
    const markers = await page.locator('.page-marker').allTextContents();
    expect(markers).toEqual(['Page 1', 'Page 2', 'Page 3']);
    expect(await page.locator('[data-page="2"] pre').textContent()).toContain(
      'Reimbursement of travel expenses',
    );
    // And back to the original: rendered again from the bytes already fetched.
    await page.getByRole('button', { name: 'Original PDF' }).click();
    await page.locator('.pdf-page[data-page="1"][data-rendered="true"]').waitFor();
  });

  it('searches with the matches highlighted and opens a PDF citation at its page, the passage highlighted', async () => {
    await page.goto(`${workspaceUrl}/search`);
    await page.getByLabel('Search the workspace').fill('travel reimbursement receipts');
    await page.getByRole('button', { name: 'Search' }).click();
    const first = page.getByTestId('search-results').locator('li').first();
    await first.waitFor();
    expect(await first.locator('.citation-link').textContent()).toBe('handbook.pdf, page 2');
    const marked = (await first.locator('mark').allTextContents()).map((t) => t.toLowerCase());
    expect(marked).toEqual(expect.arrayContaining(['travel', 'reimbursement', 'receipts']));
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

  it('streams a chat answer whose citation markers link to the cited passages', async () => {
    await page.goto(`${workspaceUrl}/chat`);
    await page.getByLabel('Ask a question').fill('How many vacation days does an employee receive per year?');
    await page.getByRole('button', { name: 'Ask' }).click();
    const answer = page.getByTestId('answer').first();
    await page.getByTestId('citations').waitFor();
    expect(await answer.textContent()).toContain('25 days of paid vacation');
    const marker = answer.locator('a.marker').first();
    expect(await marker.textContent()).toBe('[1]');
    const chatRequest = ada.requests.find((r) => r.url.endsWith('/v1/search/chat'));
    expect(chatRequest?.headers.accept).toBe('text/event-stream');
    await shot(page, 'chat');

    const citedText = await page.getByTestId('citations').locator('blockquote').first().textContent();
    await marker.click();
    await page.getByTestId('text-view').locator('mark').waitFor();
    const mark = (await page.getByTestId('text-view').locator('mark').textContent())!;
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

  it('pauses, resumes and cancels runs, and shows failures with their reasons', async () => {
    await page.goto(workspaceUrl);
    const many = Array.from({ length: 40 }, (_, i) => ({
      name: `memo-${String(i).padStart(2, '0')}.txt`,
      type: 'text/plain',
      data: Buffer.from(`Memo ${i}. The quarterly figures for region ${i} are attached. `.repeat(200)),
    }));
    const broken = {
      name: 'broken.pdf',
      type: 'application/pdf',
      data: Buffer.from('%PDF-1.7\nthis is no PDF'),
    };
    await page
      .getByTestId('file-input')
      .setInputFiles([broken, ...many].map((f) => ({ name: f.name, mimeType: f.type, buffer: f.data })));
    await page.getByRole('button', { name: /Add 41 files/ }).click();
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.locator('h1 .status', { hasText: 'paused' }).waitFor();
    const runId = /\/runs\/(run_[\w-]+)/.exec(page.url())![1]!;
    // Paused means no new document starts: the queued count holds still.
    const queued = async () => (await inPage(page, 'GET', `/v1/runs/${runId}`)).body.counts.queued as number;
    const before = await queued();
    expect(before).toBeGreaterThan(0);
    await page.waitForTimeout(2500);
    expect(await queued()).toBe(before);
    await shot(page, 'run-paused');

    await page.getByRole('button', { name: 'Resume' }).click();
    await page.locator('h1 .status', { hasText: 'completed' }).waitFor({ timeout: 90_000 });
    const failure = page.getByTestId('run-failures').locator('li');
    expect(await failure.count()).toBe(1);
    expect(await failure.textContent()).toMatch(/^broken\.pdf: (corrupt_document|unsupported_media_type) \S/);
    expect(await page.locator('tr[data-document="broken.pdf"]').getAttribute('data-status')).toBe('failed');

    await page.goto(workspaceUrl);
    await page
      .getByTestId('file-input')
      .setInputFiles(many.map((f) => ({ name: `again-${f.name}`, mimeType: f.type, buffer: f.data })));
    await page.getByRole('button', { name: /Add 40 files/ }).click();
    await page.getByRole('button', { name: 'Cancel run' }).click();
    await page.locator('h1 .status', { hasText: 'cancelled' }).waitFor();
    await expect
      .poll(async () => page.locator('tr[data-status="cancelled"]').count(), { timeout: 15_000 })
      .toBeGreaterThan(0);
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
    // Both things the screen shows were asked for at once.
    const api = ada.timeline.slice(from).filter((e) => e.url.includes('/v1/'));
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
    await row.getByRole('button', { name: 'Delete' }).click();
    await row.getByRole('button', { name: 'Delete for good' }).click();
    await row.waitFor({ state: 'detached' });
    const docs = (await inPage(page, 'GET', `/v1/workspaces/${workspaceId}/documents`)).body.documents;
    expect(docs.some((d: { filename: string }) => d.filename === 'memo-00.txt')).toBe(false);
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
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await shot(page, 'keys');

    // The key works for its scopes from a server (here: the test), and only for them.
    const asServer = (p: string) => fetch(serve.url + p, { headers: { authorization: `Bearer ${secret}` } });
    expect((await asServer('/v1/workspaces')).status).toBe(200);
    expect((await asServer(`/v1/runs/run_x`)).status).toBe(403); // no ingest scope

    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByTestId('new-key').count()).toBe(0);
    // Shown once: the list has the prefix only, and nothing the browser received since has the secret.
    const received = ada.responses.length;
    await page.reload();
    const row = page.locator('tr', { hasText: 'reporting job' });
    expect(await row.locator('td').nth(2).textContent()).toBe('search, artifacts');
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Revoke now' }).click();
    await row.locator('.status', { hasText: 'revoked' }).waitFor();
    expect(ada.responses.slice(received).some((r) => r.body.includes(secret))).toBe(false);
    expect((await asServer('/v1/workspaces')).status).toBe(401);
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

  it('signs out on the server: the old session cookie stops working', async () => {
    const cookie = (await ada.context.cookies()).find((c) => c.name === 'docslurp_session')!;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to DocSlurp' }).waitFor();
    const replay = await fetch(`${serve.url}/v1/workspaces`, {
      headers: { cookie: `docslurp_session=${cookie.value}` },
    });
    expect(replay.status).toBe(401);
    expect(((await replay.json()) as { error: { code: string } }).error.code).toBe('session_expired');
  });
});
