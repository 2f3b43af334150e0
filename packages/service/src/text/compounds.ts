/**
 * Compound splitting for languages that write compounds as one word (German: "Druckerwarteschlange"
 * is "Drucker" + "Warteschlange"; "Sicherungskopie" is "Sicherung" + linking "s" + "Kopie"). The
 * index holds a compound's parts beside the whole word, and a question asks for them too, so that a
 * question's "Benutzerkonto" finds a passage's "Konto des Benutzers" and the other way round, as
 * dictionary decompounding does for German retrieval (issue 41).
 */

/** A word list's membership test, on words in lower case (the list ignores accents). */
export type KnownWord = (form: string) => boolean;

/** Letters a part must have: shorter known words ("bei", "ort", "tag") split too many words wrongly. */
const MIN_PART = 4;
/** A compound of fewer letters is rarely one; most such splits would be prefixes ("Vorgang"). */
const MIN_COMPOUND = 8;
/** At most this many parts: more are almost always a wrong reading of a long word. */
const MAX_PARTS = 3;
/** What German puts between a compound's parts ("Sicherung·s·kopie", "Sonne·n·schein", "Hund·e·hütte"). */
const LINKERS = ['s', 'es', 'n', 'en', 'e'];

/**
 * The parts of `word` (lower case) as words of the list, or undefined when it is no
 * compound of known words. Of every reading into known parts of four letters or more, none of them a
 * stop word, the one with the fewest parts wins, then the one with the longest last part (a German
 * compound's head, as dictionary decompounders prefer), then the longer first part. A part's linking
 * letters are dropped when the list knows the word without them, and a verb's stem stands for the verb.
 */
export function compoundParts(
  word: string,
  known: KnownWord,
  isStopWord: (w: string) => boolean,
): string[] | undefined {
  if (word.length < MIN_COMPOUND || !/^\p{L}+$/u.test(word)) return undefined;
  const usable = (part: string) => part.length >= MIN_PART && known(part) && !isStopWord(part);
  let best: string[] | undefined;
  const better = (a: string[], b: string[] | undefined) => {
    if (!b) return true;
    if (a.length !== b.length) return a.length < b.length;
    // The last part names what the compound is ("Text·werkzeugen", not "Textwerk·zeugen").
    if (a.at(-1)!.length !== b.at(-1)!.length) return a.at(-1)!.length > b.at(-1)!.length;
    return a[0]!.length > b[0]!.length;
  };
  const walk = (rest: string, parts: string[]) => {
    if (parts.length > 0 && usable(rest)) {
      const found = [...parts, rest];
      if (better(found, best)) best = found;
    }
    if (parts.length + 1 >= MAX_PARTS) return;
    for (let i = MIN_PART; i <= rest.length - MIN_PART; i++) {
      const head = rest.slice(0, i);
      const tail = rest.slice(i);
      if (usable(head)) walk(tail, [...parts, head]);
      // A verb's stem leads many compounds ("Programmier·sprache", "Schreib·tisch"): the part is the verb.
      else if (head.length >= 5 && !isStopWord(head) && usable(`${head}en`))
        walk(tail, [...parts, `${head}en`]);
      for (const linker of LINKERS) {
        if (!head.endsWith(linker)) continue;
        const stem = head.slice(0, -linker.length);
        // "Sonnen" is a word of its own; the part is still the one without the link when that is one.
        if (usable(stem) && !usable(head)) walk(tail, [...parts, stem]);
      }
    }
  };
  walk(word, []);
  return best;
}

/** A language's compound splitter: a word as `Language.term` reads it (lower case) → its parts. */
export type CompoundSplitter = (word: string) => readonly string[] | undefined;

/**
 * `compoundParts` over a word list, remembered per word (an index build asks for the same words over
 * and over; bounded, cleared when full).
 */
export function compoundSplitter(known: KnownWord, isStopWord: (w: string) => boolean): CompoundSplitter {
  const memo = new Map<string, readonly string[] | null>();
  return (word) => {
    let parts = memo.get(word);
    if (parts === undefined) {
      if (memo.size > 200_000) memo.clear();
      parts = word.length < MIN_COMPOUND ? null : (compoundParts(word, known, isStopWord) ?? null);
      memo.set(word, parts);
    }
    return parts ?? undefined;
  };
}

const splitters = new WeakMap<object, Map<string, CompoundSplitter>>();

/**
 * The splitter of a language that splits compounds, over its word list (a lexicon that `lists` forms
 * exactly); undefined otherwise. One per list and language, so its memory of words lasts as long as
 * the list.
 */
export function splitterFor(
  language: { code: string; splitsCompounds: boolean; isStopWord(w: string): boolean },
  lexicon: { lists?(form: string): boolean } | undefined,
): CompoundSplitter | undefined {
  const lists = lexicon?.lists?.bind(lexicon);
  if (!language.splitsCompounds || !lexicon || !lists) return undefined;
  let byLanguage = splitters.get(lexicon);
  if (!byLanguage) {
    byLanguage = new Map();
    splitters.set(lexicon, byLanguage);
  }
  let split = byLanguage.get(language.code);
  if (!split) {
    split = compoundSplitter(lists, (w) => language.isStopWord(w));
    byLanguage.set(language.code, split);
  }
  return split;
}

/**
 * The splitter for a question's words: `split`, but a word its list writes in lower case (in German a
 * verb, an adjective, an adverb or a participle) is asked as it is written. Such words split into
 * listed words by accident ("verl·assen", "zuzug·reifen", "automat·isch"), and a question asked for
 * those parts too, which matched passages about tyres for "zuzugreifen". Passages keep `split`, so
 * a passage's "bereitgestellt" still holds the "bereit" of a question's "stellt … bereit".
 */
export function questionSplitter(
  split: CompoundSplitter,
  lexicon: { writtenLowerCase?(form: string): boolean },
): CompoundSplitter {
  const lower = lexicon.writtenLowerCase?.bind(lexicon);
  return lower ? (word) => (lower(word) ? undefined : split(word)) : split;
}

/**
 * `language` reading compounds by `split`: its passages' sentences hold a compound's parts beside it,
 * and its questions ask for the parts of the compounds `questionSplit` splits (by default the same),
 * whether a passage joins the parts or writes them apart. Everything else is the language's own. For
 * the answerer, which compares a question with sentences term by term.
 */
export function withCompounds<
  L extends {
    contentTerms(t: string, s?: CompoundSplitter): string[];
    questionTerms(q: string, s?: CompoundSplitter): string[];
  },
>(language: L, split: CompoundSplitter, questionSplit: CompoundSplitter = split): L {
  return Object.create(language, {
    contentTerms: { value: (text: string) => language.contentTerms(text, split) },
    questionTerms: { value: (question: string) => language.questionTerms(question, questionSplit) },
  }) as L;
}
