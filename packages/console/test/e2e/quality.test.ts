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

/** Per cent of a style's `left` or `width` ("33.3333%"), as a number. */
const pct = (style: string | null, prop: 'left' | 'width') =>
  Number(new RegExp(`${prop}:\\s*([\\d.]+)%`).exec(style ?? '')?.[1]);

describe("an evaluation's results page", () => {
  // Two configurations (one without answers), questions with languages and tags, and one that no
  // document answers: its Hit@1 fails whatever the ranking.
  const SET = [
    {
      q: 'How many days of vacation does an employee receive?',
      answers: ['25 days'],
      expected: ['policy.pdf'],
      language: 'en',
      tags: ['hr'],
    },
    {
      q: 'When are travel expenses paid?',
      answers: ['30 days'],
      expected: ['travel.pdf'],
      language: 'en',
      tags: ['hr', 'money'],
    },
    { q: 'Wo ist der Reset-Knopf?', expected: ['manual.pdf'], language: 'de', tags: ['hardware'] },
    {
      q: 'Which planet has butterscotch skies?',
      answers: ['Mars'],
      expected: ['travel.pdf'],
      language: 'en',
    },
  ];
  let id: string;
  // biome-ignore lint/suspicious/noExplicitAny: the API's JSON, asserted on below.
  let evaluation: any;
  // biome-ignore lint/suspicious/noExplicitAny: the API's JSON, asserted on below.
  let outcomes: any[];

  beforeAll(async () => {
    await page.setViewportSize({ width: WIDTHS[0].width, height: WIDTHS[0].height });
    const set = await api(page, 'POST', `/v1/workspaces/${workspace}/question-sets`, {
      name: 'Mixed',
      questions: SET,
    });
    expect(set.status).toBe(201);
    const created = await api(page, 'POST', '/v1/evaluations', {
      questionSetId: set.body.id,
      configurations: [
        { name: 'top10', search: { mode: 'lexical', topK: 10 }, answers: { mode: 'extractive' } },
        { name: 'top1', search: { mode: 'lexical', topK: 1 }, answers: null },
      ],
    });
    expect(created.status).toBe(202);
    id = created.body.id;
    for (let t = 0; t < 120; t++) {
      evaluation = (await api(page, 'GET', `/v1/evaluations/${id}`)).body;
      if (evaluation.status !== 'queued' && evaluation.status !== 'running') break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(evaluation.status).toBe('completed');
    outcomes = (await api(page, 'GET', `/v1/evaluations/${id}/questions?limit=500`)).body.questions;
    await page.goto(`${url}/workspaces/${workspace}/quality/${id}`);
    await page.getByTestId('metrics').first().waitFor();
  }, 90_000);

  it('draws a chart per metric: a bar per configuration in its colour, with its interval', async () => {
    const legend = page.getByTestId('legend').locator('li');
    expect(await legend.allTextContents()).toEqual(['top10', 'top1']);
    const [a, b] = evaluation.results;
    for (const name of ['hitAt1', 'mrr', 'ndcgAt10']) {
      const rows = page.locator(`[data-testid=metric-chart][data-metric=${name}] [data-testid=chart-bar]`);
      expect(await rows.count(), name).toBe(2);
      const colours = new Set<string>();
      for (const [i, r] of [a, b].entries()) {
        const m = r.metrics[name];
        const row = rows.nth(i);
        expect(await row.getAttribute('data-configuration')).toBe(r.configuration);
        const bar = row.getByTestId('bar');
        expect(pct(await bar.getAttribute('style'), 'width')).toBeCloseTo(m.value * 100, 3);
        colours.add(await bar.evaluate((e) => getComputedStyle(e).backgroundColor));
        const interval = await row.getByTestId('interval').getAttribute('style');
        expect(pct(interval, 'left')).toBeCloseTo(m.low * 100, 3);
        expect(pct(interval, 'width')).toBeCloseTo((m.high - m.low) * 100, 3);
        // The numbers in words, for screen readers: value and interval.
        const low = `${(Math.round(m.low * 1000) / 10).toFixed(1)} %`;
        expect(await row.textContent()).toContain(`95 % interval ${low}`);
      }
      expect(colours.size, `${name}: one colour per configuration`).toBe(2);
    }
    // No question is unanswerable: no chart of dashes, the metric is named as not applying.
    expect(await page.locator('[data-testid=metric-chart][data-metric=unanswerableDeclined]').count()).toBe(
      0,
    );
    expect(await page.getByTestId('uncharted').textContent()).toContain('Unanswerable declined');
  });

  it('shows the latency distribution per configuration with the p50 and p95 marked', async () => {
    // Drawn once every question's outcome is read.
    await page.getByTestId('latency').first().waitFor({ timeout: 10_000 });
    const search = page.locator('[data-testid=latency][data-kind=search]');
    expect(await search.count()).toBe(2);
    // Answers were asked under top10 only.
    const chat = page.locator('[data-testid=latency][data-kind=chat]');
    expect(await chat.count()).toBe(1);
    expect(await chat.getAttribute('data-configuration')).toBe('top10');
    for (const [i, r] of evaluation.results.entries()) {
      const figure = search.nth(i);
      const counts = await figure
        .getByTestId('bin')
        .evaluateAll((bins) => bins.map((b) => Number(b.getAttribute('data-count'))));
      expect(counts.reduce((s: number, n: number) => s + n, 0)).toBe(SET.length);
      expect(await figure.getByTestId('marker-p50').count()).toBe(1);
      expect(await figure.getByTestId('marker-p95').count()).toBe(1);
      expect(await figure.getByTestId('latency-summary').textContent()).toContain(
        `p50 ${Math.round(r.metrics.searchP50Ms.value)} ms`,
      );
    }
  });

  it('shows the main metrics per language and per tag', async () => {
    const tags = page.getByTestId('groups-tags');
    const hr = tags.locator('tr[data-group=hr][data-configuration=top10]');
    expect(await hr.getByTestId('group-questions').textContent()).toBe('2');
    const v = evaluation.results[0].tags.hr.hitAt1.value;
    expect(await hr.locator('td[data-metric=hitAt1]').textContent()).toContain(
      `${(Math.round(v * 1000) / 10).toFixed(1)} %`,
    );
    const languages = page.getByTestId('groups-languages');
    expect(await languages.locator('tbody tr').count()).toBe(4); // de and en, each under two configurations
    expect(
      await languages
        .locator('tr[data-group=en][data-configuration=top1] [data-testid=group-questions]')
        .textContent(),
    ).toBe('3');
  });

  it('filters the questions by outcome and opens one to its passages and answer', async () => {
    const section = page.locator('section[aria-labelledby=configuration-top10]');
    const list = section.getByTestId('evaluation-questions');
    const shownOrdinals = async () =>
      await list
        .getByTestId('question')
        .evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-ordinal'))));
    expect(await shownOrdinals()).toEqual([0, 1, 2, 3]);
    const mine = outcomes.filter((o) => o.configuration === 'top10');
    const failed = mine.filter((o) => o.failed.includes('hitAt1')).map((o) => o.ordinal);
    expect(failed).toContain(3);
    await section.getByRole('combobox', { name: /^Show/ }).selectOption('failed');
    await section.getByRole('combobox', { name: /^Metric/ }).selectOption('hitAt1');
    await expect.poll(shownOrdinals).toEqual(failed);
    expect(await section.getByTestId('questions-count').textContent()).toBe(
      `${failed.length} of 4 questions`,
    );
    await section.getByRole('combobox', { name: /^Show/ }).selectOption('passed');
    await expect
      .poll(shownOrdinals)
      .toEqual(mine.filter((o) => o.passed.includes('hitAt1')).map((o) => o.ordinal));
    await section.getByRole('combobox', { name: /^Show/ }).selectOption('all');
    await expect.poll(shownOrdinals).toEqual([0, 1, 2, 3]);

    const first = mine.find((o) => o.ordinal === 0);
    const toggle = list.getByRole('button', { name: first.q });
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    const details = list.getByTestId('question-details');
    const passages = details.getByTestId('passages').locator('li');
    expect(await passages.count()).toBe(first.retrieved.length);
    expect(await passages.first().textContent()).toContain(first.retrieved[0].filename);
    expect(await passages.first().textContent()).toContain(`score ${first.retrieved[0].score.toFixed(3)}`);
    expect(await details.getByTestId('answer-kind').textContent()).toContain(first.answer.kind);
    expect(await details.getByTestId('answer').textContent()).toContain(
      first.answer.text.trim().slice(0, 40),
    );
    // Without answers, an opened question says so.
    const other = page
      .locator('section[aria-labelledby=configuration-top1]')
      .getByTestId('evaluation-questions');
    await other.getByRole('button', { name: first.q }).click();
    expect(await other.getByTestId('question-details').textContent()).toContain('No answer was asked for.');

    for (const w of WIDTHS) {
      await page.setViewportSize({ width: w.width, height: w.height });
      expect(await axeFindings(page), `results at ${w.width} px`).toEqual([]);
      expect(await overflow(page), `results at ${w.width} px`).toBeLessThanOrEqual(0);
    }
  });
});
