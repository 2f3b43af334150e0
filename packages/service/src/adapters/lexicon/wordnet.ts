import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Lexicon } from '../../domain/ports.js';
import { packageRoot } from '../../paths.js';

/** Where the build writes WordNet's lemmas (packages/service/scripts/build.mjs). */
export const lexiconFile = () => path.join(packageRoot(), 'dist', 'lexicon.txt');

/**
 * English words WordNet lists only in inflected or function-word forms it leaves out: irregular
 * past forms and plurals, and the small words questions are made of. WordNet has lemmas, nouns,
 * verbs, adjectives and adverbs; the rest of English that people type is here, and nothing WordNet
 * or baseForms already gives (test/integration/lexicons.test.ts holds it to that).
 */
export const SUPPLEMENT: readonly string[] =
  `else since towards toward among amongst whose whether unless versus anyone anything anybody
  something everyone everything everybody although whereas whenever whichever whoever per via beside
  told went ran seen got gotten gave took brought bought meant met stood wrote shown did knew grew
  threw flew flown wore bitten fled hung spun lain woke woken fought caught taught slid dealt leapt
  learnt knelt crept slept wept became came began begun chose stolen froze forgot hid rode ridden
  eaten children women feet mice geese media criteria alumni analyses indices app offline
  login logout username smartphone`.split(/\s+/);

/** Base forms a word may come from: "servers" → "server", "stopped" → "stop", "biggest" → "big". */
function baseForms(word: string): string[] {
  const forms = [word];
  const rules: [string, string][] = [
    ['ies', 'y'],
    ['ied', 'y'],
    ['ier', 'y'],
    ['iest', 'y'],
    ['ves', 'f'],
    ['ves', 'fe'],
    ['es', ''],
    ['s', ''],
    ['ed', ''],
    ['ed', 'e'],
    ['d', ''],
    ['ing', ''],
    ['ing', 'e'],
    ['er', ''],
    ['er', 'e'],
    ['est', ''],
    ['est', 'e'],
    ['ly', ''],
    ['able', ''],
    ['able', 'e'],
    ['ible', ''],
    ['ness', ''],
    ['ment', ''],
  ];
  for (const [suffix, replacement] of rules) {
    if (!word.endsWith(suffix) || word.length - suffix.length < 2) continue;
    const base = word.slice(0, -suffix.length) + replacement;
    forms.push(base);
    // "stopped" → "stopp" → "stop", "biggest" → "bigg" → "big"
    if (!replacement && /([b-df-hj-np-tv-z])\1$/.test(base)) forms.push(base.slice(0, -1));
  }
  return forms;
}

export class WordListLexicon implements Lexicon {
  private readonly words: Set<string>;
  private readonly nouns: Set<string>;

  /** `nounsOnly`: the words known only as nouns (names of things, not of actions or qualities). */
  constructor(words: Iterable<string>, nounsOnly: Iterable<string> = []) {
    this.words = new Set([...words, ...SUPPLEMENT]);
    this.nouns = new Set(nounsOnly);
  }

  isWord(word: string): boolean {
    const w = word.toLowerCase();
    return baseForms(w).some((f) => this.words.has(f));
  }

  isNounOnly(word: string): boolean {
    const forms = baseForms(word.toLowerCase()).filter((f) => this.words.has(f));
    return forms.length > 0 && forms.every((f) => this.nouns.has(f));
  }

  get size(): number {
    return this.words.size;
  }
}

/** The lexicon the build wrote; a missing file is an error the caller reports (answers work without it). */
export async function loadWordNetLexicon(file = lexiconFile()): Promise<WordListLexicon> {
  const lines = (await readFile(file, 'utf8')).split('\n').filter((l) => l && !l.startsWith('#'));
  const entries = lines.map((l) => l.split(' '));
  return new WordListLexicon(
    entries.map(([w]) => w!),
    entries.filter(([, mark]) => mark === 'n').map(([w]) => w!),
  );
}
