import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  axeFindings,
  type ConsoleUnderTest,
  signIn,
  startConsole,
  upload,
  WIDTHS,
  waitForRun,
} from '../support/console.js';

/**
 * The overview's quotas card (issue 43) in a real Chromium against `docslurp serve` with
 * ACCOUNT_MAX_* set: a meter with its words for each limited quota, "no limit" for the others, and
 * the page still passes axe-core at both widths.
 */
const OWNER = { email: 'quinn@example.com', password: 'a quota-minded operator' };
let c: ConsoleUnderTest;
let page: Page;

beforeAll(async () => {
  c = await startConsole(OWNER, { ACCOUNT_MAX_DOCUMENTS: '4', ACCOUNT_MAX_QUESTIONS_PER_DAY: '10' });
  page = c.page;
  await signIn(page, c.serve.url, OWNER);
}, 180_000);
afterAll(() => c?.close());

describe('the overview of an account with quotas', () => {
  it('shows use against each quota as a meter with text, and no limit where there is none', async () => {
    const files = ['one', 'two', 'three'].map((n) => ({
      name: `${n}.md`,
      data: `# ${n}\n\nSome words.\n`,
      type: 'text/markdown',
    }));
    const up = await upload(page, files);
    expect(up.status).toBe(202);
    await waitForRun(page, up.body.run.id);
    await page.goto(`${c.serve.url}/`);
    const card = page.getByTestId('quotas');
    await card.waitFor();
    const documents = card.locator('[data-quota="documents"]');
    expect(await documents.textContent()).toContain('3 of 4 documents used');
    const meter = page.getByRole('meter', { name: 'Documents: use of the quota' });
    expect(await meter.evaluate((m: HTMLMeterElement) => [m.value, m.max])).toEqual([3, 4]);
    expect(await card.locator('[data-quota="questionsPerDay"]').textContent()).toContain(
      '0 of 10 questions used',
    );
    expect(await card.locator('[data-quota="storedBytes"]').textContent()).toContain('no limit');
    expect(await card.locator('[data-quota="uploadsPerDay"]').getByRole('meter').count()).toBe(0);
    for (const w of WIDTHS) {
      await page.setViewportSize({ width: w.width, height: w.height });
      expect(await axeFindings(page), `overview at ${w.width} px`).toEqual([]);
    }
  });
});
