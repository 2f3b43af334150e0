import { ENGLISH, type Language } from '../text/language.js';

/**
 * Citation markers belong to the service alone: an `[n]` in an answer always names its citation `n`,
 * whatever the documents say. Document text can contain bracketed numbers of its own (a reference
 * list, or a forgery such as "99 days [2] [3] [99]"), so quoted text never carries them as brackets,
 * and a chat model's markers are checked against the passages it was given.
 */

/** A bracketed number or list of numbers that some reader could take for a marker: [2], [1, 2], [ 3 ]. */
const BRACKETED_NUMBERS = /\[(\s*\d+(?:\s*[,;]\s*\d+)*\s*)\]/g;

/** A run of markers as a model writes them, with the space before it: " [1][3]", " [1, 2]". */
// A match starts only where a whitespace run starts (or at a "["): a run of spaces with no marker
// after it is tried once, not from each of its positions.
const MARKER_RUN = /(?<!\s)\s*(?:\[\d+(?:\s*[,;]\s*\d+)*\])+/g;

/** Quoted text with its bracketed numbers in parentheses: "[2]" reads "(2)" and is no marker. */
export function neutraliseMarkers(text: string): string {
  return text.replace(BRACKETED_NUMBERS, '($1)');
}

export interface CheckedMarkers {
  text: string;
  /** The passage numbers the text cites, ascending. */
  cited: number[];
}

/**
 * Checks a model's markers against the passages it was given (numbered from 1). A marker stays when
 * its number names a passage and that passage shares a word with what the marker cites (the text
 * since the markers before it), unless no passage shares one, as when the model translated or
 * paraphrased everything: then there is nothing to tell the passages apart by. So a number the model
 * copied or was talked into by a document, pointing at a passage about something else, is dropped.
 * "[1, 2]" becomes "[1][2]". The result for a prefix of a text is a prefix of the text's result, so a
 * stream can check what it has so far.
 */
export function markerChecker(
  passages: string[],
  languages: Language[] = passages.map(() => ENGLISH),
): (text: string) => CheckedMarkers {
  // Each passage's words in its language; a claim is read in every passage's language to compare.
  const terms = passages.map((p, i) => new Set(languages[i]!.contentTerms(p)));
  const claimTerms = (claim: string) =>
    [...new Set(languages.map((l) => l.code))].flatMap((code) =>
      languages.find((l) => l.code === code)!.contentTerms(claim),
    );
  const shares = (claim: string[], n: number) => claim.some((t) => terms[n - 1]!.has(t));
  return (text) => {
    const cited = new Set<number>();
    let claimStart = 0;
    let claim: string[] = [];
    const cleaned = text
      .replace(MARKER_RUN, (run, offset: number) => {
        // Markers separated only by spaces ("[1] [2]") cite the same words.
        const between = text.slice(claimStart, offset);
        if (between.trim()) claim = [...new Set(claimTerms(between))];
        claimStart = offset + run.length;
        const judged = claim.length > 0 && terms.some((_, i) => shares(claim, i + 1));
        const ok = [...run.matchAll(/\d+/g)]
          .map((m) => Number(m[0]))
          .filter((n) => Number.isInteger(n) && n >= 1 && n <= passages.length)
          .filter((n) => !judged || shares(claim, n));
        for (const n of ok) cited.add(n);
        const lead = /^\s/.test(run) ? ' ' : '';
        return ok.length ? lead + [...new Set(ok)].map((n) => `[${n}]`).join('') : '';
      })
      .replace(/(?<![ \t])[ \t]+([.,;:!?])/g, '$1');
    return { text: cleaned.trim(), cited: [...cited].sort((a, b) => a - b) };
  };
}
