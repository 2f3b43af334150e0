import { describe, expect, it } from 'vitest';
import { expectedAnswer, namedThing, satisfies } from '../../src/answers/answer-types.js';
import { mediaTypeOrNull } from '../../src/ingestion/upload.js';
import { languageFor, SUPPORTED_LANGUAGES } from '../../src/text/language.js';
import { QUESTION_RULES } from '../../src/text/questions.js';

/**
 * Regular expressions built at run time from strings (each language's question words in
 * text/questions.ts, its named things in answers/answer-types.ts, the media type of an upload) are
 * out of the regex lint's sight (eslint.regexp.config.mjs reads literals). Questions and sentences
 * are outside input, so every such pattern of every language runs here on 100,000 characters of
 * hostile text (runs of one letter, space or punctuation, mixed scripts, and near-misses of the
 * pattern's own words), and a run over 200 ms fails: a pattern that backtracks takes seconds on this.
 */
const LENGTH = 100_000;
const LIMIT_MS = 200;

const fill = (unit: string) => unit.repeat(Math.ceil(LENGTH / unit.length)).slice(0, LENGTH);

/** Text any pattern may choke on: runs of one character or of a short unit, in several scripts. */
const GENERIC = [
  'a',
  'A',
  '1',
  'é',
  'ß',
  'ж',
  '多',
  'コ',
  ' ',
  '\t',
  '\n',
  '.',
  '-',
  '_',
  '/',
  '(',
  '"',
  '=',
  '「',
  'a ',
  'a-',
  'a.',
  'a_',
  'a1',
  'a=',
  '1 ',
  '--a ',
  '/a',
  'aé多コж1 .-_',
  'A_B',
  'x()',
].map(fill);

/** What the operations below are run on (all of GENERIC in every language would take seconds). */
const OPERATIONS = ['a-', 'a.', 'a ', '多', 'コ', 'aé多コж1 .-_', '/a', 'a='].map(fill);

/**
 * Near-misses of a pattern's own words: each word repeated, with and without spaces, cut short by its
 * last letter, and the words run together (a pattern of alternatives backtracks on its prefixes).
 */
function nearMisses(re: RegExp): string[] {
  const words = [...new Set(re.source.match(/[\p{L}\p{N}]{2,}/gu) ?? [])];
  const out: string[] = [];
  for (const w of words.slice(0, 40)) {
    out.push(fill(`${w} `), fill(w), fill(`${w.slice(0, -1)} `), fill(`${w}-`));
  }
  if (words.length) out.push(fill(words.join(' ')), fill(words.join('')));
  return out;
}

/** Milliseconds one use of the pattern takes on `text`, as the service uses it (test or replace). */
function timed(re: RegExp, text: string): number {
  const start = performance.now();
  re.lastIndex = 0;
  if (re.global) text.replace(re, ' ');
  else re.test(text);
  return performance.now() - start;
}

const codes = [...new Set([...SUPPORTED_LANGUAGES, ...Object.keys(QUESTION_RULES), 'xx'])];

/** Every pattern built at run time, by language and role, each once (languages share some). */
function builtPatterns(): [string, RegExp][] {
  const seen = new Set<string>();
  const out: [string, RegExp][] = [];
  for (const code of codes) {
    const language = languageFor(code);
    const q = language.questions;
    for (const [role, re] of Object.entries({
      value: q.value,
      identifier: q.identifier,
      numberWords: q.numberWords,
      refersBack: q.refersBack,
      why: q.why,
      asking: q.asking,
      namedThing: namedThing(language),
      // What makes a question a follow-up (search/follow-up.ts).
      pointsBack: language.references.pointsBack,
      followsOn: language.references.followsOn,
    })) {
      const key = `${re.source}/${re.flags}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push([`${code} ${role}`, re]);
    }
  }
  return out;
}

describe('patterns built at run time, on hostile text', () => {
  it('covers every language with question rules, and each of their roles', () => {
    const names = builtPatterns().map(([name]) => name);
    for (const code of Object.keys(QUESTION_RULES).filter((c) => QUESTION_RULES[c]!.namedThings.length))
      for (const role of ['value', 'identifier', 'numberWords', 'refersBack', 'why', 'asking', 'namedThing'])
        expect(names).toContain(`${code} ${role}`);
  });

  it(`runs every one in under ${LIMIT_MS} ms on ${LENGTH.toLocaleString('en')} characters`, () => {
    const slow: string[] = [];
    for (const [name, re] of builtPatterns()) {
      for (const text of [...GENERIC, ...nearMisses(re)]) {
        const ms = timed(re, text);
        // Once more before counting it: a pause of the process (a collection) is not the pattern's.
        if (ms > LIMIT_MS && timed(re, text) > LIMIT_MS) {
          slow.push(`${name} ${re}: ${Math.round(ms)} ms on ${JSON.stringify(text.slice(0, 24))}…`);
          break; // one slow text is enough: the others could take minutes each
        }
      }
    }
    expect(slow).toEqual([]);
  }, 120_000);

  it('keeps the operations that use them fast on the same text, in each language with rules', () => {
    const slow: string[] = [];
    // The languages with rules of their own, and one without (the others share its patterns).
    const own = Object.keys(QUESTION_RULES).filter((c) => QUESTION_RULES[c]!.namedThings.length);
    for (const code of [...own, 'xx']) {
      const language = languageFor(code);
      for (const text of OPERATIONS) {
        const start = performance.now();
        expectedAnswer(text, language);
        satisfies(text, 'value', language);
        satisfies(text, 'identifier', language);
        language.contentTerms(text.replace(language.questions.asking, ' '));
        const ms = performance.now() - start;
        if (ms > 4 * LIMIT_MS)
          slow.push(`${code}: ${Math.round(ms)} ms on ${JSON.stringify(text.slice(0, 24))}…`);
      }
    }
    expect(slow).toEqual([]);
  }, 120_000);

  it(`reads an upload's declared media type in under ${LIMIT_MS} ms, however long and odd`, () => {
    for (const text of [...GENERIC, fill('a/a; a='), fill('a/a;a="'), `a/a${fill('; a=a')}`]) {
      const start = performance.now();
      mediaTypeOrNull(text);
      expect(performance.now() - start).toBeLessThan(LIMIT_MS);
    }
  });
});
