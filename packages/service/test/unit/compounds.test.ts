import { describe, expect, it } from 'vitest';
import { SortedWordList } from '../../src/adapters/lexicon/word-list.js';
import { compoundParts, splitterFor } from '../../src/text/compounds.js';
import { languageFor } from '../../src/text/language.js';
import { germanWorkspace } from '../support/german-workspace.js';

/** German compounds split into their parts, in the index and in questions (issue 41). */

// A word list as the build writes one (sorted, lower case, no accents), of the words these tests use.
const WORDS = `arbeit administrator benutzer datei dateien drucker druckers dateisystem eigen fest festplatte
  konto kopie last platte programmieren rasterung reparatur schlange schriften sicherung sonnen sonne schein
  sprache system text textwerk unter verteilung verzeichnisse warte warteschlange werkzeugen zeugen`
  .split(/\s+/)
  .sort()
  .join('\n');
const list = new SortedWordList(`# test list\n${WORDS}\n`, true);
const german = languageFor('de');
const parts = (w: string) =>
  compoundParts(
    w,
    (f) => list.lists(f),
    (x) => german.isStopWord(x),
  );

describe('splitting a compound', () => {
  it('reads it as the fewest known parts, each of four letters or more', () => {
    expect(parts('druckerwarteschlange')).toEqual(['drucker', 'warteschlange']);
    expect(parts('systemadministrator')).toEqual(['system', 'administrator']);
    expect(parts('dateisystemreparatur')).toEqual(['dateisystem', 'reparatur']);
  });

  it('drops a linking s, and keeps a part that is a word of its own with its n', () => {
    expect(parts('sicherungskopie')).toEqual(['sicherung', 'kopie']);
    expect(parts('sonnenschein')).toEqual(['sonnen', 'schein']);
  });

  it('prefers the longest last part, the word the compound names', () => {
    // "Textwerk" and "zeugen" are words too; the compound is text + Werkzeugen.
    expect(parts('textwerkzeugen')).toEqual(['text', 'werkzeugen']);
  });

  it('reads a verb stem as the verb', () => {
    expect(parts('programmiersprache')).toEqual(['programmieren', 'sprache']);
  });

  it('leaves whole what is no compound of known words, a short word, and a reading with a stop word', () => {
    expect(parts('verwaltung')).toBeUndefined();
    expect(parts('konto')).toBeUndefined();
    // "unter" is a stop word: Unterverzeichnisse stays whole rather than becoming "unter" + ….
    expect(parts('unterverzeichnisse')).toBeUndefined();
  });

  it('is off for a language without a word list, and for one that does not split compounds', () => {
    expect(splitterFor(german, { isWord: () => true, isNounOnly: () => false } as never)).toBeUndefined();
    expect(splitterFor(languageFor('en'), list)).toBeUndefined();
    expect(splitterFor(german, list)?.('benutzerkonto')).toEqual(['benutzer', 'konto']);
  });
});

const MANUAL = {
  druck: '# Drucken\n\nAufträge in der Warteschlange des Druckers löschen Sie mit dem Befehl lprm.',
  konto: '# Konten\n\nEin Benutzerkonto sperren Sie mit dem Befehl usermod --lock.',
  netz: '# Netzwerk\n\nDie Adresse eines Rechners zeigt der Befehl ip addr.',
};

describe('a German question', () => {
  it('written as one compound finds the passage that writes its parts apart', async () => {
    const ask = await germanWorkspace(MANUAL, list);
    const a = await ask('Wie lösche ich die Druckerwarteschlange?');
    expect(a.citations[0]?.documentId).toBe('druck');
    expect(a.answer).toContain('lprm');
  });

  it('written with the parts apart finds the passage that joins them', async () => {
    const ask = await germanWorkspace(MANUAL, list);
    const a = await ask('Wie sperre ich das Konto eines Benutzers?');
    expect(a.citations[0]?.documentId).toBe('konto');
    expect(a.answer).toContain('usermod --lock');
  });

  it("counts a compound's parts as held by the workspace only where a passage holds them together", async () => {
    // The decision's presence signal: the share of the question's weight the workspace holds.
    const presence = async (text: string) => {
      const ask = await germanWorkspace({ ...MANUAL, last: `# Last\n\n${text}` }, list);
      return (await ask('Was bewirkt die Lastverteilung?')).signals?.presence;
    };
    const together = await presence(
      'Die Verteilung der Last auf mehrere Rechner bewirkt der Befehl ipvsadm.',
    );
    const apart = await presence(
      'Die Last eines Rechners steigt mit jedem Dienst, und die Installation neuer Pakete bewirkt ihre Verteilung auf die Bereiche des Archivs.',
    );
    expect(together).toBe(1);
    // Load balancing is not what a page about load and, elsewhere, distribution answers.
    expect(apart).toBeLessThan(0.5);
  });

  it('finds neither without the word list (the compounds stay whole)', async () => {
    const ask = await germanWorkspace(MANUAL, undefined);
    const joined = await ask('Wie lösche ich die Druckerwarteschlange?');
    const apart = await ask('Wie sperre ich das Konto eines Benutzers?');
    expect(joined.citations.map((c) => c.documentId)).not.toContain('druck');
    expect(apart.citations[0]?.documentId).not.toBe('konto');
  });
});
