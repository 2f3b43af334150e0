import { ENGLISH_FORMS } from './english-forms-table.js';

/**
 * Word forms mapped to their base word where the stemmer keeps them apart: comparatives and
 * superlatives ("longer", "longest" → "long"), irregular plurals ("children" → "child") and verb
 * forms ("went" → "go", "wrote" → "write"). Snowball's English stemmer strips regular endings
 * ("booked" → "book") but leaves "longer" and "long" two words, so a question about "long flights"
 * missed the sentence saying business class is for "longer flights" (issue 41; decision 0024).
 *
 * English only: its table comes from WordNet (text/english-forms-table.ts). The other languages'
 * stemmers already read their comparatives (German "länger" → "lang"), compare with a word of their
 * own (French "plus long", Spanish "más largo"), or have no question set to measure a table on
 * (Dutch "langer", Swedish "längre").
 */
export type BaseForm = (word: string) => string | undefined;

let english: Map<string, string> | undefined;

/**
 * The base word of an English word form (lower case), or undefined when the stemmer reads the form
 * as it is. The table (about 4,900 forms) is read on the first word asked.
 */
export const englishBaseForm: BaseForm = (word) => {
  if (!english) english = formsOf(ENGLISH_FORMS);
  return english.get(word);
};

/** "form base form base …" lines as a map of form → base. */
export function formsOf(lines: readonly string[]): Map<string, string> {
  const forms = new Map<string, string>();
  for (const line of lines) {
    const words = line.split(' ');
    for (let i = 0; i + 1 < words.length; i += 2) forms.set(words[i]!, words[i + 1]!);
  }
  return forms;
}
