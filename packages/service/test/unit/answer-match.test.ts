import { describe, expect, it } from 'vitest';
import {
  answerMatcher,
  compilePattern,
  containsPassage,
  foldForComparison,
  readableText,
  squadNormalize,
} from '../../src/evaluation/answer-match.js';
import { checkQuestion } from '../../src/evaluation/metrics.js';
import {
  checkQuestions,
  isProblems,
  type Question,
  readQuestionFile,
  storedQuestion,
} from '../../src/evaluation/questions.js';

const spec = (s: Partial<Parameters<typeof answerMatcher>[0]>) =>
  answerMatcher({ answers: [], patterns: [], match: 'folded', ...s });

describe('answer matching', () => {
  it('compares answers after NFKC, case and white-space folding', () => {
    expect(foldForComparison('  Two\u00a0 YEARS\n')).toBe('two years');
    const twoYears = spec({ answers: ['two years'] });
    // Full-width letters fold to their ASCII forms (NFKC).
    expect(twoYears('The warranty lasts ＴＷＯ years.')).toBe(true);
    expect(spec({ answers: ['24 monate'] })('Garantie: 24\nMonate')).toBe(true);
    expect(spec({ answers: ['two years', '24 months'] })('The warranty lasts one year.')).toBe(false);
    expect(spec({})('anything')).toBe(false);
  });

  it('reads a text as people do: markup and citation markers do not decide', () => {
    expect(readableText('Run `git commit \\-\\-amend` [1], see [the manual](https://x.example/m).')).toBe(
      'Run git commit --amend , see the manual.',
    );
    const amend = spec({ answers: ['git commit --amend'] });
    expect(amend('Use `git commit` **\\-\\-amend** [2].')).toBe(true);
    expect(amend('Use `git commit --all` [2].')).toBe(false);
    expect(containsPassage('It lasts **two** years.', 'lasts two YEARS')).toBe(true);
  });

  it("compares SQuAD's way when asked: punctuation and articles dropped, whole words only", () => {
    expect(squadNormalize('The Denver Broncos, in 2016!')).toBe('denver broncos in 2016');
    const squad = spec({ answers: ['the Denver Broncos'], match: 'squad' });
    expect(squad('It was Denver Broncos.')).toBe(true);
    // Whole words: "1990" is not in "1990s", though a folded comparison finds it.
    expect(spec({ answers: ['1990'], match: 'squad' })('in the 1990s')).toBe(false);
    expect(spec({ answers: ['1990'] })('in the 1990s')).toBe(true);
    // A citation marker's number is not an answer.
    expect(spec({ answers: ['1'], match: 'squad' })('They won [1].')).toBe(false);
  });

  it('matches patterns ignoring case, escapes keeping their meaning', () => {
    expect(spec({ patterns: ['defaults? to 90 days'] })('Defaults to 90 DAYS.')).toBe(true);
    expect(spec({ patterns: ['--cached|--staged'] })('use `--staged`')).toBe(true);
    // \S and \W are not lowered into \s and \w.
    expect(spec({ patterns: ['172\\.16\\.x\\.x\\W+172\\.31\\.x\\.x'] })('172.16.x.x – 172.31.x.x')).toBe(
      true,
    );
    expect(spec({ patterns: ['Anschlu\\S* wird'] })('ANSCHLUSS wird')).toBe(true);
    expect(spec({ patterns: ['Anschlu\\S* wird'] })('Anschlu wird')).toBe(true);
    expect(spec({ patterns: ['Anschlu\\S+ wird'] })('Anschlu wird')).toBe(false);
    expect(spec({ patterns: ['\\bip addr\\b'] })('ip address')).toBe(false);
  });

  it('takes counted repetitions beyond the limit of 16 of the engine, with their exact bounds', () => {
    const gap = spec({ patterns: ['AIX[^.]{0,40}PowerPC'] });
    expect(gap(`AIX${'y'.repeat(40)}powerpc`)).toBe(true);
    expect(gap(`AIX${'y'.repeat(41)}powerpc`)).toBe(false);
    expect(gap('AIX. powerpc')).toBe(false);
    const exactly = spec({ patterns: ['^x{20}$'] });
    expect(exactly('x'.repeat(20))).toBe(true);
    expect(exactly('x'.repeat(19))).toBe(false);
    expect(exactly('x'.repeat(21))).toBe(false);
    const atLeast = spec({ patterns: ['^(?:ab){17,}$'] });
    expect(atLeast('ab'.repeat(17))).toBe(true);
    expect(atLeast('ab'.repeat(40))).toBe(true);
    expect(atLeast('ab'.repeat(16))).toBe(false);
    expect(spec({ patterns: ['^[A-Z]{2,18}$'] })('ABCDEFGHIJKLMNOPQR')).toBe(true);
    expect(compilePattern('a{0,5000}')).toMatch(/more than 1000/);
  });

  it('runs patterns in linear time and refuses those that cannot be', () => {
    const catastrophic = compilePattern('^(a|a)+$');
    expect(catastrophic).toBeInstanceOf(RegExp);
    const hostile = `${'a'.repeat(100_000)}b`;
    // With the backtracking engine the first of these alone would not finish in a lifetime: the
    // test's own time limit is the check, no clock is read here.
    expect(spec({ patterns: ['^(a|a)+$', '(x+x+)+y', '([^.]{0,40})*z'] })(hostile)).toBe(false);
    // Reading the text is linear too: link-like and escape-like runs of markup.
    for (const text of [
      '['.repeat(100_000),
      '[a]('.repeat(50_000),
      '\\'.repeat(100_000),
      '`*'.repeat(50_000),
    ])
      expect(spec({ answers: ['zz'] })(text)).toBe(false);
    expect(compilePattern('(a)\\1')).toMatch(/linear time/);
    expect(compilePattern('foo(?=bar)')).toMatch(/linear time/);
    expect(compilePattern('a(')).toMatch(/^is not a regular expression/);
  });

  it('refuses a bad pattern in a set, naming its line', async () => {
    const result = await readQuestionFile(
      'jsonl',
      [
        JSON.stringify({ q: 'fine', patterns: ['ok|fine'] }),
        JSON.stringify({ q: 'refused', patterns: ['(a)\\1'] }),
        JSON.stringify({ q: 'wrong mode', answers: ['x'], match: 'exact' }),
      ].join('\n'),
    );
    expect(isProblems(result)).toBe(true);
    expect(result).toEqual([
      { line: 2, message: expect.stringContaining('patterns.0 cannot be matched in linear time') },
      { line: 3, message: expect.stringContaining('match') },
    ]);
    const unanswerable = await checkQuestions([{ q: 'x', unanswerable: true, patterns: ['y'] }]);
    expect(unanswerable).toEqual([{ line: 1, message: expect.stringContaining('no answers, patterns') }]);
  });

  it('takes one whole pattern per CSV cell, "|" included', async () => {
    const result = (await readQuestionFile(
      'csv',
      'q,pattern,match,answers\nWhich option?,--cached|--staged,,\nWho won?,,squad,Denver Broncos\n',
    )) as Question[];
    expect(result.map((q) => [q.patterns, q.match, q.answers])).toEqual([
      [['--cached|--staged'], 'folded', []],
      [[], 'squad', ['Denver Broncos']],
    ]);
  });
});

describe('checks that use the matching', () => {
  const question = (q: Partial<Question>): Question => storedQuestion({ q: 'a question', ...q });
  const passage = (documentId: string, text: string, page: number | null = null) => ({
    documentId,
    filename: `${documentId}.html`,
    page,
    text,
    score: 1,
  });

  it('counts answer recall, chat and citations by pattern, and false declines for pattern-only questions', () => {
    const q = question({ patterns: ['90 days'] });
    const checks = checkQuestion({
      question: q,
      retrieved: [passage('a', 'nothing'), passage('b', 'It keeps **90 days** of history')],
      searchMs: 1,
      answer: {
        text: 'About 90 days [1].',
        declined: false,
        citations: [{ n: 1, documentId: 'b', filename: 'b.html', page: null, text: 'keeps 90 days' }],
      },
      chatMs: 1,
    });
    expect(checks).toMatchObject({
      answerRecallAt5: 1,
      chatContains: 1,
      citedContains: 1,
      falseDecline: 0,
      citedExpected: null,
    });
    const declined = checkQuestion({
      question: q,
      retrieved: [],
      searchMs: 1,
      answer: { text: 'No answer.', declined: true, citations: [] },
    });
    expect(declined.falseDecline).toBe(1);
  });

  it('checks that the answer cites what is expected, and recall of the expected within 100', () => {
    const q = question({
      expected: [{ document: 'b.html' }, { document: 'c.html' }, { document: 'z.html' }],
    });
    const retrieved = [
      passage('a', ''),
      ...Array.from({ length: 99 }, () => passage('b', '')),
      passage('c', ''),
    ];
    const cites = (documentId: string) => ({
      text: 'x [1]',
      declined: false,
      citations: [{ n: 1, documentId, filename: `${documentId}.html`, page: null, text: '' }],
    });
    const right = checkQuestion({ question: q, retrieved, searchMs: 1, answer: cites('c') });
    // c is the 101st passage: of three expected documents only b is within the first 100.
    expect(right.recallAt100).toBeCloseTo(1 / 3);
    expect(right.citedExpected).toBe(1);
    expect(checkQuestion({ question: q, retrieved, searchMs: 1, answer: cites('a') }).citedExpected).toBe(0);
  });
});
