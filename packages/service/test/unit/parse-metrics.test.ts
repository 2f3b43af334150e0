import { describe, expect, it } from 'vitest';
import {
  contentTokens,
  headingF1,
  headings,
  tableCellRecall,
  tableCells,
  tokenF1,
} from '../../../../bench/parse/metrics.js';

describe('parse benchmark metrics', () => {
  it('counts words, not markup: page markers, heading marks and table rules are ignored', () => {
    expect(contentTokens('<!-- page 2 -->\n\n## Café Menu\n\n| A | B |\n| - | - |\n| x1 | y |')).toEqual([
      'café',
      'menu',
      'a',
      'b',
      'x1',
      'y',
    ]);
  });

  it('scores token F1 as a bag of words with repeats', () => {
    expect(tokenF1('the cat sat', 'the cat sat').f1).toBe(1);
    const partial = tokenF1('the the cat', 'the cat sat down');
    expect(partial.precision).toBeCloseTo(2 / 3);
    expect(partial.recall).toBeCloseTo(2 / 4);
    expect(tokenF1('', 'something').f1).toBe(0);
  });

  it('measures table-cell recall over cells of Markdown tables only', () => {
    const expected = '| Year | Ducks |\n| - | - |\n| 2019 | 120 |';
    expect(tableCells(expected)).toEqual(['year', 'ducks', '2019', '120']);
    expect(tableCellRecall('| Year | Ducks |\n| --- | --- |\n| 2019 | 120 |', expected)).toBe(1);
    // The same words outside a table do not count as table cells.
    expect(tableCellRecall('Year Ducks 2019 120', expected)).toBe(0);
    expect(tableCellRecall('| Year | Ducks |\n| --- | --- |', expected)).toBe(0.5);
    expect(tableCellRecall('anything', 'no tables here')).toBeUndefined();
  });

  it('scores headings by their text, whatever their level', () => {
    expect(headings('# Title\n\ntext\n\n### 1.2 Scope')).toEqual(['title', '1 2 scope']);
    expect(headingF1('## Title\n\n## Extra', '# Title')).toMatchObject({ precision: 0.5, recall: 1 });
    expect(headingF1('Title', '# Title')?.f1).toBe(0);
    expect(headingF1('# Title', 'no headings')).toBeUndefined();
  });
});
