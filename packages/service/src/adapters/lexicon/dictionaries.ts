import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Log } from '../../domain/log.js';
import type { Dictionaries, Dictionary } from '../../domain/ports.js';

/**
 * A bilingual dictionary read from `<from>-<to>.tsv` (a headword, then its translations, tab-separated;
 * built at install time by scripts/dictionaries.mjs). Headwords sharing a key (the source language's
 * term: "Drucker" and "Druckers") share their translations, the first headword's first.
 */
export class TabularDictionary implements Dictionary {
  private readonly byKey = new Map<string, string[]>();

  constructor(text: string, keyOf: (word: string) => string) {
    for (const line of text.split('\n')) {
      const [head, ...translations] = line.split('\t');
      if (!head || translations.length === 0) continue;
      const key = keyOf(head);
      const known = this.byKey.get(key);
      if (!known) {
        this.byKey.set(key, translations);
        continue;
      }
      for (const t of translations) if (!known.includes(t)) known.push(t);
    }
  }

  get size(): number {
    return this.byKey.size;
  }

  translations(key: string): readonly string[] {
    return this.byKey.get(key) ?? [];
  }
}

/**
 * The dictionaries of a folder (DICTIONARIES_DIR), each read the first time a question needs it and
 * kept: German's is about 200,000 headwords (8 MB of text). A pair without a file has none, which
 * the question's analysis takes as "not translated" (its own language's reading only).
 */
export class FolderDictionaries implements Dictionaries {
  private readonly loaded = new Map<string, Promise<Dictionary | undefined>>();

  constructor(
    private readonly dir: string,
    private readonly log?: Log,
  ) {}

  forPair(from: string, to: string, keyOf: (word: string) => string): Promise<Dictionary | undefined> {
    const pair = `${from}-${to}`;
    let dictionary = this.loaded.get(pair);
    if (!dictionary) {
      dictionary = readFile(path.join(this.dir, `${pair}.tsv`), 'utf8').then(
        (text) => new TabularDictionary(text, keyOf),
        (err: NodeJS.ErrnoException) => {
          if (err.code !== 'ENOENT')
            this.log?.warn(
              { err, pair },
              'could not read this bilingual dictionary: questions are not translated by it',
            );
          return undefined;
        },
      );
      this.loaded.set(pair, dictionary);
    }
    return dictionary;
  }
}
