import { describe, expect, it } from 'vitest';
import { SortedWordList } from '../../src/adapters/lexicon/word-list.js';
import { WordListLexicon } from '../../src/adapters/lexicon/wordnet.js';
import { asksAboutSomethingAbsent, namesSomethingAbsent, wordsToLookUp } from '../../src/answers/absent.js';
import type { SearchHit } from '../../src/domain/types.js';
import { ENGLISH, languageFor } from '../../src/text/language.js';

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

describe('words of other languages', () => {
  // Sorted forms, lower case without accents, as the build writes them.
  const german = new SortedWordList(
    '# a list\n' +
      ['auf', 'dauert', 'der', 'die', 'ein', 'einem', 'firewall', 'port', 'tage', 'urlaubs', 'wie', 'öffne']
        .map((w) => w.normalize('NFD').replace(/\p{M}/gu, ''))
        .sort()
        .join('\n'),
    true,
  );

  it('are looked up by halves in the sorted list, accents and case aside, German compounds by their parts', () => {
    expect(german.size).toBe(12);
    for (const w of ['Port', 'öffne', 'oeffne'.replace('oe', 'ö'), 'Urlaubstage', 'dauert'])
      expect(german.isWord(w), w).toBe(true);
    for (const w of ['ufw', 'nginx', 'urlaub', 'nginxtage']) expect(german.isWord(w), w).toBe(false);
    const french = new SortedWordList('abri\nzebre', false);
    expect(french.isWord('Zèbre')).toBe(true);
    expect(french.isWord('abrizebre')).toBe(false);
  });

  it('tell a German question naming something absent, as English does', () => {
    const de = languageFor('de');
    const firewall = hit('Die Firewall öffnet einen Port mit einem einzigen Befehl.');
    const asked = 'Wie öffne ich einen Port in der ufw-Firewall?';
    expect(asksAboutSomethingAbsent(asked, [firewall], german, new Set(), de)).toBe(true);
    const withUfw = hit('Mit ufw öffnet die Firewall einen Port: ufw allow 22.');
    expect(asksAboutSomethingAbsent(asked, [withUfw], german, new Set(), de)).toBe(false);
    // A word the list lacks and no passage uses is taken for a name: the list must hold the language.
    expect(
      asksAboutSomethingAbsent('Wie lange dauert ein Neustart?', [firewall], german, new Set(), de),
    ).toBe(true);
  });
});

describe('Latin names in a question of another script', () => {
  const web = hit('Веб-сервер Apache настраивается в каталоге /etc/apache2.');
  const nowhere = () => false;

  it('are names: one neither the passages nor the workspace use declines the question', () => {
    const ru = languageFor('ru');
    expect(namesSomethingAbsent('Как настроить nginx для нескольких сайтов?', [web], nowhere, ru)).toBe(true);
    expect(namesSomethingAbsent('Как настроить Apache для нескольких сайтов?', [web], nowhere, ru)).toBe(
      false,
    );
    // Held by the workspace outside the passages found: not absent.
    const held = (w: string) => w === 'nginx';
    expect(namesSomethingAbsent('Как настроить nginx для нескольких сайтов?', [web], held, ru)).toBe(false);
  });

  it('are no names in a question written in Latin letters that quotes another script', () => {
    const q = 'Does the Apache manual call its settings настройки, and where does nginx keep them?';
    expect(namesSomethingAbsent(q, [web], nowhere, ENGLISH)).toBe(false);
  });
});
