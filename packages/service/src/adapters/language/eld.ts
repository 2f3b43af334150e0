import type { DetectedLanguage, LanguageDetector } from '../../domain/ports.js';

/**
 * Language detection with eld (Efficient Language Detector: n-grams of 60 languages). Chosen by
 * measurement against franc, tinyld and cld3 on short and long texts of seven languages
 * (docs/decisions/0014-languages.md). Its smallest database is as accurate there as its larger
 * ones and costs about 30 MiB of heap instead of 60, so that is the one loaded, once, on first use.
 */
type Eld = typeof import('eld/extrasmall')['eld'];

/** eld's code for a language that has another, more usual, one. */
const CODES: Record<string, string> = { nb: 'no', nn: 'no' };

export class EldDetector implements LanguageDetector {
  private loading: Promise<Eld> | undefined;

  private detector(): Promise<Eld> {
    this.loading ??= import('eld/extrasmall').then(({ eld }) => eld);
    return this.loading;
  }

  async detect(text: string): Promise<DetectedLanguage | undefined> {
    if (!/\p{L}/u.test(text)) return undefined;
    const eld = await this.detector();
    const result = eld.detect(text);
    if (!result.language) return undefined;
    const code = (l: string) => CODES[l] ?? l;
    let scores: DetectedLanguage['scores'];
    return {
      language: code(result.language),
      reliable: result.isReliable(),
      // Built when read: questions weigh close languages, documents need only the best one (and
      // listing every language's score was a tenth of a document's detection).
      get scores() {
        scores ??= Object.entries(result.getScores())
          .map(([language, score]) => ({ language: code(language), score }))
          .sort((a, b) => b.score - a.score);
        return scores;
      },
    };
  }
}
