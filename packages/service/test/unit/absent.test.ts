import { describe, expect, it } from 'vitest';
import { WordListLexicon } from '../../src/adapters/lexicon/wordnet.js';
import { asksAboutSomethingAbsent, wordsToLookUp } from '../../src/answers/absent.js';
import type { SearchHit } from '../../src/domain/types.js';

const hit = (text: string): SearchHit => ({
  text,
  score: 1,
  citation: {
    documentId: 'doc_a',
    filename: 'a.md',
    chunkId: 'doc_a:0',
    page: null,
    charStart: 0,
    charEnd: text.length,
    mediaType: 'text/markdown',
    sourceUrl: null,
  } as SearchHit['citation'],
});
const lexicon = new WordListLexicon(
  'web console port listen cockpit dorm often clean coffee machine feed entire wire guard tunnel set server'.split(
    ' ',
  ),
  ['cockpit', 'dorm', 'coffee', 'port', 'console', 'server', 'tunnel'],
);

describe('words a question names that the passages do not', () => {
  it('lists the names of things no passage uses, leaving out other words, short words, names and near spellings', () => {
    const webmin = hit('This server listens by default on port 10000 and serves the web console.');
    expect(wordsToLookUp('Which port does the Cockpit web console listen on?', [webmin], lexicon)).toEqual([
      'cockpit',
    ]);
    // "often" and "clean" are no names of things; "dorms" is one edit from the passage's "dorm".
    const coffee = hit('The coffee machine in the dorm is descaled every Friday.');
    expect(wordsToLookUp('How often do I clean the coffee machine of the dorms?', [coffee], lexicon)).toEqual(
      [],
    );
    expect(wordsToLookUp('How often do I clean the cockpit?', [coffee], lexicon)).toEqual(['cockpit']);
    // Not an English word: a name, checked against the passages only (asksAboutSomethingAbsent).
    expect(
      wordsToLookUp('How do I set up a WireGuard tunnel?', [hit('A tunnel is set up.')], lexicon),
    ).toEqual([]);
  });

  it('declines for a thing the workspace never names, and for a name no passage uses', () => {
    const webmin = hit('This server listens by default on port 10000 and serves the web console.');
    const q = 'Which port does the Cockpit web console listen on?';
    expect(asksAboutSomethingAbsent(q, [webmin], lexicon)).toBe(false);
    expect(asksAboutSomethingAbsent(q, [webmin], lexicon, new Set(['cockpit']))).toBe(true);
    const tunnel = hit(
      'To set up a tunnel between two servers, the OpenVPN package provides everything needed.',
    );
    expect(asksAboutSomethingAbsent('How do I set up a WireGuard tunnel?', [tunnel], lexicon)).toBe(true);
  });

  it('lets two words typed as one pass when the passages use one of them, and a misspelt word', () => {
    const salps = hit('The cydippid Lampea feeds exclusively on salps.');
    expect(asksAboutSomethingAbsent('Which cydippid feedsentirely on salps?', [salps], lexicon)).toBe(false);
    expect(asksAboutSomethingAbsent('Which cydippid feeds on slaps?', [salps], lexicon)).toBe(false);
    // "wire" and "guard" are words, but no passage uses either.
    const tunnel = hit('A tunnel between two servers.');
    expect(asksAboutSomethingAbsent('How do I set up a wireguard tunnel?', [tunnel], lexicon)).toBe(true);
  });
});
