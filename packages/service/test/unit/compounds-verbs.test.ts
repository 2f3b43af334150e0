import { describe, expect, it } from 'vitest';
import { fixedLexicons, SortedWordList } from '../../src/adapters/lexicon/word-list.js';
import { analyseQuestion } from '../../src/search/question.js';
import { germanWorkspace } from '../support/german-workspace.js';

/**
 * A German question's verbs and adjectives are not read as compounds (decision 0029): "zuzugreifen"
 * is a word the list writes in lower case, though it splits into the listed nouns "Zuzug" and "Reifen".
 */

const sorted = (words: string) => `# test list\n${words.split(/\s+/).sort().join('\n')}\n`;
// As the build writes German's lists: every form, and apart the forms it writes in lower case.
const LOWER = 'zuzugreifen braucht nutzen';
const list = new SortedWordList(
  sorted(`zuzug reifen gruppe benutzer modem router ${LOWER}`),
  true,
  new SortedWordList(sorted(LOWER)),
);
const context = { language: 'de', languages: ['de'] };

const QUESTION = 'Welche Gruppe braucht ein Benutzer, um auf das Modem zuzugreifen?';

describe("a German question's verbs", () => {
  it('are asked as written, not as the listed words they split into', async () => {
    const question = await analyseQuestion({ lexicons: fixedLexicons({ de: list }) }, QUESTION, context);
    expect(question.terms()).toContain('zuzugreif');
    expect(question.terms()).not.toContain('reif');
    expect(question.expansions()).not.toContain('reif');
    // A compound noun is still read as its parts.
    const noun = await analyseQuestion(
      { lexicons: fixedLexicons({ de: list }) },
      'Wo steht die Modemgruppe?',
      context,
    );
    expect(noun.terms()).toEqual(expect.arrayContaining(['mod', 'grupp']));
  });

  it('do not count twice in the answer: a sentence that only shares the verb is not quoted beside it', async () => {
    const ask = await germanWorkspace(
      {
        gruppen: '# Gruppen\n\nDie Gruppe dialout braucht ein Benutzer für das Modem.',
        netz: '# Netz\n\nWer auf ein Modem zuzugreifen versucht, fragt den Router.',
      },
      list,
    );
    const a = await ask(QUESTION);
    expect(a.citations[0]?.documentId).toBe('gruppen');
    expect(a.answer).toContain('dialout');
    // Read as "Zuzug" + "Reifen", the verb matched two of the question's words, and the router's
    // sentence ran on after the answer.
    expect(a.answer).not.toContain('Router');
  });
});
