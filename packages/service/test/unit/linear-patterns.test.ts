import { describe, expect, it } from 'vitest';
import { piecesAfterMarkers } from '../../src/answers/answer.js';
import { unfinishedMarkerAt } from '../../src/answers/llm.js';
import { markerChecker } from '../../src/answers/markers.js';
import { neutralisePageMarkers } from '../../src/parsing/markdown.js';
import { blocksOf } from '../../src/processing/chunker.js';
import { trimEndWhile, withoutTrailingSlashes } from '../../src/strings.js';

/**
 * The code that replaced patterns the regex lint (eslint.regexp.config.mjs) found super-linear:
 * the same answers as the patterns gave on ordinary text, and one pass over the inputs that made
 * the patterns try a long run again from each of its positions (each of these would take a pattern
 * minutes at these sizes).
 */
const RUN = 200_000;

describe('linear replacements of super-linear patterns', () => {
  it('trims trailing characters', () => {
    expect(withoutTrailingSlashes('http://x/api//')).toBe('http://x/api');
    expect(withoutTrailingSlashes('///')).toBe('');
    expect(trimEndWhile('Not in the sources. . ', (c) => c === '.' || c === ' ')).toBe('Not in the sources');
    expect(withoutTrailingSlashes(`${'/'.repeat(RUN)}x`)).toHaveLength(RUN + 1);
  });

  it('cuts an answer after each marker', () => {
    expect(piecesAfterMarkers('A [1] b [2]\nc')).toEqual(['A [1] ', 'b [2]\n', 'c']);
    expect(piecesAfterMarkers('')).toEqual(['']);
    expect(piecesAfterMarkers('no markers')).toEqual(['no markers']);
    expect(piecesAfterMarkers(`${'['.repeat(RUN)}1`)).toEqual([`${'['.repeat(RUN)}1`]);
  });

  it('finds an unfinished marker at the end of a stream', () => {
    expect(unfinishedMarkerAt('The sky is blue [1, ')).toBe(15);
    expect(unfinishedMarkerAt('The sky is blue [1]')).toBe(-1);
    expect(unfinishedMarkerAt('The sky [2] is blue')).toBe(-1);
    expect(unfinishedMarkerAt('[')).toBe(0);
    expect(unfinishedMarkerAt(`${' '.repeat(RUN)}x`)).toBe(-1);
  });

  it('checks markers, and drops spaces before punctuation, in one pass over long runs of spaces', () => {
    const check = markerChecker(['The sky is blue.', 'Grass is green.']);
    expect(check('The sky is blue [1] .')).toEqual({ text: 'The sky is blue [1].', cited: [1] });
    expect(check(`Grass${' '.repeat(RUN)}x`).text).toBe(`Grass${' '.repeat(RUN)}x`);
  });

  it('neutralises page markers inside text, and not lines of blank lines', () => {
    expect(neutralisePageMarkers('a\n  <!-- page 3 -->\nb')).toBe('a\n  &lt;!-- page 3 -->\nb');
    expect(neutralisePageMarkers(`${'\n'.repeat(RUN)}x`)).toHaveLength(RUN + 1);
  });

  it('reads headings as before, and a line of hashes and spaces in one pass', () => {
    const [h] = blocksOf('##   Install the widget  ##  \n');
    expect(h).toMatchObject({ kind: 'heading', level: 2, title: 'Install the widget  ##' });
    expect(blocksOf('####### seven\n')[0]).toMatchObject({ kind: 'paragraph' });
    expect(blocksOf(`# a${' '.repeat(RUN)}#${' '.repeat(RUN)}x\n`)[0]).toMatchObject({ kind: 'heading' });
  });
});
