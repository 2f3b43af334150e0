import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { EldDetector } from '../../src/adapters/language/eld.js';
import { FolderDictionaries, TabularDictionary } from '../../src/adapters/lexicon/dictionaries.js';
import { answerQuestion } from '../../src/answers/answer.js';
import type { Dictionaries } from '../../src/domain/ports.js';
import { packageRoot } from '../../src/paths.js';
import { analyseQuestion } from '../../src/search/question.js';
import { ENGLISH, languageFor } from '../../src/text/language.js';
import { keyPrincipal } from '../support/fakes.js';
import { memoryWorkspace } from '../support/memory-workspace.js';

/**
 * A question in one language over documents in another (issue 41): its content words are translated
 * with a bilingual dictionary and the workspace searched and quoted in its own language.
 */

const GERMAN = languageFor('de');
/** A German–English dictionary as scripts/dictionaries.mjs writes one: headword, then translations. */
const DE_EN = [
  'urlaubstag\tvacation day\tholiday',
  'mitarbeiter\temployee\tstaff member\tco-worker',
  'bekommen\tget\treceive\tobtain',
  'verloren\tlost',
  'laptop\tlaptop\tnotebook',
  'melden\treport\tnotify',
].join('\n');

const dictionaries = (text = DE_EN): Dictionaries => ({
  forPair: async (from, to, keyOf) =>
    from === 'de' && to === 'en' ? new TabularDictionary(text, keyOf) : undefined,
});

const DOCUMENTS: Record<string, string> = {
  leave:
    '# Leave\n\nEmployees get 25 days of paid vacation per year. Unused days may be carried over until March 31.',
  travel:
    '# Travel\n\nEconomy class is booked for flights under six hours. Receipts are submitted within 30 days.',
  laptops:
    '# Equipment\n\nEvery employee gets a laptop on the first day. Lost laptops are reported to the IT desk at once.',
};

async function englishWorkspace(withDictionaries: Dictionaries | undefined) {
  const deps = {
    ...(await memoryWorkspace(DOCUMENTS)),
    languages: new EldDetector(),
    dictionaries: withDictionaries,
  };
  return (q: string) =>
    answerQuestion(deps, keyPrincipal('acc', ['search']), { workspaceId: 'ws', q, topK: 5 });
}

describe('a question in a language the workspace is not written in', () => {
  it('a German question is answered from an English passage', async () => {
    const ask = await englishWorkspace(dictionaries());
    const a = await ask('Wie viele Urlaubstage bekommen die Mitarbeiter?');
    expect(a.kind).toBe('extractive');
    expect(a.citations[0]).toMatchObject({ documentId: 'leave' });
    expect(a.citations[0]?.text).toContain('Employees get 25 days of paid vacation per year.');
  });

  it('is not answered without a dictionary (what the translation gives)', async () => {
    const ask = await englishWorkspace(undefined);
    const a = await ask('Wie viele Urlaubstage bekommen die Mitarbeiter?');
    expect(a.citations.some((c) => c.text.includes('paid vacation'))).toBe(false);
  });

  it('keeps a word the dictionary lacks as it is: names and commands are written alike', async () => {
    const question = await analyseQuestion(
      { dictionaries: dictionaries() },
      'Was macht der Befehl ifconfig auf dem Laptop?',
      { language: 'de', languages: ['en'] },
    );
    const english = question.textIn(ENGLISH);
    expect(english).toContain('ifconfig');
    expect(english).toContain('notebook');
    // "Befehl" is in no entry of this dictionary: itself; stop words ("was", "der", "auf") are dropped.
    expect(english.split(' ')).not.toContain('der');
    expect(question.terms(ENGLISH)).toContain(ENGLISH.term('laptop'));
    // The German reading is the question's own words.
    expect(question.textIn(GERMAN)).toBe('Was macht der Befehl ifconfig auf dem Laptop?');
  });

  it('is not translated when the workspace is written in its language, or has no languages recorded', async () => {
    const deps = { dictionaries: dictionaries() };
    const q = 'Wie viele Urlaubstage bekommen die Mitarbeiter?';
    const inGerman = await analyseQuestion(deps, q, { language: 'de', languages: ['de', 'en'] });
    expect(inGerman.translations.size).toBe(0);
    const unrecorded = await analyseQuestion(deps, q, { language: 'de', languages: [] });
    expect(unrecorded.translations.size).toBe(0);
  });
});

describe('the answerer weighs a translated question in the senses its passages use', () => {
  const ask = (q: string) =>
    analyseQuestion({ dictionaries: dictionaries(`${DE_EN}\nbefehl\torder\tordinance\tcommand`) }, q, {
      language: 'de',
      languages: ['en'],
    });
  const passage = (text: string) => [{ text, language: ENGLISH }];

  it('takes the senses a passage holds among the first two, every sense having been searched for', async () => {
    const q = await ask('Wie viele Urlaubstage bekommen die Mitarbeiter?');
    expect(q.textIn(ENGLISH)).toContain('co-worker');
    const weighed = q.inSensesOf(passage('Every staff member gets 25 vacation days.')).textIn(ENGLISH);
    // "Urlaubstage" and "bekommen": their first senses are held; "Mitarbeiter": its second, not the others.
    expect(weighed).toBe('vacation day get staff member');
  });

  it('reads a word whose passages use only a later sense as its first, a word they do not hold', async () => {
    const q = await ask('Welcher Befehl zeigt die Urlaubstage?');
    const weighed = q.inSensesOf(passage('The command lists the vacation days.'));
    expect(weighed.textIn(ENGLISH).split(' ')).not.toContain('command');
    expect(weighed.terms(ENGLISH)).toContain(ENGLISH.term('order'));
  });
});

describe('bilingual dictionaries (adapters/lexicon/dictionaries.ts)', () => {
  it('looks a word up by its term, so that an inflected form finds its headword', () => {
    const d = new TabularDictionary('drucker\tprinter\ndruckers\tprinters\nurlaub\tvacation', (w) =>
      GERMAN.term(w),
    );
    expect(d.translations(GERMAN.term('druckern'))).toEqual(['printer', 'printers']);
    expect(d.translations(GERMAN.term('urlaubs'))).toEqual(['vacation']);
    expect(d.translations(GERMAN.term('tastatur'))).toEqual([]);
  });

  it('reads a folder of them, one file a pair, and has none for a pair without its file', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'dictionaries-'));
    try {
      await writeFile(path.join(dir, 'de-en.tsv'), DE_EN);
      const folder = new FolderDictionaries(dir);
      const keyOf = (w: string) => GERMAN.term(w.toLowerCase());
      expect((await folder.forPair('de', 'en', keyOf))?.translations(keyOf('Mitarbeitern'))).toContain(
        'employee',
      );
      expect(await folder.forPair('fr', 'en', keyOf)).toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('scripts/dictionaries.mjs (built at install time from FreeDict)', () => {
  it('writes a headword and its translations from a dictd dictionary, without grammar, labels or notes', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'dictd-'));
    try {
      // dictd: the definitions' text, and an index of headword, base-64 offset and length.
      const entries = [
        ['Drucker', 'Drucker /ˈdʁʊkɐ/ <masc, n, sg>\n [comp.] printer <n>\n   Synonym: {Printer}\n\n'],
        [
          'einrichten',
          'einrichten <v>\n1. configure <v>, set up <v>\n2. arrange (a room)\n   see: {eingerichtet}\n',
        ],
        ['auf Wiedersehen', 'auf Wiedersehen\ngoodbye\n'],
      ];
      const b64 = (n: number) => {
        const digits = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
        let s = '';
        do {
          s = digits[n % 64] + s;
          n = Math.floor(n / 64);
        } while (n > 0);
        return s;
      };
      let text = '';
      const index: string[] = [];
      for (const [head, body] of entries) {
        index.push(`${head}\t${b64(Buffer.byteLength(text))}\t${b64(Buffer.byteLength(body!))}`);
        text += body;
      }
      await writeFile(path.join(dir, 'freedict-deu-eng.dict'), text);
      await writeFile(path.join(dir, 'freedict-deu-eng.index'), `${index.join('\n')}\n`);
      const out = path.join(dir, 'out');
      await promisify(execFile)(process.execPath, [
        path.join(packageRoot(), 'scripts', 'dictionaries.mjs'),
        dir,
        out,
      ]);
      const lines = (await readFile(path.join(out, 'de-en.tsv'), 'utf8')).trim().split('\n');
      expect(lines).toEqual(['drucker\tprinter', 'einrichten\tconfigure\tset up\tarrange']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
