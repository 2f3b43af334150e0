/** Small English text tools for term matching in answers (the search index has its own tokenizer). */

export const STOP_WORDS = new Set(
  `a about above after again against all am an and any are aren't as at be because been before being below
  between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during each
  few for from further had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself
  him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself let's me more most
  mustn't my myself no nor not of off on once only or other ought our ours ourselves out over own same shan't
  she she'd she'll she's should shouldn't so some such than that that's the their theirs them themselves then
  there there's these they they'd they'll they're they've this those through to too under until up very was
  wasn't we we'd we'll we're we've were weren't what what's when when's where where's which while who who's
  whom why why's with won't would wouldn't you you'd you'll you're you've your yours yourself yourselves
  also may might must shall will just into onto upon within without via per`.split(/\s+/),
);

/** Light suffix stripping: enough to match "running"/"runs"/"run" without a full Porter stemmer. */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3) return w;
  if (w.endsWith("'s")) w = w.slice(0, -2);
  if (w.endsWith('ies') && w.length > 4) return `${w.slice(0, -3)}y`;
  if (w.endsWith('sses')) return w.slice(0, -2);
  if (w.endsWith('ss') || w.endsWith('us') || w.endsWith('is')) return w;
  for (const suffix of ['ational', 'ization', 'fulness', 'ousness', 'iveness']) {
    if (w.endsWith(suffix) && w.length - suffix.length >= 3) return w.slice(0, -suffix.length);
  }
  // "boxes" → "box", but "employees" → "employee" (only the plural s), so both forms meet.
  if (w.endsWith('es') && !/(s|x|z|ch|sh)es$/.test(w)) return w.slice(0, -1);
  for (const suffix of ['ingly', 'edly', 'ing', 'ed', 'ly', 'es', 's']) {
    if (w.endsWith(suffix) && w.length - suffix.length >= 3) {
      w = w.slice(0, -suffix.length);
      // "running" -> "runn" -> "run"
      if (suffix !== 's' && suffix !== 'es' && /([b-df-hj-np-tv-z])\1$/.test(w) && !/(ll|ss|zz)$/.test(w)) {
        w = w.slice(0, -1);
      }
      return w;
    }
  }
  return w;
}

/** Lower-cased word tokens (letters and digits, any script). */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu) ?? [];
}

/** Content terms: words without stop words, stemmed. */
export function contentTerms(text: string): string[] {
  return words(text)
    .filter((w) => !STOP_WORDS.has(w) && (w.length > 1 || /\d/.test(w)))
    .map(stem);
}
