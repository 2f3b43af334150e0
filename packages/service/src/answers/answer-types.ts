/**
 * What kind of answer a question asks for, read from its wording, and whether a sentence holds one.
 * "How long…", "what is the default…", "how many…" want a value; "which command…", "where do I…",
 * "how do I…" want something to type or a place (a command, an option, a path, a setting). A sentence
 * that talks about the question's subject without such a value is the lead, not the answer: the
 * answerer prefers sentences that hold one and quotes the sentence that follows a lead when it does
 * (issue 16: "Sets the base maximum amount of memory…" / "The default value is four megabytes").
 */
export type AnswerType = 'value' | 'identifier' | 'none';

const VALUE_QUESTION =
  /\b(how (many|much|long|big|large|old|often|far|fast|quickly|soon|high|low|small|wide|deep|frequently)|(what|which) (size|percentage|share|number|amount|port|version|year|time|date|level|limit|value|speed|length)|(maximum|minimum|max|min|limit|default|number of|at most|at least|up to|by default))\b/i;

const IDENTIFIER_QUESTION =
  /\b((which|what) (command|commands|file|files|directory|folder|path|option|options|flag|setting|settings|parameter|variable|package|program|tool|utility|function|method|module|key|group|daemon|service|character|code ?name|name|syntax)|(what|which) (do|should|can|must) (i|you|we) (type|run|use|write|put|set|add|call)|where (do|can|should|is|are|does|must)|how (do|can|should|would|could) (i|you|we|one|someone)|what is .{0,40}\b(called|named)|name of|what do i type)\b/i;

export function expectedAnswer(question: string): AnswerType {
  if (VALUE_QUESTION.test(question)) return 'value';
  if (IDENTIFIER_QUESTION.test(question)) return 'identifier';
  return 'none';
}

const NUMBER_WORDS =
  /\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|hundred|thousand|million|billion|once|twice|half|double|dozen|daily|weekly|monthly|hourly|yearly|annually)\b/i;

/**
 * Things a person types or looks for: a path (/etc/cron.allow), an option (-t, --force-overwrite), an
 * underscored or dotted name (use_dhcp, resolv.conf), a word with digits (a2enmod, tzdata2), a
 * CONSTANT, a call (open()), key=value, or a name the sentence itself calls a command, file, option,
 * package… ("the htpasswd command"). Hyphenated words are left out: "fine-grained" is English.
 */
const IDENTIFIER =
  /(^|[\s(“"'‘])(~?\/[\w.@+-]+)+\/?|(^|\s)--?[a-zA-Z][\w-]*|\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|\b[a-z][\w-]*\.(?!g\b|e\b)[a-z][\w.]*\b|\b[a-z]+\d[\w-]*\b|\b[A-Z][A-Z0-9_]{3,}\b|\b\w+\(\)|\b\w+=\S+|\b[\w.-]+ (command|program|package|option|directive|parameter|variable|tool|utility|daemon|file|key|bit|module|group|keyword)\b/;

export function satisfies(sentence: string, type: AnswerType): boolean {
  if (type === 'value') return /\d/.test(sentence) || NUMBER_WORDS.test(sentence);
  if (type === 'identifier') return IDENTIFIER.test(sentence);
  return true;
}
