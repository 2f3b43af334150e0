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
 * Issue 40 in the console: an owner adds a question set to a workspace from a file (a bad file shows
 * its problems by line), evaluates it with extractive answers, watches it complete, and opens it:
 * its metrics are those the API gives, and its questions say which checks passed.
 */
const OWNER = { email: 'quinn@example.com', password: 'correct horse battery staple' };

let c: ConsoleUnderTest;
let page: Page;
let url: string;
let workspace: string;

const overflow = (p: Page) =>
  p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

const QUESTIONS = [
  {
    q: 'How many days of vacation does an employee receive?',
    answers: ['25 days'],
    expected: ['policy.pdf'],
  },
  { q: 'When are travel expenses paid?', answers: ['30 days'], expected: ['travel.pdf'] },
  { q: 'Where is the reset button?', expected: ['manual.pdf'], tags: ['hardware'] },
]
  .map((q) => JSON.stringify(q))
  .join('\n');

beforeAll(async () => {
  c = await startConsole(OWNER);
  page = c.page;
  url = c.serve.url;
  await signIn(page, url, OWNER);
  const up = await upload(
    page,
    [
      { name: 'policy.pdf', data: makePdf(['Every employee receives 25 days of vacation a year.']) },
      { name: 'travel.pdf', data: makePdf(['Travel expenses are paid within 30 days of the trip.']) },
      { name: 'manual.pdf', data: makePdf(['The reset button is on the back, under the lid.']) },
    ],
    { workspaceName: 'Handbook' },
  );
  workspace = up.body.workspace.id;
  await waitForRun(page, up.body.run.id);
}, 180_000);

afterAll(async () => {
  await c?.close();
});

describe('the Quality tab', () => {
  it('shows the problems of a refused question file by line', async () => {
    await page.goto(`${url}/workspaces/${workspace}`);
    await page.getByRole('link', { name: 'Quality' }).click();
    await page.getByRole('heading', { name: 'Question sets' }).waitFor();
    await page.getByLabel('Question file').setInputFiles([
      {
        name: 'bad.jsonl',
        mimeType: 'application/x-ndjson',
        buffer: Buffer.from('{"q": "Fine?"}\n{"q": "Misspelt", "answer": ["x"]}\n'),
      },
    ]);
    await page.getByRole('button', { name: 'Upload questions' }).click();
    const problems = page.getByTestId('question-problems');
    await problems.waitFor();
    expect(await problems.textContent()).toMatch(/line 2: .*answer/);
    expect((await api(page, 'GET', `/v1/workspaces/${workspace}/question-sets`)).body.questionSets).toEqual(
      [],
    );
  });

  it('uploads a set, evaluates it with answers and opens the completed evaluation', async () => {
    await page
      .getByLabel('Question file')
      .setInputFiles([
        { name: 'support.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(QUESTIONS) },
      ]);
    await page.getByLabel('Name (optional').fill('Support questions');
    await page.getByRole('button', { name: 'Upload questions' }).click();
    const row = page.locator('[data-testid=question-sets] tr[data-question-set="Support questions"]');
    await row.waitFor();
    expect(await row.textContent()).toContain('3');

    await page.getByRole('button', { name: 'Evaluate Support questions' }).click();
    await page.getByRole('combobox', { name: /^Search/ }).selectOption('lexical');
    await page.getByRole('combobox', { name: /^Answers/ }).selectOption('extractive');
    await page.getByRole('button', { name: 'Start evaluation' }).click();
    await page.getByText('The evaluation of Support questions is queued.').waitFor();

    const evaluations = page.getByTestId('evaluations');
    await evaluations.locator('.status-ok', { hasText: 'completed' }).waitFor({ timeout: 60_000 });
    expect(await evaluations.getByTestId('evaluation-progress').first().textContent()).toBe(
      '3 of 3 questions',
    );
    const listed = (await api(page, 'GET', `/v1/workspaces/${workspace}/evaluations`)).body.evaluations;
    expect(listed).toHaveLength(1);
    const id: string = listed[0].id;

    await evaluations.getByRole('link', { name: 'Support questions' }).click();
    const metrics = page.getByTestId('metrics');
    await metrics.waitFor();
    const evaluation = (await api(page, 'GET', `/v1/evaluations/${id}`)).body;
    expect(evaluation.status).toBe('completed');
    const hit = evaluation.results[0].metrics.hitAt1;
    expect(hit.n).toBe(3);
    const shown = await metrics.locator('tr[data-metric=hitAt1] [data-testid=metric-value]').textContent();
    expect(shown).toBe(`${(Math.round(hit.value * 1000) / 10).toFixed(1)} %`);
    // Answers were asked: the answer metric has questions; unanswerable has none and shows a dash.
    expect(evaluation.results[0].metrics.chatContains).not.toBeNull();
    expect(
      await metrics.locator('tr[data-metric=unanswerableDeclined] [data-testid=metric-value]').textContent(),
    ).toBe('—');
    const questions = page.getByTestId('evaluation-questions');
    await questions.locator('tbody tr').first().waitFor();
    expect(await questions.locator('tbody tr').count()).toBe(3);
    expect(await questions.textContent()).toContain('policy.pdf');
    expect(await questions.textContent()).toContain('Hit@1');

    for (const w of WIDTHS) {
      await page.setViewportSize({ width: w.width, height: w.height });
      expect(await axeFindings(page), `evaluation at ${w.width} px`).toEqual([]);
      expect(await overflow(page), `evaluation at ${w.width} px`).toBeLessThanOrEqual(0);
    }
    await page.goto(`${url}/workspaces/${workspace}/quality`);
    await page.getByTestId('evaluations').waitFor();
    await page.getByRole('button', { name: 'Evaluate Support questions' }).click();
    for (const w of WIDTHS) {
      await page.setViewportSize({ width: w.width, height: w.height });
      expect(await axeFindings(page), `quality at ${w.width} px`).toEqual([]);
      expect(await overflow(page), `quality at ${w.width} px`).toBeLessThanOrEqual(0);
    }
    await page.setViewportSize({ width: WIDTHS[0].width, height: WIDTHS[0].height });
  });

  it('compares a second evaluation with the first', async () => {
    await page.getByRole('combobox', { name: /^Answers/ }).selectOption('none');
    await page.getByRole('button', { name: 'Start evaluation' }).click();
    const evaluations = page.getByTestId('evaluations');
    await expect
      .poll(() => evaluations.locator('.status-ok', { hasText: 'completed' }).count(), { timeout: 60_000 })
      .toBe(2);
    const [second, first] = (await api(page, 'GET', `/v1/workspaces/${workspace}/evaluations`)).body
      .evaluations;
    await page.goto(`${url}/workspaces/${workspace}/quality/${second.id}`);
    await page.getByRole('combobox', { name: /^Baseline/ }).selectOption(first.id);
    await page.getByRole('button', { name: 'Compare', exact: true }).click();
    const table = page.getByTestId('comparison');
    await table.waitFor();
    const compared = (await api(page, 'GET', `/v1/evaluations/${first.id}/compare/${second.id}`)).body;
    const d = compared.configurations[0].metrics.hitAt1.difference.value;
    const shown = `${d > 0 ? '+' : ''}${(Math.round(d * 1000) / 10).toFixed(1)} %`;
    expect(await table.locator('tr[data-metric=hitAt1] [data-testid=difference]').textContent()).toContain(
      shown,
    );
    // Without answers the answer metrics have no questions in the second: a dash.
    expect(await table.locator('tr[data-metric=chatContains] [data-testid=difference]').textContent()).toBe(
      '—',
    );
    for (const w of WIDTHS) {
      await page.setViewportSize({ width: w.width, height: w.height });
      expect(await axeFindings(page), `comparison at ${w.width} px`).toEqual([]);
      expect(await overflow(page), `comparison at ${w.width} px`).toBeLessThanOrEqual(0);
    }
  });
});
