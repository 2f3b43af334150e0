/**
 * How a question points back at the conversation before it, in each language the answerer knows
 * (issue 41, docs/decisions/0026-follow-up-questions.md): the pronouns and demonstratives that stand
 * for something named earlier ("How do I enable it?", "Wie aktiviere ich es?", "それを有効にするには？"),
 * and the openings that carry the earlier question over to a new subject ("And for the printer?",
 * "Und bei SSH?", "那 SSH 呢？"). search/follow-up.ts decides with them whether a question borrows the
 * earlier turns' words.
 *
 * Words that are also articles or conjunctions are only taken where they cannot be one: German
 * "das" at the end of the question, French "le/la/les" before a verb after "comment", Spanish and
 * Italian "lo/la" attached to the verb ("activarlo"), Dutch "het" before a separable particle.
 */

export interface ReferenceRules {
  /** A word standing for something an earlier turn named. */
  pointsBack: RegExp;
  /** An opening (or, in Chinese and Japanese, an ending) that asks the earlier question of something else. */
  followsOn: RegExp;
}

/*
 * Like text/questions.ts, these patterns are checked for their speed on hostile text by
 * test/unit/hostile-patterns.test.ts: no quantified group inside another.
 */

/** Whole words of a space-separated language (boundaries that know letters beyond ASCII). */
const words = (alternatives: string[]) =>
  new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives.join('|')})(?![\\p{L}\\p{N}])`, 'iu');

/** An opening of the question, after any opening punctuation ("¿Y para…?"). */
const opening = (alternatives: string[]) =>
  new RegExp(`^[\\s¿¡"'«(]*(?:${alternatives.join('|')})(?![\\p{L}\\p{N}])`, 'iu');

const NEVER = /(?!)/;

const RULES: Record<string, ReferenceRules> = {
  en: {
    pointsBack: words(['it', 'its', 'itself', 'this', 'that', 'these', 'those', 'they', 'them', 'their']),
    followsOn: opening(['and', 'also', 'what about', 'how about', 'same for']),
  },
  de: {
    pointsBack: words([
      // "es" but not "gibt es" (there is), which asks of nothing named before.
      '(?<!gibt )es',
      'dies',
      'diese[rsnm]?',
      'er',
      'ihn',
      'ihm',
      'dessen',
      'deren',
      'da(?:für|mit|zu|von|rin|rauf|raus|bei|ran|rüber|gegen|hin|nach|vor)',
      'das(?=\\s*[?.!]*$)',
    ]),
    followsOn: opening(['und', 'auch', 'was ist mit', 'wie ist es mit', 'wie sieht es mit']),
  },
  fr: {
    pointsBack: words([
      'cela',
      'ça',
      'ceci',
      'celui-ci',
      'celle-ci',
      'ceux-ci',
      'celles-ci',
      'cet',
      'cette',
      'ces',
      'leurs?',
      // "il" but not "y a-t-il", "faut-il" or "il y a", which name nothing.
      '(?<!a-t-|faut-)(?:il|elle|ils|elles)(?! y a)',
      '(?:comment|pourquoi|où|puis-je|peut-on|dois-je|faut-il|je|on|ne) (?:le|la|les|en|y)',
      // "l'" is followed by its verb without a space: "Comment l'activer ?".
      "(?:comment|pourquoi|où|puis-je|peut-on|dois-je|faut-il|je|on|ne) l['’]\\p{L}+",
    ]),
    followsOn: opening(['et', "qu['’]en est-il", 'quid']),
  },
  es: {
    pointsBack: words([
      'eso',
      'esto',
      'ello',
      'este',
      'esta',
      'estos',
      'estas',
      'ese',
      'esa',
      'esos',
      'esas',
      'él',
      'ella',
      'ellos',
      'ellas',
      'sus?',
      // A pronoun attached to the verb: "activarlo", "configurarla", "instalarlos".
      '\\p{L}+(?:ar|er|ir)(?:lo|la|los|las|le|les)',
      '(?:cómo|como|dónde|donde|cuándo|cuando|no|se) (?:lo|la|los|las)',
    ]),
    followsOn: opening(['y', 'también', 'qué hay de', 'qué pasa con']),
  },
  it: {
    pointsBack: words([
      'questo',
      'questa',
      'questi',
      'queste',
      'quello',
      'quella',
      'ciò',
      'esso',
      'essa',
      'essi',
      '\\p{L}+(?:ar|er|ir)(?:lo|la|li|le|ne)',
      '(?:come|dove|non|si) (?:lo|la|li|le)',
      "(?:come|dove|non|si) l['’]\\p{L}+",
    ]),
    followsOn: opening(['e', 'ed', 'anche', 'che mi dici di', 'quanto a']),
  },
  pt: {
    pointsBack: words([
      'isso',
      'isto',
      'aquilo',
      'esse',
      'essa',
      'esses',
      'essas',
      'este',
      'esta',
      'estes',
      'estas',
      'ele',
      'ela',
      'eles',
      'elas',
      // A pronoun joined to the verb: "ativá-lo", "configurá-la", "usá-los".
      '\\p{L}+-(?:lo|la|los|las)',
    ]),
    followsOn: opening(['e', 'também', 'e quanto a', 'quanto a']),
  },
  nl: {
    pointsBack: words([
      'dit',
      'dat',
      'deze',
      'hij',
      'hem',
      'zij',
      'ze',
      'er(?:van|in|mee|op|aan|voor|over|uit|bij)',
      'het(?= (?:in|uit|aan|af|op|om|weg|terug)(?![\\p{L}]))',
    ]),
    followsOn: opening(['en', 'ook', 'hoe zit het met', 'wat dacht je van']),
  },
  ja: {
    pointsBack: /それ|これ|あれ|その|この|あの|そこ|ここ/u,
    followsOn:
      /^(?:じゃあ|では|それで|で、)|(?:は|では|の場合は|はどう|はどうですか|はどうなりますか)[？?]?$/u,
  },
  zh: {
    // "该" but not "应该" (should).
    pointsBack: /它|这个|那个|这些|那些|这|那|其|此|(?<!应)该/u,
    followsOn: /^(?:那么|那|还有|另外)|呢[？?]?$/u,
  },
};

/** A language's rules; a language without them never points back by its words (only by being short). */
export function referenceRules(code: string): ReferenceRules {
  return RULES[code] ?? RULES[code.split('-')[0]!] ?? { pointsBack: NEVER, followsOn: NEVER };
}
