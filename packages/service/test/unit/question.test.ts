import { describe, expect, it } from 'vitest';
import { fixedLexicons, SortedWordList } from '../../src/adapters/lexicon/word-list.js';
import { composeExtractiveAnswer } from '../../src/answers/extractive.js';
import type { LanguageDetector } from '../../src/domain/ports.js';
import { analyseQuestion, Question } from '../../src/search/question.js';
import { splitterFor } from '../../src/text/compounds.js';
import { ENGLISH, type Language, languageFor } from '../../src/text/language.js';
import { searchHit } from '../support/hits.js';

/** A question analysed once and read alike by every stage after it (issue 42 §4). */

/** English whose question terms are counted each time they are read. */
function countingEnglish(): { language: Language; reads: () => number } {
  let reads = 0;
  const language = Object.create(ENGLISH, {
    questionTerms: {
      value: (q: string) => {
        reads++;
        return ENGLISH.questionTerms(q);
      },
    },
  }) as Language;
  return { language, reads: () => reads };
}

describe('Question', () => {
  it('reads its terms once for an answer: quotes, the relevance signals and the decision share them', () => {
    const { language, reads } = countingEnglish();
    const question = new Question('How long does the warranty cover parts?', { language });
    const a = composeExtractiveAnswer(question, [
      searchHit(
        'doc_a',
        'The warranty covers parts for two years. Labour is not covered after the first year.',
      ),
      searchHit('doc_a', 'Returns are accepted within 30 days of purchase with a receipt.'),
    ]);
    expect(a.answer).toContain('two years');
    // Quote ranking, the passages' statistics, the signals and both pair shares each asked for them.
    expect(reads()).toBe(1);
  });

  it('reads a passage of its own language with its own reading, and others with theirs', () => {
    const list = new SortedWordList('# test\ndrucker\nwarteschlange\n', true);
    const german = languageFor('de');
    const question = new Question('Wo steht die Druckerwarteschlange?', {
      language: german,
      workspaceLanguages: ['en', 'de'],
      split: splitterFor(german, list),
    });
    expect(question.readings.map((l) => l.code)).toEqual(['de', 'en']);
    expect(question.readingOf('de')).toBe(question.reading);
    expect(question.readingOf('en')).toBe(ENGLISH);
    expect(question.readingOf(undefined)).toBe(ENGLISH);
    // The answerer's reading asks for the compound's parts; the plain language keeps it whole.
    expect(question.terms()).toEqual(expect.arrayContaining(['druck', 'warteschlang']));
    expect(question.terms(german)).not.toContain('warteschlang');
    expect(question.expansions()).toEqual(expect.arrayContaining(['druck', 'warteschlang']));
  });
});

describe('analyseQuestion', () => {
  const workspace = { language: 'auto', languages: ['de'] };
  const sure = (language: string): LanguageDetector => ({
    detect: async () => ({ language, reliable: true, scores: [{ language, score: 0.9 }] }),
  });

  it('takes the detected language when the detector is sure, else the workspace’s one language', async () => {
    expect(
      (await analyseQuestion({ languages: sure('fr') }, 'Où est le fichier ?', workspace)).language.code,
    ).toBe('fr');
    const unsure: LanguageDetector = { detect: async () => ({ language: 'fr', reliable: false }) };
    expect((await analyseQuestion({ languages: unsure }, 'Datei?', workspace)).language.code).toBe('de');
  });

  it("keeps its language's word list only for the answerer, and splits compounds by it", async () => {
    const lexicons = fixedLexicons({
      de: new SortedWordList('# test\ndrucker\nwarteschlange\n', true),
    });
    const searched = await analyseQuestion(
      { languages: sure('de'), lexicons },
      'Druckerwarteschlange leeren',
      workspace,
    );
    expect(searched.lexicon).toBeUndefined();
    expect(searched.split?.('druckerwarteschlange')).toEqual(['drucker', 'warteschlange']);
    const asked = await analyseQuestion(
      { languages: sure('de'), lexicons },
      'Druckerwarteschlange leeren',
      workspace,
      true,
    );
    expect(asked.lexicon).toBeDefined();
  });
});
