import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../../../service/test/support/fixtures.js';
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
 * Issue 43, the document and run views: a citation is one line that jumps to its highlight; PDF
 * pages zoom (buttons, a pinch) and fit their text column to the screen; a text's tables and code
 * blocks are no landmarks of one name, and pdf.js leaves nothing outside a landmark; a cancelled run
 * whose documents were processed again keeps its name and counts and links to the run that did it.
 */
const ADA = { email: 'ada@example.com', password: 'correct horse battery staple' };
let c: ConsoleUnderTest;
let page: Page;
let url: string;
const ids = {} as { workspace: string; pdf: string; tables: string };

const PAGES = [
  'Employee handbook. Welcome to the company.',
  'Offices. The building has four floors of offices and two meeting rooms on each of them.',
  'Travel expenses. Reimbursement of travel expenses is paid within 30 days after the receipts are submitted to the finance team.',
];
const wide = (what: string) => `${what} ${'--option value '.repeat(14)}`;
const TABLES = [
  '# Settings',
  '',
  '| Setting | Default |',
  '| --- | --- |',
  '| SERVER_PORT | 8080 |',
  '',
  '```',
  wide('docslurp serve'),
  '```',
  '',
  '## People',
  '',
  '| Name | Role |',
  '| --- | --- |',
  '| Ada | owner |',
  '',
  '```',
  wide('docslurp keys create'),
  '```',
  '',
].join('\n');

beforeAll(async () => {
  // One document a batch: an upload cancelled at once leaves most of its documents cancelled.
  c = await startConsole(ADA, { WORKER_BATCH_MAX_BYTES: '1' });
  page = c.page;
  url = c.serve.url;
  await signIn(page, url, ADA);
  const up = await upload(
    page,
    [
      { name: 'handbook.pdf', data: makePdf(PAGES), type: 'application/pdf' },
      { name: 'settings.md', data: TABLES, type: 'text/markdown' },
    ],
    { workspaceName: 'Views' },
  );
  ids.workspace = up.body.workspace.id;
  await waitForRun(page, up.body.run.id);
  const doc = (name: string) => up.body.documents.find((d: { filename: string }) => d.filename === name).id;
  ids.pdf = doc('handbook.pdf');
  ids.tables = doc('settings.md');
}, 180_000);

afterAll(async () => {
  await c?.close();
});

const setWidth = (w: (typeof WIDTHS)[number]) => page.setViewportSize({ width: w.width, height: w.height });

/** Whether the highlighted passage is on screen: inside the PDF's box and inside the window. */
const citedOnScreen = () =>
  page.evaluate(() => {
    const box = document.querySelector('[data-testid=pdf-view]')?.getBoundingClientRect();
    const cited = document.querySelector('.pdf-page[data-page="3"] .cited')?.getBoundingClientRect();
    if (!box || !cited) return false;
    return (
      cited.top >= box.top &&
      cited.bottom <= box.bottom &&
      cited.top >= 0 &&
      cited.bottom <= window.innerHeight
    );
  });

describe('a citation opened from search', () => {
  for (const w of WIDTHS) {
    it(`is one line that jumps and scrolls to the highlight, at ${w.width} px`, async () => {
      await setWidth(w);
      await page.goto(`${url}/workspaces/${ids.workspace}/search?q=reimbursement+receipts`);
      const first = page.getByTestId('search-results').locator('.result').first();
      await first.waitFor();
      expect(await first.locator('.citation-link').textContent()).toBe('handbook.pdf, page 3');
      await first.locator('.citation-link').click();
      await page.locator('.pdf-page[data-page="3"] .cited').first().waitFor();
      // Opened scrolled to the highlight, whatever is above the viewer.
      await expect.poll(citedOnScreen).toBe(true);
      // One line that says where the passage is, not the passage a second time.
      const line = page.getByTestId('cited-passage');
      expect(await line.textContent()).toBe('Go to the cited passage on page 3');
      const height = await line.evaluate((e) => e.getBoundingClientRect().height);
      const lineHeight = await line
        .locator('button')
        .evaluate((e) => Number.parseFloat(getComputedStyle(e).lineHeight) || 20);
      expect(height).toBeLessThan(lineHeight * 2);

      // Scrolled away (the box to its first page, the window to the top): the line brings it back.
      await page.evaluate(() => {
        document.querySelector('[data-testid=pdf-view]')!.scrollTop = 0;
        window.scrollTo(0, 0);
      });
      expect(await citedOnScreen()).toBe(false);
      await line.getByRole('button').click();
      await expect.poll(citedOnScreen).toBe(true);
    });
  }

  it('jumps to a marked passage of a text too', async () => {
    await setWidth(WIDTHS[1]);
    const found = await api(page, 'POST', '/v1/search', { workspaceId: ids.workspace, q: 'Ada owner' });
    const hit = found.body.results.find(
      (r: { citation: { documentId: string } }) => r.citation.documentId === ids.tables,
    );
    await page.goto(
      `${url}/documents/${ids.tables}?start=${hit.citation.charStart}&end=${hit.citation.charEnd}`,
    );
    const mark = page.getByTestId('text-view').locator('mark').first();
    await mark.waitFor();
    const markOnScreen = () =>
      mark.evaluate((m) => {
        const r = m.getBoundingClientRect();
        const box = document.querySelector('[data-testid=text-view]')!.getBoundingClientRect();
        return r.top >= box.top && r.top < box.bottom && r.top >= 0 && r.bottom <= window.innerHeight;
      });
    await expect.poll(markOnScreen).toBe(true);
    await page.evaluate(() => {
      document.querySelector('[data-testid=text-view]')!.scrollTop = 0;
      window.scrollTo(0, 0);
    });
    await page.getByTestId('cited-passage').getByRole('button').click();
    await expect.poll(markOnScreen).toBe(true);
  });
});

/** Page 1's shown width, the scale it was last rendered at, and the zoom the viewer states. */
const pageOne = () =>
  page.evaluate(() => {
    const slot = document.querySelector<HTMLElement>('.pdf-page[data-page="1"]')!;
    const canvas = slot.querySelector('canvas');
    return {
      width: slot.getBoundingClientRect().width,
      canvas: canvas ? canvas.getBoundingClientRect().width : 0,
      rendered: slot.dataset.rendered === 'true' ? Number(slot.dataset.scale) : undefined,
      said: document.querySelector('[data-testid=pdf-scale]')!.textContent,
    };
  });

/** Where page 1's text column lies against the box: its left and right edge, and the box's. */
const column = () =>
  page.evaluate(() => {
    const box = document.querySelector('[data-testid=pdf-view]')!.getBoundingClientRect();
    const spans = Array.from(document.querySelectorAll('.pdf-page[data-page="1"] .textLayer span'))
      .map((s) => s.getBoundingClientRect())
      .filter((r) => r.width > 0);
    return {
      left: Math.min(...spans.map((r) => r.left)),
      right: Math.max(...spans.map((r) => r.right)),
      boxLeft: box.left,
      boxRight: box.right,
    };
  });

describe('PDF pages on a phone', () => {
  const rendered = (scale: number) =>
    expect.poll(async () => (await pageOne()).rendered, { timeout: 20_000 }).toBeCloseTo(scale, 5);

  it('zoom in and out with the buttons, rendered again at the new scale', async () => {
    await setWidth(WIDTHS[1]);
    await page.goto(`${url}/documents/${ids.pdf}?view=pdf`);
    await page.locator('.pdf-page[data-page="1"][data-rendered="true"]').waitFor();
    const at = await pageOne();
    // Opened as wide as the phone: 612 points on about 340 px.
    expect(at.width).toBeLessThan(390);
    expect(at.said).toBe(`${Math.round((at.rendered ?? 0) * 100)} %`);
    const start = at.rendered!;

    await page.getByRole('button', { name: 'Zoom in' }).click();
    await rendered(start * 1.25);
    const bigger = await pageOne();
    expect(bigger.width).toBeCloseTo(at.width * 1.25, 0);
    // The canvas was drawn for the new size, not stretched: as wide as its page.
    expect(bigger.canvas).toBeCloseTo(bigger.width, 0);
    expect(bigger.said).toBe(`${Math.round(start * 125)} %`);
    // Wider than the box now: it scrolls sideways.
    expect(await page.getByTestId('pdf-view').evaluate((e) => e.scrollWidth > e.clientWidth)).toBe(true);

    await page.getByRole('button', { name: 'Zoom out' }).click();
    await page.getByRole('button', { name: 'Zoom out' }).click();
    await rendered(start / 1.25);
    expect((await pageOne()).width).toBeCloseTo(at.width / 1.25, 0);
  });

  it('fit the text column to the width of the screen, margins left out', async () => {
    await setWidth(WIDTHS[1]);
    await page.goto(`${url}/documents/${ids.pdf}?view=pdf`);
    await page.locator('.pdf-page[data-page="1"][data-rendered="true"]').waitFor();
    const start = (await pageOne()).rendered!;
    await page.getByRole('button', { name: 'Fit text to width' }).click();
    await expect
      .poll(async () => (await pageOne()).rendered ?? start, { timeout: 20_000 })
      .toBeGreaterThan(start);
    await page.locator('.pdf-page[data-page="1"][data-rendered="true"]').waitFor();
    const col = await column();
    // The whole column is in the box, from its left edge to its right, and fills most of it.
    expect(col.left).toBeGreaterThanOrEqual(col.boxLeft - 1);
    expect(col.right).toBeLessThanOrEqual(col.boxRight + 1);
    expect(col.right - col.left).toBeGreaterThan((col.boxRight - col.boxLeft) * 0.85);
    // Fit page goes back to the whole page in the box.
    await page.getByRole('button', { name: 'Fit page' }).click();
    await expect.poll(async () => (await pageOne()).rendered, { timeout: 20_000 }).toBeCloseTo(start, 5);
  });

  it('zoom with a pinch of two fingers', async () => {
    await setWidth(WIDTHS[1]);
    await page.goto(`${url}/documents/${ids.pdf}?view=pdf`);
    await page.locator('.pdf-page[data-page="1"][data-rendered="true"]').waitFor();
    const start = (await pageOne()).rendered!;
    const box = (await page.getByTestId('pdf-view').boundingBox())!;
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 2 });
    const y = box.y + 200;
    const mid = box.x + box.width / 2;
    const touch = (type: 'touchStart' | 'touchMove' | 'touchEnd', spread: number) =>
      cdp.send('Input.dispatchTouchEvent', {
        type,
        touchPoints:
          type === 'touchEnd'
            ? []
            : [
                { x: mid - spread, y, id: 1 },
                { x: mid + spread, y, id: 2 },
              ],
      });
    // The fingers move from 40 px apart to 80: twice the scale.
    await touch('touchStart', 20);
    for (const spread of [25, 30, 35, 40]) await touch('touchMove', spread);
    await touch('touchEnd', 40);
    await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: false });
    await rendered(start * 2);
  });
});

describe('moderate axe findings', () => {
  const LANDMARKS = ['landmark-unique', 'region'];
  for (const w of WIDTHS) {
    it(`has no repeated landmark names or content outside landmarks at ${w.width} px`, async () => {
      await setWidth(w);
      await page.goto(`${url}/documents/${ids.tables}`);
      await page.getByTestId('text-view').locator('pre.md-code').nth(1).waitFor();
      // Both tables and both code blocks scroll sideways and are reachable by keyboard, each named.
      await expect.poll(() => page.locator('pre.md-code[tabindex="0"]').count()).toBe(2);
      const tables = page.getByTestId('text-view').locator('.table-scroll');
      expect(await tables.evaluateAll((t) => t.map((e) => e.getAttribute('aria-label')))).toEqual([
        'Table: Setting, Default',
        'Table: Name, Role',
      ]);
      const text = (await axeFindings(page, ['moderate'])).filter((f) => LANDMARKS.includes(f.id));
      expect(text).toEqual([]);

      await page.goto(`${url}/documents/${ids.pdf}?view=pdf&page=2`);
      await page.locator('.pdf-page[data-page="2"][data-rendered="true"]').waitFor();
      // pdf.js measured the text with a canvas of its own, added to the page's body: hidden.
      expect(await page.locator('canvas.hiddenCanvasElement').count()).toBeGreaterThan(0);
      const pdf = (await axeFindings(page, ['moderate'])).filter((f) => LANDMARKS.includes(f.id));
      expect(pdf).toEqual([]);
      expect(await axeFindings(page)).toEqual([]);
    });
  }
});

describe('a cancelled run processed again', () => {
  it('keeps its name and counts, and links to the run that processed its documents', async () => {
    await setWidth(WIDTHS[0]);
    const files = Array.from({ length: 30 }, (_, i) => ({
      name: `memo-${String(i).padStart(2, '0')}.txt`,
      data: `Memo ${i}.`,
      type: 'text/plain',
    }));
    const up = await upload(page, files, { workspaceId: ids.workspace });
    const runId = up.body.run.id as string;
    await api(page, 'POST', `/v1/runs/${runId}/cancel`);
    const settled = await waitForRun(page, runId);
    const cancelled = settled.counts.cancelled as number;
    expect(cancelled).toBeGreaterThan(0);
    const readyBefore = settled.counts.ready as number;

    await page.goto(`${url}/runs/${runId}`);
    const again = page.getByRole('button', {
      name:
        cancelled === 1
          ? 'Process the cancelled document again'
          : `Process the ${cancelled} cancelled documents again`,
    });
    await again.click();
    await page.waitForURL((u) => u.pathname.startsWith('/runs/') && !u.pathname.endsWith(runId));
    const later = /\/runs\/(run_[\w-]+)/.exec(page.url())![1]!;
    await waitForRun(page, later);

    await page.goto(`${url}/runs/${runId}`);
    await page.getByTestId('run-reprocessed').waitFor();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Upload of 30 files cancelled');
    const counts = await page.getByTestId('run-counts').locator('li').allTextContents();
    expect(counts.map((t) => t.trim())).toEqual(
      expect.arrayContaining([`${cancelled} cancelled`, ...(readyBefore ? [`${readyBefore} ready`] : [])]),
    );
    expect(await page.getByTestId('run-progress').textContent()).toContain(
      `${readyBefore} of 30 documents processed`,
    );
    expect(await page.getByTestId('run-reprocessed').textContent()).toBe(
      `Processed again in ${later} (${cancelled === 1 ? '1 of its documents' : `${cancelled} of its documents`})`,
    );
    // Nothing of it is left to process again: the documents are in the later run.
    expect(await page.getByRole('button', { name: /cancelled documents? again/ }).count()).toBe(0);
    await page.getByTestId('run-reprocessed').getByRole('link', { name: later }).click();
    await page.waitForURL(`${url}/runs/${later}`);
    await page.getByRole('heading', { level: 1, name: /processed again/ }).waitFor();
  });
});
