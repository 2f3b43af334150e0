import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BuiltLexicons, loadWordList } from '../../src/adapters/lexicon/word-list.js';
import { loadWordNetLexicon, SUPPLEMENT } from '../../src/adapters/lexicon/wordnet.js';
import { packageRoot } from '../../src/paths.js';

// The built lexicon (`npm run build` writes dist/lexicon.txt; `npm test` builds first): an
// integration test, since a unit run in a fresh clone has no build.
describe('the WordNet lexicon the build writes', () => {
  it('is built from WordNet 3.1 with its notice (npm run build writes dist/lexicon.txt)', async () => {
    const lexicon = await loadWordNetLexicon(path.join(packageRoot(), 'dist', 'lexicon.txt'));
    expect(lexicon.size).toBeGreaterThan(80_000);
    for (const w of ['quota', 'allowance', 'tunnel', 'cockpit']) expect(lexicon.isWord(w), w).toBe(true);
    for (const w of ['haproxy', 'wireguard', 'btrfs']) expect(lexicon.isWord(w), w).toBe(false);
    // Names of things (nouns only, in any form) against words that are also verbs, adjectives or adverbs.
    for (const w of ['cockpit', 'rugby', 'headsets', 'dorms']) expect(lexicon.isNounOnly(w), w).toBe(true);
    for (const w of ['snap', 'often', 'clean', 'allowance', 'wireguard'])
      expect(lexicon.isNounOnly(w), w).toBe(false);
  });
});

describe('the English supplement', () => {
  it('adds only words that are no WordNet lemma', async () => {
    const lemmas = new Set(
      (await readFile(path.join(packageRoot(), 'dist', 'lexicon.txt'), 'utf8'))
        .split('\n')
        .filter((l) => l && !l.startsWith('#'))
        .map((l) => l.split(' ')[0]),
    );
    expect(SUPPLEMENT.filter((w) => lemmas.has(w))).toEqual([]);
  });
});

describe('the word lists the build writes', () => {
  it('hold the words of German, French and Spanish questions, and not the names of software', async () => {
    const cases = {
      de: ['wie', 'lange', 'dauert', 'Neustart', 'Urlaubstage', 'Sicherheitsaktualisierungen', 'öffne'],
      fr: ['combien', 'sauvegarde', 'réseau', 'serveur', 'pourquoi', 'éteint'],
      es: ['cuánto', 'días', 'copia', 'seguridad', 'servidor', 'ganó'],
    };
    for (const [code, words] of Object.entries(cases)) {
      const list = await loadWordList(code);
      expect(list.size, code).toBeGreaterThan(300_000);
      for (const w of words) expect(list.isWord(w), `${code} ${w}`).toBe(true);
      for (const w of ['nginx', 'wireguard', 'zram', 'podman'])
        expect(list.isWord(w), `${code} ${w}`).toBe(false);
    }
  });

  it("tell German's verbs and adjectives, which it writes in lower case, from its nouns", async () => {
    const list = await loadWordList('de');
    for (const w of ['verlassen', 'zuzugreifen', 'automatisch', 'tatsächlich'])
      expect(list.writtenLowerCase(w), w).toBe(true);
    for (const w of ['Benutzerkonto', 'Zuzug', 'Zeitzone', 'Druckerwarteschlange'])
      expect(list.writtenLowerCase(w), w).toBe(false);
  });

  it('are read on the first question in their language, and a language without one has none', async () => {
    const missing: string[] = [];
    const lexicons = new BuiltLexicons((code) => missing.push(code));
    expect((await lexicons.forLanguage('fr'))?.isWord('sauvegarde')).toBe(true);
    expect(await lexicons.forLanguage('ja')).toBeUndefined();
    expect(missing).toEqual([]);
  });
});
