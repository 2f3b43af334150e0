import type { Language } from '../text/language.js';
import type { Unit } from './units.js';

/**
 * What a question quotes without a word in it: "udeb 软件包名字里的“u”是什么意思？", "/etc/shadow 里密码字段是
 * “*” 表示什么？". The quoted mark is what the question is about, and the sentence that answers it
 * quotes it too ("“u” 表示微小。"), but a single letter or a symbol is no term of any language, and
 * the question's other words chose a sentence about udeb or /etc/shadow in general instead.
 */

const OPEN = '“"\'‘「『';
const CLOSE = '”"\'’」』';
const QUOTED = new RegExp(`[${OPEN}]([^${OPEN}${CLOSE}\\n]{1,8})[${CLOSE}]`, 'gu');

/** The marks a question quotes that its language reads no term in, trimmed, without repeats. */
export function quotedMarks(question: string, language: Language): string[] {
  const marks = new Set<string>();
  for (const m of question.matchAll(QUOTED)) {
    const mark = m[1]!.trim();
    if (mark && language.contentTerms(mark).length === 0) marks.add(mark);
  }
  return [...marks];
}

/** The term a quoted mark stands as in a sentence's terms: no tokenizer writes a quotation mark. */
export const markTerm = (mark: string) => `“${mark}”`;

/** Whether a sentence quotes the mark (in any of the quotation marks), spaces inside aside. */
function quotes(sentence: string, mark: string): boolean {
  for (let at = sentence.indexOf(mark); at >= 0; at = sentence.indexOf(mark, at + 1)) {
    const before = sentence.slice(0, at).trimEnd().slice(-1);
    const after = sentence.slice(at + mark.length).trimStart()[0];
    if (before && OPEN.includes(before) && after && CLOSE.includes(after)) return true;
  }
  return false;
}

/** Adds each mark's term to the sentences that quote it, so that a quote holding it covers it. */
export function markQuotingUnits(units: readonly Unit[], marks: readonly string[]): void {
  for (const mark of marks) for (const u of units) if (quotes(u.text, mark)) u.terms.add(markTerm(mark));
}
