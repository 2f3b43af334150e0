import { describe, expect, it } from 'vitest';
import { proximity, stemSequence } from '../../src/search/passages.js';
import { contentStems, queryPairs, scanProximity } from '../../src/search/proximity-scan.js';

const scanned = contentStems;

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

describe('contentStems', () => {
  it('yields the stems of stemSequence, in order', () => {
    for (const text of ['', "The effects of running don't last.", 'ΟΔΟΣ İstanbul café o’clock x2y 𝐀𝐁c']) {
      expect(scanned(text)).toEqual(stemSequence(text));
    }
    for (let seed = 1; seed <= 300; seed++) {
      const text = randomText(seed, 1 + (seed % 60));
      expect(scanned(text), text).toEqual(stemSequence(text));
    }
  });

  it('stays right when its word table fills up and starts over', () => {
    const many = Array.from({ length: 300_000 }, (_, i) => `Word${i.toString(36)}ing`).join(' ');
    // Compared without toEqual: its diff of two 300,000-word lists would take minutes.
    const [got, want] = [scanned(many), stemSequence(many)];
    expect(got.length).toBe(want.length);
    expect(got.findIndex((s, i) => s !== want[i])).toBe(-1);
    const text = "The effects of running don't last.";
    expect(scanned(text)).toEqual(stemSequence(text));
  });
});

describe('scanProximity', () => {
  it('finds pairs near each other and ignores pairs far apart', () => {
    const q = queryPairs(stemSequence('running effects'));
    expect(scanProximity(q, ['', 'the effect of a run'])).toBe(1);
    expect(scanProximity(q, ['', 'run one two three four effect'])).toBe(0);
    expect(scanProximity(q, ['Run', 'effects later'])).toBe(1);
    expect(scanProximity(queryPairs(stemSequence('effect')), ['', 'effect'])).toBe(0);
  });

  it('equals proximity() over the heading and text joined by a newline', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const query = randomText(seed * 7919, 2 + (seed % 5));
      const heading = randomText(seed * 31, seed % 4);
      const text = randomText(seed, 5 + (seed % 80));
      const terms = stemSequence(query);
      for (const window of [1, 3, 6]) {
        expect(
          scanProximity(queryPairs(terms), [heading, text], window),
          `${query} | ${heading} | ${text}`,
        ).toBe(proximity(terms, `${heading}\n${text}`, window));
      }
    }
  });
});
