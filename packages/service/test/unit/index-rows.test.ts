import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Chunk } from '../../src/domain/types.js';
import { indexRowsOf, searchTerms } from '../../src/search/indexing.js';
import { wordCodes } from '../../src/search/word-codes.js';
import { languageFor } from '../../src/text/language.js';

/**
 * indexRowsOf reads a passage once for its word codes and its index terms; the definitions it must
 * agree with read it twice (wordCodes over the passage, searchTerms over its search text).
 */

// Stop words (indexed or not, by word and by stem), inflections, accents, apostrophes, digits and
// Chinese/Japanese runs, so that every branch of a word's reading is met.
const WORDS = [
  'the',
  'is',
  'was',
  'were',
  'be',
  'a',
  'of',
  'Running',
  'runs',
  'configuration',
  'configured',
  'don’t',
  'Debian',
  'apt-get',
  'x86_64',
  'v2.1',
  'und',
  'die',
  'Einstellungen',
  'für',
  'Häuser',
  "l'heure",
  'été',
  'les',
  'configuración',
  'los',
  'niño',
  '設定ファイル',
  'を',
  '変更します',
  '软件包管理',
  '的',
  '2024',
  'É',
  'ß',
  'İstanbul',
];
const text = fc
  .array(fc.oneof(fc.constantFrom(...WORDS), fc.string({ maxLength: 6 })), { maxLength: 40 })
  .map((ws) => ws.join(' '));
const heading = fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: 3 }).map((w) => w.join(' '));

describe('index rows', () => {
  it.each(['en', 'de', 'fr', 'es', 'ja', 'zh', 'nl', 'xx'])(
    'in %s, have the word codes and terms their definitions give',
    (code) => {
      const language = languageFor(code);
      fc.assert(
        fc.property(text, fc.option(heading), fc.array(heading, { maxLength: 3 }), (body, title, path) => {
          // Sometimes the passage starts with its heading, as a section's first chunk does.
          const passage = path.length && body.length % 2 ? `${path.at(-1)}\n\n${body}` : body;
          const chunk: Chunk = {
            id: 'c1',
            documentId: 'd1',
            ordinal: 0,
            text: passage,
            headingPath: path,
            pageStart: null,
            pageEnd: null,
            charStart: 0,
            charEnd: passage.length,
          };
          const [row] = indexRowsOf(
            { id: 'd1', filename: 'f.md', sourceUrl: null },
            { mediaType: 'text/markdown', title },
            [chunk],
            language,
          );
          expect(row!.terms).toBe(searchTerms(row!, language));
          expect([...row!.wordCodes!]).toEqual([...wordCodes(passage, language)]);
        }),
        { numRuns: 300 },
      );
    },
  );
});
