import { describe, expect, it } from 'vitest';
import { composeExtractiveAnswer } from '../../src/answers/extractive.js';
import { Question } from '../../src/search/question.js';
import { ENGLISH_FORMS } from '../../src/text/english-forms-table.js';
import { ENGLISH, languageFor } from '../../src/text/language.js';
import { englishBaseForm, formsOf } from '../../src/text/word-forms.js';
import { searchHit } from '../support/hits.js';

/** Whether every content term of the question is among the sentence's. */
const matches = (question: string, sentence: string) => {
  const held = new Set(ENGLISH.contentTerms(sentence));
  return ENGLISH.questionTerms(question).every((t) => held.has(t));
};

describe('English word forms (text/word-forms.ts)', () => {
  it('finds "longer" by "long" and "long" by "longer"', () => {
    expect(matches('long flights', 'Business class is for longer flights.')).toBe(true);
    expect(matches('longer flights', 'Business class is for long flights.')).toBe(true);
    // The stemmer alone keeps them apart: what the table is for.
    expect(ENGLISH.term('longer')).not.toBe(ENGLISH.term('long'));
  });

  it('reads a superlative, an irregular plural and irregular verb forms as their base word', () => {
    expect(matches('the largest partition', 'a large partition')).toBe(true);
    expect(matches('the biggest file', 'a big file')).toBe(true);
    expect(matches('accounts for children', 'an account for each child')).toBe(true);
    expect(matches('mouse buttons', 'Both mice have three buttons.')).toBe(true);
    expect(matches('Who wrote the driver?', 'The maintainers write the driver.')).toBe(true);
    expect(matches('Where does the log go?', 'The log went to syslog.')).toBe(true);
  });

  it('keeps a form that is a word of its own apart from the base it could come from', () => {
    // "left" is a side as often as "leave"'s past; "matter" is no comparative of "matt".
    expect(englishBaseForm('left')).toBeUndefined();
    expect(englishBaseForm('matter')).toBeUndefined();
    expect(matches('leave the group', 'the left column')).toBe(false);
  });

  it('leaves the index terms and the query the index is asked as the stemmer makes them', () => {
    // A workspace indexed before holds "longer": its index and its word codes stay valid.
    expect(ENGLISH.indexTerms('longer flights')).toEqual(['longer', 'flight']);
    expect(ENGLISH.queryTerms('longer flights')).toEqual(['longer', 'flight']);
  });

  it('holds only forms the stemmer does not already bring to their base', () => {
    const forms = formsOf(ENGLISH_FORMS);
    expect(forms.size).toBeGreaterThan(4000);
    for (const [form, base] of forms) expect(ENGLISH.term(form), form).not.toBe(ENGLISH.term(base));
  });

  it('is English only: other languages read their terms by their stemmer alone', () => {
    const german = languageFor('de');
    expect(german.contentTerms('länger')).toEqual(german.contentTerms('lang'));
    expect(languageFor('fr').contentTerms('children')).toEqual(['children']);
  });

  it('answers the long-flights question with the business-class sentence (issue 41)', () => {
    const page = searchHit(
      'travel-policy',
      'Economy class is booked for every flight under six hours. Business class is booked for longer ' +
        'flights, over six hours. Premium economy is offered on request.',
    );
    const a = composeExtractiveAnswer(new Question('Which class is booked for long flights?'), [page]);
    expect(a.answer).toBe('Business class is booked for longer flights, over six hours. [1]');
    expect(a.citations[0]).toMatchObject({ documentId: 'travel-policy', charStart: 58 });
  });
});
