import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { answerMatcher, compilePattern } from '../../packages/service/src/evaluation/answer-match.js';
import { repoRoot } from './data.js';
import type { Manual } from './manuals.js';

/**
 * A question set over one Debian documentation manual (bench/manual/<name>.json): which package and
 * which of its HTML pages make the workspace, questions the manual answers (each with the page that
 * answers it and a pattern for the answer) and questions it cannot answer.
 */
export interface ManualSet {
  name: string;
  /** The Debian package that ships the manual. */
  package: string;
  /** The folder of its HTML pages inside the package, e.g. `usr/share/doc/debian-handbook/html/en-US`. */
  htmlDir: string;
  /** Whether pages in subfolders of htmlDir belong to the manual (named `<folder>-<file>`). */
  recursive: boolean;
  /** Only pages whose names end so (a package of several translations: `.de.html`). */
  pageSuffix?: string;
  /** Pages left out: ones with no text to extract (sqlite3-doc's copyright form is an image). */
  skipPages?: string[];
  /** The language its pages and questions are written in (ISO 639-1); English when absent. */
  language?: string;
  answerable: AnswerableQuestion[];
  unanswerable: UnanswerableQuestion[];
  /** Follow-up questions (issue 41): each asked after the user turns of its history. */
  followups?: FollowUpQuestion[];
}

export type Split = 'tune' | 'holdout';

export interface AnswerableQuestion {
  id: string;
  q: string;
  /** The file name of the page that answers it, as uploaded. */
  page: string;
  /**
   * A regular expression source that matches the answer in the page's text, ignoring case, as a
   * question set's `patterns` (docs/evaluation.md): the evaluation engine's linear-time matching.
   */
  answer: string;
  split: Split;
  /** What kind of answer it asks for (a default, a number, a command, a how-to...). */
  kind: string;
}

/**
 * A follow-up made of an answerable question (`of`): the first turn names the subject ("Was ist das
 * Sticky-Bit?"), the question refers back to it ("Was bewirkt es bei … /tmp?") and asks the original's
 * point, answered by the same page and pattern, in the original's split.
 */
export interface FollowUpQuestion {
  id: string;
  of: string;
  /** The earlier user turns, oldest first. */
  history: string[];
  q: string;
  page: string;
  answer: string;
  split: Split;
}

export interface UnanswerableQuestion {
  id: string;
  q: string;
  split: Split;
  /** `in-domain` (Debian or Linux administration, not in the manual) or `out-of-domain`. */
  kind: string;
}

export interface ManualPage {
  /** The file name it is uploaded under. */
  name: string;
  file: string;
}

/** bench/manual/<name>.json (English manuals, issue 16), or bench/languages/<name>.json (issue 24). */
export function manualSetFile(name: string): string {
  const english = path.join(repoRoot, 'bench/manual', `${name}.json`);
  return existsSync(english) ? english : path.join(repoRoot, 'bench/languages', `${name}.json`);
}

const SPLITS = new Set(['tune', 'holdout']);

/** Reads a question set and checks its shape; every problem is listed in one error. */
export function loadManualSet(name: string): ManualSet {
  const set = JSON.parse(readFileSync(manualSetFile(name), 'utf8')) as ManualSet;
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const q of [...set.answerable, ...set.unanswerable]) {
    if (ids.has(q.id)) problems.push(`${q.id}: duplicate id`);
    ids.add(q.id);
    if (!q.q?.trim()) problems.push(`${q.id}: no question`);
    if (!SPLITS.has(q.split)) problems.push(`${q.id}: split must be tune or holdout, not ${q.split}`);
    if (!q.kind) problems.push(`${q.id}: no kind`);
  }
  for (const q of set.answerable) {
    if (!q.page) problems.push(`${q.id}: no page`);
    const compiled = compilePattern(q.answer);
    if (typeof compiled === 'string') problems.push(`${q.id}: the answer pattern ${compiled}`);
  }
  const originals = new Map(set.answerable.map((q) => [q.id, q]));
  for (const f of set.followups ?? []) {
    if (ids.has(f.id)) problems.push(`${f.id}: duplicate id`);
    ids.add(f.id);
    const of = originals.get(f.of);
    if (!of) problems.push(`${f.id}: follows no answerable question (${f.of})`);
    else if (of.page !== f.page || of.answer !== f.answer || of.split !== f.split)
      problems.push(`${f.id}: page, answer and split are not those of ${f.of}`);
    if (!f.q?.trim() || !f.history?.length || f.history.some((h) => !h.trim()))
      problems.push(`${f.id}: a follow-up needs a question and the turns before it`);
  }
  if (problems.length) throw new Error(`${manualSetFile(name)}:\n  ${problems.join('\n  ')}`);
  return { ...set, name };
}

/** The manual's HTML pages, in a stable order (no images, style sheets or other files). */
export function manualPages(manual: Manual, set: ManualSet): ManualPage[] {
  const root = path.join(manual.dir, set.htmlDir);
  const pages: ManualPage[] = [];
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      if (entry.isDirectory()) {
        if (set.recursive) walk(path.join(dir, entry.name), `${prefix}${entry.name}-`);
      } else if (
        entry.name.endsWith(set.pageSuffix ?? '.html') &&
        !set.skipPages?.includes(`${prefix}${entry.name}`)
      ) {
        pages.push({ name: `${prefix}${entry.name}`, file: path.join(dir, entry.name) });
      }
    }
  };
  walk(root, '');
  if (pages.length === 0) throw new Error(`no HTML pages in ${root}`);
  return pages;
}

// Inline elements join their text to the neighbouring words (`<code>apt</code>-get` is "apt-get");
// every other tag separates words.
const INLINE =
  /^(a|abbr|acronym|b|big|cite|code|dfn|em|font|i|kbd|mark|q|s|samp|small|span|strong|sub|sup|tt|u|var|wbr)$/i;
const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  mdash: '—',
  ndash: '–',
  hellip: '…',
  copy: '©',
  reg: '®',
  laquo: '«',
  raquo: '»',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
};

/**
 * The text of an HTML page as the answer patterns are written against: head, scripts and styles
 * dropped, tags removed, entities decoded, whitespace collapsed to single spaces.
 */
export function htmlText(html: string): string {
  return html
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(head|script|style)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<\/?([a-zA-Z][\w:-]*)\b[^>]*>/g, (_, tag: string) => (INLINE.test(tag) ? '' : ' '))
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
      if (name[0] === '#') {
        const code =
          name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
        return Number.isFinite(code) ? String.fromCodePoint(code) : whole;
      }
      return ENTITIES[name.toLowerCase()] ?? whole;
    })
    .replace(/\s+/g, ' ')
    .trim();
}

/** A matcher of an answer pattern, as the service's evaluation engine matches it (ignoring case). */
export function answerPattern(source: string): { test(text: string): boolean } {
  const test = answerMatcher({ answers: [], patterns: [source], match: 'folded' });
  return { test };
}

/**
 * Checks that every answer pattern matches the text of its page, and that every page exists; throws
 * one error listing every question that fails, so a wrong pattern or a changed manual is never
 * scored silently.
 */
export function verifyAnswers(set: ManualSet, pages: ManualPage[]): { verified: number } {
  const byName = new Map(pages.map((p) => [p.name, p]));
  const texts = new Map<string, string>();
  const problems: string[] = [];
  for (const q of set.answerable) {
    const page = byName.get(q.page);
    if (!page) {
      problems.push(`${q.id}: page ${q.page} is not in the manual`);
      continue;
    }
    let text = texts.get(q.page);
    if (text === undefined) {
      text = htmlText(readFileSync(page.file, 'utf8'));
      texts.set(q.page, text);
    }
    if (!answerPattern(q.answer).test(text)) {
      problems.push(`${q.id}: /${q.answer}/i does not match the text of ${q.page}`);
    }
  }
  if (problems.length) {
    throw new Error(
      `${problems.length} answer pattern(s) of ${manualSetFile(set.name)} do not match their page:\n  ${problems.join('\n  ')}`,
    );
  }
  return { verified: set.answerable.length };
}
