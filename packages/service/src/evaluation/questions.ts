import Papa from 'papaparse';
import { z } from 'zod';
import { type AnswerMatching, compilePattern } from './answer-match.js';

/**
 * Questions an evaluation asks (issue 40): what a question set holds, read from JSON, JSONL or CSV
 * and checked line by line. A file with any bad line is refused whole, each bad line named, so a set
 * is never stored with part of its questions silently left out.
 */

/** A document a right search finds: by id or filename, optionally on one page. */
export interface ExpectedDocument {
  document: string;
  page?: number;
}
/** A text that must be in one of the retrieved passages (read and folded, as answers are). */
export interface ExpectedPassage {
  passage: string;
}
export type Expected = ExpectedDocument | ExpectedPassage;

export interface Question {
  q: string;
  /** Strings a right answer contains (compared after NFKC, case and whitespace folding). */
  answers: string[];
  /** Regular expressions a right answer matches, ignoring case (run in linear time). */
  patterns: string[];
  /** How `answers` are compared: folded (the default), or SQuAD's normalisation of whole words. */
  match: AnswerMatching;
  expected: Expected[];
  /** The workspace holds no answer: a right answer declines. */
  unanswerable: boolean;
  language: string | null;
  tags: string[];
  /**
   * Earlier turns of the conversation it is asked in, oldest first: a follow-up ("How do I enable
   * it?") is asked with them, as chat asks it with its `history`.
   */
  history: { role: 'user' | 'assistant'; content: string }[];
}

/** What is wrong with one question: its line in the file (from 1), or its place in the JSON list. */
export interface QuestionProblem {
  line: number;
  message: string;
}

export type QuestionFormat = 'json' | 'jsonl' | 'csv';

export const QUESTION_LIMITS = {
  questions: 5_000,
  questionChars: 2_000,
  answers: 50,
  answerChars: 2_000,
  expected: 50,
  tags: 20,
  tagChars: 64,
  /** Earlier turns a question is asked after (chat takes up to 50). */
  history: 50,
  /** More problems than this are summed up, not listed: the first ones show what is wrong. */
  problemsListed: 100,
} as const;

const text = (max: number) =>
  z
    .string()
    .trim()
    .min(1, 'is empty')
    .max(max, `is longer than ${max} characters`)
    .refine((s) => !s.includes('\u0000'), 'contains a NUL character');

/** A pattern is kept as its source; it must compile for the linear-time engine. */
const pattern = z
  .string()
  .min(1, 'is empty')
  .max(QUESTION_LIMITS.answerChars, `is longer than ${QUESTION_LIMITS.answerChars} characters`)
  .superRefine((source, ctx) => {
    const compiled = compilePattern(source);
    if (typeof compiled === 'string') ctx.addIssue({ code: 'custom', message: compiled });
  });

const ExpectedInput = z.union([
  text(1_000).transform((document): Expected => ({ document })),
  z
    .object({ document: text(1_000), page: z.number().int().min(1).optional() })
    .strict()
    .transform(
      (e): Expected =>
        e.page === undefined ? { document: e.document } : { document: e.document, page: e.page },
    ),
  z.object({ passage: text(QUESTION_LIMITS.answerChars) }).strict(),
]);

/** One question as the API takes it (fields left out take their defaults). */
export const QuestionInput = z
  .object({
    q: text(QUESTION_LIMITS.questionChars),
    answers: z.array(text(QUESTION_LIMITS.answerChars)).max(QUESTION_LIMITS.answers).default([]),
    patterns: z.array(pattern).max(QUESTION_LIMITS.answers).default([]),
    match: z.enum(['folded', 'squad']).default('folded'),
    expected: z.array(ExpectedInput).max(QUESTION_LIMITS.expected).default([]),
    unanswerable: z.boolean().default(false),
    language: z
      .string()
      .regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'is not a language code such as "en" or "zh-tw"')
      .nullable()
      .default(null),
    tags: z.array(text(QUESTION_LIMITS.tagChars)).max(QUESTION_LIMITS.tags).default([]),
    history: z
      .array(
        z
          .object({ role: z.enum(['user', 'assistant']), content: text(QUESTION_LIMITS.questionChars) })
          .strict(),
      )
      .max(QUESTION_LIMITS.history)
      .default([]),
  })
  .strict()
  .superRefine((question, ctx) => {
    if (
      question.unanswerable &&
      (question.answers.length > 0 || question.patterns.length > 0 || question.expected.length > 0)
    )
      ctx.addIssue({
        code: 'custom',
        message: 'an unanswerable question has no answers, patterns or expected documents',
      });
  });

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.join('.');
      if (issue.code === 'unrecognized_keys')
        return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
      if (issue.code === 'invalid_union' && where.startsWith('expected'))
        return `${where}: an expected item is a document id or filename, {"document", "page"} or {"passage"}`;
      return where ? `${where} ${issue.message}` : issue.message;
    })
    .join('; ');
}

/**
 * Gives the event loop a turn every few milliseconds: a file of thousands of questions is checked in
 * slices, so the server answers others meanwhile (a set is checked in the request that sends it).
 */
function turns(everyMs = 5): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < everyMs) return;
    await new Promise((resolve) => setImmediate(resolve));
    since = performance.now();
  };
}

type Item = { line: number; value: unknown };

async function checkAll(items: Item[]): Promise<Question[] | QuestionProblem[]> {
  if (items.length === 0) return [{ line: 1, message: 'the set has no questions' }];
  // Counted before anything is checked: a file far over the limit costs no more than one at it.
  if (items.length > QUESTION_LIMITS.questions)
    return [
      {
        line: items[QUESTION_LIMITS.questions]!.line,
        message: `a set holds at most ${QUESTION_LIMITS.questions} questions`,
      },
    ];
  const turn = turns();
  const questions: Question[] = [];
  const problems: QuestionProblem[] = [];
  for (const { line, value } of items) {
    await turn();
    const parsed = QuestionInput.safeParse(value);
    if (parsed.success) questions.push(parsed.data);
    else problems.push({ line, message: describeIssues(parsed.error) });
  }
  return problems.length > 0 ? problems : questions;
}

/** Questions given in a JSON body: `line` is the question's place in the list, from 1. */
export function checkQuestions(values: readonly unknown[]): Promise<Question[] | QuestionProblem[]> {
  return checkAll(values.map((value, i) => ({ line: i + 1, value })));
}

/** The lines of a text with their numbers (from 1), blank ones left out. */
function* linesOf(content: string): Generator<{ line: number; text: string }> {
  let line = 1;
  for (let at = 0; at <= content.length; line++) {
    let end = content.indexOf('\n', at);
    if (end < 0) end = content.length;
    const text = content.slice(at, end).replace(/\r$/, '');
    if (text.trim() !== '') yield { line, text };
    at = end + 1;
  }
}

async function jsonLines(content: string): Promise<Item[] | QuestionProblem[]> {
  const turn = turns();
  const items: Item[] = [];
  const problems: QuestionProblem[] = [];
  for (const { line, text } of linesOf(content)) {
    await turn();
    try {
      items.push({ line, value: JSON.parse(text) });
    } catch (err) {
      problems.push({ line, message: `not JSON: ${(err as Error).message}` });
    }
  }
  return problems.length > 0 ? problems : items;
}

/**
 * The rows of a CSV text with the line each starts on: a quoted cell may hold line breaks, so a row
 * ends at a line break outside quotes (a doubled quote inside quotes toggles twice, and stays in).
 * Blank rows are left out.
 */
function* csvRowTexts(content: string): Generator<{ line: number; text: string }> {
  let line = 1;
  let rowLine = 1;
  let quoted = false;
  let start = 0;
  for (let i = 0; i <= content.length; i++) {
    const c = content[i];
    if (c === '"') quoted = !quoted;
    else if ((c === '\n' && !quoted) || i === content.length) {
      const text = content.slice(start, i).replace(/\r$/, '');
      if (text.trim() !== '') yield { line: rowLine, text };
      start = i + 1;
      rowLine = line + 1;
    }
    if (c === '\n') line++;
  }
}

/** Cells that hold several values separate them with "|" (a value that has one cannot be given in CSV). */
const list = (cell: string | undefined) =>
  (cell ?? '')
    .split('|')
    .map((s) => s.trim())
    .filter((s) => s !== '');

const CSV_COLUMNS = [
  'q',
  'answers',
  'pattern',
  'match',
  'expected',
  'page',
  'passage',
  'unanswerable',
  'language',
  'tags',
];

/** One CSV row's cells by column, or what is wrong with it. */
function questionOfRow(row: Record<string, string>): Record<string, unknown> | string {
  const value: Record<string, unknown> = { q: row.q ?? '' };
  const answers = list(row.answers);
  if (answers.length > 0) value.answers = answers;
  // One pattern per cell, taken whole: "|" is a pattern's alternation, not a list separator here.
  if (row.pattern?.trim()) value.patterns = [row.pattern.trim()];
  if (row.match?.trim()) value.match = row.match.trim().toLowerCase();
  const page = row.page?.trim();
  let pageNumber: number | undefined;
  if (page) {
    pageNumber = Number(page);
    if (!Number.isInteger(pageNumber) || pageNumber < 1)
      return `page "${page}" is not a page number (1, 2, …)`;
  }
  const expected: Expected[] = list(row.expected).map((document) =>
    pageNumber === undefined ? { document } : { document, page: pageNumber },
  );
  if (pageNumber !== undefined && expected.length === 0) return 'page needs a document in "expected"';
  if (row.passage?.trim()) expected.push({ passage: row.passage.trim() });
  if (expected.length > 0) value.expected = expected;
  const unanswerable = row.unanswerable?.trim().toLowerCase();
  if (unanswerable) {
    if (!['true', 'false', 'yes', 'no', '1', '0'].includes(unanswerable))
      return `unanswerable "${row.unanswerable}" is not true or false`;
    value.unanswerable = ['true', 'yes', '1'].includes(unanswerable);
  }
  if (row.language?.trim()) value.language = row.language.trim();
  const tags = list(row.tags);
  if (tags.length > 0) value.tags = tags;
  return value;
}

async function csvRows(content: string): Promise<Item[] | QuestionProblem[]> {
  const rows = csvRowTexts(content);
  const first = rows.next();
  if (first.done) return [];
  // Each row is parsed alone, so its line is known and the loop can be given turns between rows.
  const cellsOf = (text: string) => Papa.parse<string[]>(text, { header: false });
  const columns = (cellsOf(first.value.text).data[0] ?? []).map((h) => h.trim().toLowerCase());
  if (!columns.includes('q'))
    return [
      {
        line: first.value.line,
        message: `the first line names the columns, and one is "q" (${CSV_COLUMNS.join(', ')})`,
      },
    ];
  const unknown = columns.filter((c) => !CSV_COLUMNS.includes(c));
  if (unknown.length > 0)
    return [
      {
        line: first.value.line,
        message: `unknown column${unknown.length > 1 ? 's' : ''} ${unknown.map((c) => `"${c}"`).join(', ')} (the columns are ${CSV_COLUMNS.join(', ')})`,
      },
    ];
  const turn = turns();
  const problems: QuestionProblem[] = [];
  const items: Item[] = [];
  for (const { line, text } of rows) {
    await turn();
    const parsed = cellsOf(text);
    const cells = parsed.data[0] ?? [];
    if (parsed.errors.length > 0) {
      problems.push({ line, message: parsed.errors[0]!.message });
      continue;
    }
    if (cells.length > columns.length) {
      problems.push({
        line,
        message: `${cells.length} cells, and the first line names ${columns.length} columns`,
      });
      continue;
    }
    const question = questionOfRow(Object.fromEntries(columns.map((c, i) => [c, cells[i] ?? ''])));
    if (typeof question === 'string') problems.push({ line, message: question });
    else items.push({ line, value: question });
  }
  return problems.length > 0 ? problems : items;
}

/** Questions of an uploaded file, or every bad line of it. */
export async function readQuestionFile(
  format: QuestionFormat,
  content: string,
): Promise<Question[] | QuestionProblem[]> {
  if (content.includes('\u0000')) return [{ line: 1, message: 'the file is binary, not text' }];
  const body = content.charCodeAt(0) === 0xfeff ? content.slice(1) : content;
  if (format === 'json') {
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch (err) {
      return [{ line: 1, message: `not JSON: ${(err as Error).message}` }];
    }
    const questions = Array.isArray(value)
      ? value
      : value && typeof value === 'object' && Array.isArray((value as { questions?: unknown }).questions)
        ? (value as { questions: unknown[] }).questions
        : undefined;
    if (!questions)
      return [{ line: 1, message: 'a JSON file is a list of questions, or {"questions": [...]}' }];
    return checkQuestions(questions);
  }
  const items = format === 'jsonl' ? await jsonLines(body) : await csvRows(body);
  if (items.length > 0 && 'message' in items[0]!) return items as QuestionProblem[];
  return checkAll(items as Item[]);
}

/** Whether a result is problems (a refused set) or the questions. */
export function isProblems(result: Question[] | QuestionProblem[]): result is QuestionProblem[] {
  return result.length > 0 && 'message' in result[0]!;
}

/** The format of an uploaded question file, by its name or media type; undefined when neither says. */
export function questionFormatOf(
  filename: string,
  mediaType: string | undefined,
): QuestionFormat | undefined {
  const ext = filename.toLowerCase().match(/\.(jsonl|ndjson|json|csv)$/)?.[1];
  if (ext) return ext === 'ndjson' ? 'jsonl' : (ext as QuestionFormat);
  const type = mediaType?.split(';')[0]?.trim().toLowerCase();
  if (type === 'text/csv') return 'csv';
  if (type === 'application/x-ndjson' || type === 'application/jsonl') return 'jsonl';
  if (type === 'application/json') return 'json';
  return undefined;
}

/**
 * A question as stored by an older version (before `patterns` and `match`), with what it left out
 * filled in: a set keeps its meaning across an upgrade.
 */
export const storedQuestion = (q: Partial<Question> & Pick<Question, 'q'>): Question => ({
  answers: [],
  patterns: [],
  match: 'folded',
  expected: [],
  unanswerable: false,
  language: null,
  tags: [],
  history: [],
  ...q,
});
