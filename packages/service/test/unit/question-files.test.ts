import { describe, expect, it } from 'vitest';
import {
  checkQuestions,
  isProblems,
  QUESTION_LIMITS,
  questionFormatOf,
  readQuestionFile,
} from '../../src/evaluation/questions.js';

describe('question files (issue 40)', () => {
  it('reads JSONL, filling in what a line leaves out, with documents, pages and passages expected', async () => {
    const file = [
      '{"q": "How long is the warranty?", "answers": ["two years"], "expected": ["handbook.pdf"]}',
      '',
      '{"q": "Where is the reset button?", "expected": [{"document": "manual.pdf", "page": 4}, {"passage": "press and hold"}], "tags": ["hardware"], "language": "en", "history": [{"role": "user", "content": "Which manual covers the router?"}]}',
      '{"q": "Who won the 1998 World Cup?", "unanswerable": true}',
    ].join('\n');
    expect(await readQuestionFile('jsonl', file)).toEqual([
      {
        q: 'How long is the warranty?',
        answers: ['two years'],
        patterns: [],
        match: 'folded',
        expected: [{ document: 'handbook.pdf' }],
        unanswerable: false,
        language: null,
        tags: [],
        history: [],
      },
      {
        q: 'Where is the reset button?',
        answers: [],
        patterns: [],
        match: 'folded',
        expected: [{ document: 'manual.pdf', page: 4 }, { passage: 'press and hold' }],
        unanswerable: false,
        language: 'en',
        tags: ['hardware'],
        history: [{ role: 'user', content: 'Which manual covers the router?' }],
      },
      {
        q: 'Who won the 1998 World Cup?',
        answers: [],
        patterns: [],
        match: 'folded',
        expected: [],
        unanswerable: true,
        language: null,
        tags: [],
        history: [],
      },
    ]);
  });

  it('names every bad line of a file, by its line number, and keeps none of the good ones', async () => {
    const file = [
      '{"q": "fine"}',
      '{"q": ""}',
      'not json at all',
      '{"q": "x", "answer": ["typo in the field name"]}',
      '{"q": "x", "expected": [{"page": 3}]}',
      '{"q": "x", "unanswerable": true, "answers": ["but an answer"]}',
      '{"q": "x", "language": "English"}',
    ].join('\n');
    const result = await readQuestionFile('jsonl', file);
    expect(isProblems(result)).toBe(true);
    // A line that is not JSON is said first: the rest cannot be checked until the file reads.
    expect(result).toEqual([{ line: 3, message: expect.stringContaining('not JSON') }]);

    const readable = file.replace('not json at all\n', '');
    expect(await readQuestionFile('jsonl', readable)).toEqual([
      { line: 2, message: 'q is empty' },
      { line: 3, message: 'unknown field "answer"' },
      {
        line: 4,
        message: expect.stringContaining('expected.0: an expected item is a document id or filename'),
      },
      { line: 5, message: 'an unanswerable question has no answers, patterns or expected documents' },
      { line: 6, message: expect.stringContaining('is not a language code') },
    ]);
  });

  it('reads CSV with a header, several values a cell separated by "|", and lines counted through quoted line breaks', async () => {
    const file = [
      'q,answers,expected,page,tags,unanswerable',
      '"How long is the warranty?","two years|24 months",handbook.pdf,3,warranty|terms,',
      '"A question',
      'over two lines",,,,,no',
      'Is there a moon base?,,,,,yes',
      'Bad page,,handbook.pdf,three,,',
    ].join('\r\n');
    expect(await readQuestionFile('csv', file)).toEqual([
      { line: 6, message: 'page "three" is not a page number (1, 2, …)' },
    ]);
    const good = file.split('\r\n').slice(0, 5).join('\r\n');
    expect(await readQuestionFile('csv', good)).toEqual([
      {
        q: 'How long is the warranty?',
        answers: ['two years', '24 months'],
        patterns: [],
        match: 'folded',
        expected: [{ document: 'handbook.pdf', page: 3 }],
        unanswerable: false,
        language: null,
        tags: ['warranty', 'terms'],
        history: [],
      },
      {
        q: 'A question\r\nover two lines',
        answers: [],
        patterns: [],
        match: 'folded',
        expected: [],
        unanswerable: false,
        language: null,
        tags: [],
        history: [],
      },
      {
        q: 'Is there a moon base?',
        answers: [],
        patterns: [],
        match: 'folded',
        expected: [],
        unanswerable: true,
        language: null,
        tags: [],
        history: [],
      },
    ]);
  });

  it('refuses a CSV without a "q" column or with a column it does not know', async () => {
    expect(await readQuestionFile('csv', 'question,answers\nx,y\n')).toEqual([
      { line: 1, message: expect.stringContaining('one is "q"') },
    ]);
    expect(await readQuestionFile('csv', 'q,answer\nx,y\n')).toEqual([
      { line: 1, message: expect.stringContaining('unknown column "answer"') },
    ]);
  });

  it('takes a JSON file as a list or as {"questions"}, and refuses an empty set or one over the limit', async () => {
    const list = JSON.stringify([{ q: 'one' }, { q: 'two' }]);
    expect(await readQuestionFile('json', list)).toHaveLength(2);
    expect(await readQuestionFile('json', JSON.stringify({ questions: [{ q: 'one' }] }))).toHaveLength(1);
    expect(await readQuestionFile('json', '{"name": "x"}')).toEqual([
      { line: 1, message: 'a JSON file is a list of questions, or {"questions": [...]}' },
    ]);
    expect(await readQuestionFile('jsonl', '\n\n')).toEqual([
      { line: 1, message: 'the set has no questions' },
    ]);
    const many = Array.from({ length: QUESTION_LIMITS.questions + 1 }, (_, i) => ({ q: `question ${i}` }));
    expect(await checkQuestions(many)).toEqual([
      {
        line: QUESTION_LIMITS.questions + 1,
        message: `a set holds at most ${QUESTION_LIMITS.questions} questions`,
      },
    ]);
    expect(await readQuestionFile('jsonl', '{"q": "a"}\u0000')).toEqual([
      { line: 1, message: 'the file is binary, not text' },
    ]);
  });

  it('gives the event loop turns while it checks a large file (the server answers others meanwhile)', async () => {
    const rows = Array.from(
      { length: QUESTION_LIMITS.questions },
      (_, i) => `"Question ${i}, in full?",answer ${i}|other,doc-${i}.pdf,2,a|b`,
    );
    let turnTaken = false;
    setImmediate(() => {
      turnTaken = true;
    });
    // Without turns the whole check runs in promise callbacks, before any immediate: the flag would still be false.
    const questions = await readQuestionFile('csv', `q,answers,expected,page,tags\n${rows.join('\n')}\n`);
    expect(turnTaken).toBe(true);
    expect(questions).toHaveLength(QUESTION_LIMITS.questions);
  });

  it('knows a file by its extension first, then by its media type', async () => {
    expect(questionFormatOf('set.JSONL', 'application/octet-stream')).toBe('jsonl');
    expect(questionFormatOf('set.ndjson', undefined)).toBe('jsonl');
    expect(questionFormatOf('set.csv', 'application/json')).toBe('csv');
    expect(questionFormatOf('questions', 'text/csv; charset=utf-8')).toBe('csv');
    expect(questionFormatOf('questions.txt', 'text/plain')).toBeUndefined();
  });
});
