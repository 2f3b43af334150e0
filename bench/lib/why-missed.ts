import {
  type ExtractiveOptions,
  type Quote,
  rankQuotes,
} from '../../packages/service/src/answers/extractive.js';
import type { SearchHit } from '../../packages/service/src/domain/types.js';
import { answerPattern } from './manual-set.js';

/**
 * What a quoted answer that missed lacked (`--show why` of languages-tune and manual-tune), read from
 * the passages the answerer got and its quotes as it ranks them: none of the passages holds the
 * answer, no quote does (the answer split or cut), the quote that does holds less of the question's
 * words (rarity-weighted coverage) than the one chosen, or as much or more.
 */
export type Why = 'no passage' | 'no quote' | 'fewer words' | 'as many words';

/** A ranked quote as the tune scripts print it: passage, score, coverage, typed, text. */
export const formatQuote = (x: Quote) =>
  `[p${x.hitIndex + 1} s${x.score.toFixed(2)} c${x.coverage.toFixed(2)}${x.typed ? ' T' : ''}] ${x.text.slice(0, 160)}`;

/**
 * `quotes` are the answerer's quotes of `hits`, ranked (rankQuotes). `detail` is told the chosen quote
 * and the one holding the answer, when that one covers as much.
 */
export function whyMissed(
  hits: SearchHit[],
  quotes: Quote[],
  pattern: string,
  detail?: (text: string) => void,
): Why {
  const re = answerPattern(pattern);
  if (!hits.some((h) => re.test(h.text))) return 'no passage';
  const at = quotes.findIndex((x) => re.test(x.text));
  if (at < 0) return 'no quote';
  if (quotes[at]!.coverage < quotes[0]!.coverage) return 'fewer words';
  detail?.(`    chosen ${formatQuote(quotes[0]!)}\n    answer #${at + 1} ${formatQuote(quotes[at]!)}\n`);
  return 'as many words';
}
