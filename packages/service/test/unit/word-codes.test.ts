import { describe, expect, it } from 'vitest';
import {
  codeCoverage,
  codedQuery,
  codeProximity,
  DuplicateFilter,
  withoutDuplicates,
  wordCodes,
} from '../../src/search/word-codes.js';
import { ENGLISH } from '../../src/text/language.js';

/** The terms of a text's content words in order, as the English reading gives them. */
const stemSequence = (text: string) =>
  ENGLISH.tokens(text)
    .filter((t) => !ENGLISH.isStopWord(t.word))
    .map((t) => ENGLISH.term(t.word));

/**
 * The signals' definitions over text, which the code versions must equal. Proximity: the share of the
 * query's adjacent content-word pairs (different stems) whose words occur within `window` content
 * words of each other in the passage. Coverage: the share of the query's distinct content stems the
 * passage has.
 */
function proximity(queryStems: string[], passage: string, window = 3): number {
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < queryStems.length; i++) {
    if (queryStems[i] !== queryStems[i + 1]) pairs.push([queryStems[i]!, queryStems[i + 1]!]);
  }
  if (pairs.length === 0) return 0;
  const seq = stemSequence(passage);
  const at = (t: string) => seq.flatMap((s, i) => (s === t ? [i] : []));
  const near = pairs.filter(([a, b]) => at(a).some((x) => at(b).some((y) => Math.abs(x - y) <= window)));
  return near.length / pairs.length;
}

function coverage(queryStems: string[], passage: string): number {
  const distinct = new Set(queryStems);
  const has = new Set(stemSequence(passage));
  return distinct.size ? [...distinct].filter((t) => has.has(t)).length / distinct.size : 0;
}

// Pieces chosen to hit every branch of the word pattern: case, digits, both apostrophes (followed by a
// letter, a digit or nothing), stop words with apostrophes, accented and non-Latin letters, an astral
// letter, combining marks, a letter whose lowercase form is longer (İ), Greek final sigma.
const PIECES = [
  'Running',
  'runs',
  'run',
  'the',
  'of',
  'EFFECT',
  'effects',
  "don't",
  'don’t',
  "aren't",
  "o'clock",
  "rock'n'roll",
  "x'5",
  "abc'",
  'O’Neil’s',
  'café',
  'naïve',
  'Ünïcödé',
  'İstanbul',
  'ΟΔΟΣ',
  'δρόμος',
  '東京',
  '𝐀𝐁c',
  'e\u0301te',
  'COVID-19',
  '3.14',
  'x2y',
  'studies',
  'boxes',
  'employees',
  'hopping',
  'nationalization',
  '—',
  '(',
  ').',
  '\n',
  '  ',
  "'",
  '’',
];

function randomText(seed: number, words: number): string {
  let x = seed;
  const next = () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x;
  };
  let out = '';
  for (let i = 0; i < words; i++) {
    out += PIECES[next() % PIECES.length];
    const sep = next() % 5;
    out += sep === 0 ? '' : sep === 1 ? ', ' : ' ';
  }
  return out;
}

describe('word codes', () => {
  it('code content words by stem and stop words by themselves, apart', () => {
    const [running, runs, the, The] = wordCodes('Running runs the THE');
    expect(running).toBe(runs);
    expect(the).toBe(The);
    expect(running! & 1).toBe(0);
    expect(the! & 1).toBe(1);
    expect(wordCodes('')).toEqual(new Uint32Array(0));
    expect(wordCodes("don't o’clock café 東京 x2y")).toHaveLength(5);
  });

  it('give the proximity of the text, over the heading and text joined by a newline', () => {
    const q = codedQuery('running effects');
    const parts = (heading: string, text: string) => [wordCodes(heading), wordCodes(text)];
    expect(codeProximity(q, parts('', 'the effect of a run'))).toBe(1);
    expect(codeProximity(q, parts('', 'run one two three four effect'))).toBe(0);
    expect(codeProximity(q, parts('Run', 'effects later'))).toBe(1);
    expect(codeProximity(codedQuery('effect'), parts('', 'effect'))).toBe(0);
    for (let seed = 1; seed <= 300; seed++) {
      const query = randomText(seed * 7919, 2 + (seed % 5));
      const heading = randomText(seed * 31, seed % 4);
      const text = randomText(seed, 5 + (seed % 80));
      const stems = stemSequence(query);
      for (const window of [1, 3, 6]) {
        expect(
          codeProximity(codedQuery(query), parts(heading, text), window),
          `${query} | ${heading} | ${text}`,
        ).toBe(proximity(stems, `${heading}\n${text}`, window));
      }
      expect(codeCoverage(codedQuery(query), parts(heading, text))).toBe(
        coverage(stems, `${heading}\n${text}`),
      );
    }
  });

  it('rank a passage that keeps the query words together above one that scatters them', () => {
    const q = 'vitamin D deficiency increases fracture risk';
    const close = 'Deficiency of vitamin D increases the risk of fracture.';
    const scattered =
      'Vitamin supplements were given daily; one day, D was measured. Deficiency in older patients increases, and fracture healing studies add many unrelated risk factors.';
    expect(codeProximity(codedQuery(q), [wordCodes(close)])).toBeGreaterThan(
      codeProximity(codedQuery(q), [wordCodes(scattered)]),
    );
    expect(proximity(stemSequence(q), close)).toBeGreaterThan(proximity(stemSequence(q), scattered));
  });
});

describe('near-duplicates', () => {
  it('are passages that repeat an earlier one up to spacing, punctuation, case and inflection', () => {
    const items = [
      'Badges must be worn at all times by every visitor.',
      'badges  must be worn, at all times by every visitor',
      'Badge must be worn at all time by every visitors.',
      'Visitors sign the log at the front desk.',
    ];
    expect(withoutDuplicates(items, (x) => x)).toEqual([items[0], items[3]]);
  });

  it('are not passages that share a phrase', () => {
    const filter = new DuplicateFilter();
    const base = 'The committee approved the budget for the new library after a long debate on Tuesday.';
    expect(filter.accept(wordCodes(base))).toBe(true);
    expect(filter.accept(wordCodes(`${base} Construction starts in spring and ends next year.`))).toBe(true);
    expect(filter.accept(wordCodes(base.toUpperCase()))).toBe(false);
  });
});
