import type { Language } from '../text/language.js';

/**
 * What kind of answer a question asks for, read from its wording in its language
 * (text/questions.ts), and whether a sentence holds one. "How long…", "what is the default…", "how
 * many…" want a value; "which command…", "where do I…", "how do I…" want something to type or a place
 * (a command, an option, a path, a setting). A sentence that talks about the question's subject
 * without such a value is the lead, not the answer: the answerer prefers sentences that hold one and
 * quotes the sentence that follows a lead when it does (issue 16: "Sets the base maximum amount of
 * memory…" / "The default value is four megabytes").
 */
export type AnswerType = 'value' | 'identifier' | 'none';

export function expectedAnswer(question: string, language: Language): AnswerType {
  if (language.questions.value.test(question)) return 'value';
  if (language.questions.identifier.test(question)) return 'identifier';
  return 'none';
}

/**
 * Things a person types or looks for, in any language: a path (/etc/cron.allow), an option (-t,
 * --force-overwrite), an underscored or dotted name (use_dhcp, resolv.conf), a word with digits
 * (a2enmod, tzdata2), a CONSTANT, a call (open()) or key=value. Hyphenated words
 * are left out: "fine-grained" is English. Linear: every repetition is of a character class.
 */
const IDENTIFIER =
  /(?:^|[\s(“"'‘「『（])(?:~?\/[\w.@+-]+)+\/?|(?:^|\s)--?[a-zA-Z][\w-]*|\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|\b[a-z]+\d[\w-]*\b|\b[A-Z][A-Z0-9_]{3,}\b|\b\w+\(\)|\b\w+=\S+|\b[A-Za-z]\w*::[A-Za-z]/;

const isWordChar = (c: string | undefined) => c !== undefined && /\w/.test(c);
const isLower = (c: string | undefined) => c !== undefined && c >= 'a' && c <= 'z';

/**
 * A dotted name (resolv.conf, os.path.join, my-app.service), as `\b[a-z][\w-]*\.(?!g\b|e\b)[a-z]`
 * would find it, but not "e.g." or "i.e.". Walked by hand: as a pattern, each start in a long run of
 * hyphenated words scanned the rest of the run for its dot, quadratic (three seconds on 100,000
 * characters of "a-a-a-…", test/unit/hostile-patterns.test.ts). From each dot, the run of word
 * characters and hyphens before it is looked at once: the next dot's run stops at this one.
 */
function hasDottedName(text: string): boolean {
  for (let dot = text.indexOf('.'); dot >= 0; dot = text.indexOf('.', dot + 1)) {
    const next = text[dot + 1];
    if (!isLower(next) || ((next === 'g' || next === 'e') && !isWordChar(text[dot + 2]))) continue;
    for (let p = dot - 1; p >= 0 && (isWordChar(text[p]) || text[p] === '-'); p--)
      if (isLower(text[p]) && !isWordChar(text[p - 1])) return true;
  }
  return false;
}

const namedThingPatterns = new WeakMap<Language, RegExp>();

/**
 * "the htpasswd command", "der Befehl htpasswd", "la commande ls", "コマンドls": a name the sentence
 * calls a typed thing, on the side of the word the language puts it. Built at run time from the
 * language's words, so the regex lint cannot read it: test/unit/hostile-patterns.test.ts runs it on
 * hostile text instead.
 */
export function namedThing(language: Language): RegExp {
  let re = namedThingPatterns.get(language);
  if (!re) {
    const { namedThings, namedThingOrder } = language.questions;
    const things = namedThings.join('|');
    const gap = namedThingOrder === 'unspaced' ? '\\s*' : ' ';
    // Chinese and Japanese write the next word on: "用 devscripts 工具来演示" ends "工具" with "来".
    const end = namedThingOrder === 'unspaced' ? '' : '(?![\\p{L}])';
    const before = `(?<![\\w.-])[\\w.-]+${gap}(?:${things})${end}`;
    const after = `(?<![\\p{L}])(?:${things})${gap}[a-z][\\w.-]*`;
    re = !things
      ? /(?!)/
      : new RegExp(namedThingOrder === 'name-first' ? before : `${before}|${after}`, 'iu');
    namedThingPatterns.set(language, re);
  }
  return re;
}

export function satisfies(sentence: string, type: AnswerType, language: Language): boolean {
  if (type === 'value') return /\d/.test(sentence) || language.questions.numberWords.test(sentence);
  if (type === 'identifier')
    return IDENTIFIER.test(sentence) || hasDottedName(sentence) || namedThing(language).test(sentence);
  return true;
}
