import v8 from 'node:v8';

/**
 * How an evaluation decides that a text holds a question's answer (docs/evaluation.md, "Answers"):
 * the text is read as a person reads it (Markdown's markup and citation markers dropped), then
 * compared with the answer strings (folded, or SQuAD's way) and with the answer patterns.
 *
 * Patterns come from users, and the server runs them on every retrieved passage: they are compiled
 * with V8's linear-time engine (the `l` flag), so no pattern can backtrack catastrophically; one the
 * engine cannot run in linear time (backreferences, lookaround) is refused when the set is stored.
 */

// The linear-time engine is behind a V8 flag. Setting it here, before the first pattern is compiled,
// affects only expressions that ask for it with `l`; every other RegExp keeps the usual engine.
v8.setFlagsFromString('--enable-experimental-regexp-engine');

/** How answer strings are compared: `folded` (the default) or SQuAD's evaluation script's way. */
export type AnswerMatching = 'folded' | 'squad';

/**
 * Text as a person reads it: `[n]` citation markers removed, links reduced to their text, Markdown's
 * backslash escapes, code and strong markers dropped, white space collapsed. Answers are written
 * against what people read, so markup the service adds must not decide.
 */
export function readableText(text: string): string {
  return text
    .replace(/\[(\d+)\]/g, ' ')
    .replace(/\[([^[\]]*)\]\([^()]*\)/g, '$1')
    .replace(/\\([\\`*_{}[\]()#+\-.!|~<>])/g, '$1')
    .replace(/`+|\*\*/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The form answers are compared in: NFKC, lower case, runs of white space as one space. */
export function foldForComparison(s: string): string {
  return s.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' ').trim();
}

/**
 * SQuAD v1.1's answer normalisation (its official evaluation script): lower case, punctuation and
 * symbols as spaces, the English articles dropped, single spaces.
 */
export function squadNormalize(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\p{P}\p{S}]/gu, ' ')
    .replace(/\b(a|an|the)\b/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The longest counted repetition V8's linear-time engine takes (`x{0,16}`); longer ones are split. */
const MAX_ENGINE_REPEAT = 16;
/** Counted repetitions beyond this are refused: they would unroll into a pattern too large to keep. */
export const MAX_PATTERN_REPEAT = 1_000;

/** The end (exclusive) of the atom starting at `i`: an escape, a class, a group or one character. */
function atomEnd(source: string, i: number): number {
  const c = source[i];
  if (c === '\\') {
    const next = source[i + 1];
    if (next === 'x') return i + 4;
    if (next === 'u') return i + 6;
    if (next === 'c') return i + 3;
    return i + 2;
  }
  if (c === '[') {
    for (let j = i + 1; j < source.length; j++) {
      if (source[j] === '\\') j++;
      else if (source[j] === ']' && j > i + 1) return j + 1;
    }
    return source.length;
  }
  if (c === '(') {
    let depth = 0;
    for (let j = i; j < source.length; j++) {
      const d = source[j];
      if (d === '\\') j++;
      else if (d === '[') j = atomEnd(source, j) - 1;
      else if (d === '(') depth++;
      else if (d === ')' && --depth === 0) return j + 1;
    }
    return source.length;
  }
  return i + 1;
}

/** `atom{min,max}` (max Infinity when open) written as repetitions the linear-time engine takes. */
function splitRepeat(atom: string, min: number, max: number, lazy: string): string {
  let out = '';
  for (let left = min; left > 0; left -= MAX_ENGINE_REPEAT)
    out += `${atom}{${Math.min(left, MAX_ENGINE_REPEAT)}}`;
  if (max === Number.POSITIVE_INFINITY) return `${out}${atom}*${lazy}`;
  for (let left = max - min; left > 0; left -= MAX_ENGINE_REPEAT)
    out += `${atom}{0,${Math.min(left, MAX_ENGINE_REPEAT)}}${lazy}`;
  return out;
}

/**
 * A pattern's source as the linear-time engine takes it: case-blind for a lower-cased text (the
 * engine has no `i` flag, so letters are lowered outside escapes, and `\S`, `\W`, `\B` keep their
 * meaning), and with counted repetitions longer than the engine's limit written as several.
 */
function enginePattern(source: string): string {
  let out = '';
  let i = 0;
  while (i < source.length) {
    const end = atomEnd(source, i);
    const atom = source.slice(i, end);
    // Groups and classes are rewritten inside too; escapes are kept as written.
    const rewritten =
      atom[0] === '\\'
        ? atom
        : atom[0] === '(' && atom.length > 2
          ? `(${enginePattern(atom.slice(1, -1))})`
          : atom.toLowerCase();
    const repeat = /^\{(\d+)(,(\d*))?\}(\??)/.exec(source.slice(end));
    if (repeat) {
      const min = Number(repeat[1]);
      const max =
        repeat[2] === undefined ? min : repeat[3] === '' ? Number.POSITIVE_INFINITY : Number(repeat[3]);
      if (Math.max(min, Number.isFinite(max) ? max : 0) > MAX_PATTERN_REPEAT)
        throw new RangeError(`repeats more than ${MAX_PATTERN_REPEAT} times`);
      out +=
        max > MAX_ENGINE_REPEAT || min > MAX_ENGINE_REPEAT
          ? splitRepeat(rewritten, min, max, repeat[4] ?? '')
          : rewritten + repeat[0];
      i = end + repeat[0].length;
    } else {
      out += rewritten;
      i = end;
    }
  }
  return out;
}

/** A pattern compiled for matching, or why it cannot be (a sentence for the question's error). */
export function compilePattern(source: string): RegExp | string {
  try {
    return new RegExp(enginePattern(source), 'l');
  } catch (err) {
    if (err instanceof RangeError) return err.message;
    const message = (err as Error).message;
    if (/linear time/i.test(message))
      return 'cannot be matched in linear time (backreferences and lookaround are not supported)';
    return `is not a regular expression: ${message.replace(/^Invalid regular expression: /, '')}`;
  }
}

export interface AnswerSpec {
  answers: readonly string[];
  patterns: readonly string[];
  match: AnswerMatching;
}

/** Whether a question has any answer to look for. */
export const hasAnswers = (spec: AnswerSpec) => spec.answers.length > 0 || spec.patterns.length > 0;

/**
 * A test of texts for one question's answers: true when the readable text contains one of the
 * answer strings (compared as `match` says) or matches one of the patterns (ignoring case).
 */
export function answerMatcher(spec: AnswerSpec): (text: string) => boolean {
  const patterns = spec.patterns.map((p) => {
    const re = compilePattern(p);
    // Stored sets were checked when they were made; a pattern that no longer compiles matches nothing.
    return typeof re === 'string' ? undefined : re;
  });
  const squad = spec.match === 'squad';
  const answers = spec.answers
    .map((a) => (squad ? squadNormalize(a) : foldForComparison(readableText(a))))
    .filter((a) => a.length > 0);
  return (text) => {
    const readable = readableText(text);
    if (answers.length > 0) {
      if (squad) {
        const words = ` ${squadNormalize(readable)} `;
        if (answers.some((a) => words.includes(` ${a} `))) return true;
      } else {
        const folded = foldForComparison(readable);
        if (answers.some((a) => folded.includes(a))) return true;
      }
    }
    if (patterns.length > 0) {
      const lowered = readable.toLowerCase();
      if (patterns.some((re) => re?.test(lowered))) return true;
    }
    return false;
  };
}

/** Whether a passage's text holds an expected passage text (both read and folded). */
export function containsPassage(text: string, passage: string): boolean {
  return foldForComparison(readableText(text)).includes(foldForComparison(readableText(passage)));
}
