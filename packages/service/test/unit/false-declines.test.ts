import { describe, expect, it } from 'vitest';
import { WordListLexicon } from '../../src/adapters/lexicon/wordnet.js';
import { composeExtractiveAnswer, FIRST_HIT_HOLDS } from '../../src/answers/extractive.js';
import { questionTermsIn, type TermStats, termStatsOf } from '../../src/answers/relevance.js';
import type { SearchHit } from '../../src/domain/types.js';
import { Question } from '../../src/search/question.js';
import { ENGLISH } from '../../src/text/language.js';
import { searchHit } from '../support/hits.js';

/**
 * Issue 41's false declines, through the extractive answerer with the workspace's term counts as the
 * index gives them (`termStatsOf`: its rows, and how many hold each term of the question): a
 * question whose first search hit holds most of its rare words is answered from that hit, and the
 * same questions asked of workspaces that do not hold their subject are still declined.
 */

/** English as WordNet has it for these questions: "libtasn1" and "libxml2" are no words of it. */
const lexicon = new WordListLexicon(
  'what do does is the refund policy purpose library manual page parcel gift card item price day delivery vacation employee get ship order'.split(
    ' ',
  ),
);

function ask(q: string, hits: SearchHit[], rows: number, held: Record<string, number>) {
  const question = new Question(q, { lexicon });
  const counts = new Map(Object.entries(held).map(([word, n]) => [ENGLISH.term(word), n]));
  const stats: TermStats = termStatsOf(questionTermsIn(question, [ENGLISH]), rows, counts);
  return composeExtractiveAnswer(question, hits, undefined, { stats });
}

// The libtasn1 manual as a PDF: page 1 is its title page, whose lines run into one sentence with the
// one that says what the library is (over 600 characters, so its quote is ranked below shorter ones),
// and every page is headed "GNU Libtasn1 API Reference Manual": the name is on all 60 rows.
const titlePage =
  'GNU Libtasn1 API Reference Manual for version 4.19.0, 22 August 2022, Fabio Fiorina, Simon Josefsson, ' +
  'Nikos Mavrogiannopoulos (help-libtasn1@gnu.org), Copyright 2001-2022 Free Software Foundation, Inc., ' +
  'permission is granted to copy, distribute and/or modify this document under the terms of the GNU Free ' +
  'Documentation License, Version 1.3 or any later version published by the Free Software Foundation, with ' +
  'no Invariant Sections, no Front-Cover Texts and no Back-Cover Texts, and a copy of the license is included ' +
  'in the section entitled GNU Free Documentation License; Libtasn1 is a library for ASN.1 parsing and DER ' +
  'encoding and decoding, used by GnuTLS, p11-kit and other packages.';
const manual = [
  searchHit('doc_manual', titlePage, { score: 0.3 }),
  searchHit(
    'doc_manual',
    'GNU Libtasn1 API Reference Manual 12. The libtasn1 functions return ASN1_SUCCESS.',
    {
      score: 0.19,
      charStart: 9_000,
    },
  ),
  searchHit(
    'doc_manual',
    'GNU Libtasn1 API Reference Manual 30. Programs link with -ltasn1 to use libtasn1.',
    {
      score: 0.18,
      charStart: 30_000,
    },
  ),
];

// A small shop's workspace (three rows): every page speaks of refunds, two of a policy; the terms
// page's paragraph on refunds sits under the heading "Refund policy", which is never quoted.
const shop = [
  searchHit(
    'doc_terms',
    '## Refund policy\n\nUnused items may be sent back within 30 days of delivery, and we refund the price to the card you paid with.',
    { score: 1.1 },
  ),
  searchHit(
    'doc_faq',
    '## Damaged parcels\n\nA parcel that arrives damaged is refunded at once: send us a photo of it.',
    {
      score: 1,
    },
  ),
  searchHit('doc_cards', '## Gift cards\n\nGift cards are valid for two years and cannot be refunded.', {
    score: 0.9,
  }),
];

describe('questions whose first search hit holds their rare words', () => {
  it('"What does libtasn1 do?" is answered from the page that says what libtasn1 is', () => {
    const a = ask('What does libtasn1 do?', manual, 60, { libtasn1: 60 });
    expect(a.kind).toBe('extractive');
    expect(a.citations[0]?.text).toContain('Libtasn1 is a library for ASN.1 parsing and DER encoding');
    expect(a.citations[0]?.charStart).toBe(0);
    // The model alone declines it: one word, on every row of the workspace, and a best quote (page 12's)
    // below the first hit's score; the first hit holds all the question asks about.
    expect(a.signals?.firstPassageCoverage).toBe(1);
  });

  it('"What is the refund policy?" is answered from the paragraph under "Refund policy"', () => {
    const a = ask('What is the refund policy?', shop, 3, { refund: 3, policy: 2 });
    expect(a.signals?.firstPassageCoverage).toBeGreaterThanOrEqual(FIRST_HIT_HOLDS);
    expect(a.kind).toBe('extractive');
    expect(a.citations[0]).toMatchObject({ documentId: 'doc_terms' });
    expect(a.citations[0]?.text).toContain('we refund the price to the card you paid with');
  });
});

describe('questions about what the workspace does not hold', () => {
  it('are still declined when they name something no passage uses', () => {
    expect(ask('What does libxml2 do?', manual, 60, { libxml2: 0 }).kind).toBe('declined');
  });

  it('are still declined when the workspace says nothing about their subject', () => {
    const noRefunds = [
      searchHit('doc_terms', '## Shipping\n\nWe ship every order within two working days.', { score: 0.4 }),
      searchHit(
        'doc_privacy',
        '## Privacy policy\n\nOur policy is to keep your address only to deliver your order.',
        {
          score: 0.9,
        },
      ),
    ];
    const a = ask('What is the refund policy?', noRefunds, 3, { refund: 0, policy: 1 });
    expect(a.signals?.firstPassageCoverage).toBeLessThan(FIRST_HIT_HOLDS);
    expect(a.kind).toBe('declined');
    expect(
      ask('How many vacation days do employees get?', shop, 3, { vacation: 0, day: 1, employee: 0 }).kind,
    ).toBe('declined');
  });
});
