import { describe, expect, it } from 'vitest';
import { sentenceSpans } from '../../src/text/sentences.js';

const sentences = (text: string) => sentenceSpans(text).map(([a, b]) => text.slice(a, b));

describe('sentenceSpans', () => {
  it('keeps a soft-wrapped paragraph as one sentence', () => {
    expect(sentences('The ferry to Lanmore\nleaves at nine. It returns at five.')).toEqual([
      'The ferry to Lanmore\nleaves at nine.',
      'It returns at five.',
    ]);
  });

  it('ends a heading line at its newline, even with text right below it', () => {
    expect(sentences('# Boats\nThe ferry to Lanmore leaves at nine.')).toEqual([
      '# Boats',
      'The ferry to Lanmore leaves at nine.',
    ]);
    expect(sentences('Intro text\n## Times\nDepartures are hourly.')).toEqual([
      'Intro text',
      '## Times',
      'Departures are hourly.',
    ]);
  });

  it('ends a table row at its newline, and the last row before the text below it', () => {
    expect(sentences('| type | size |\n| bigint | 8 bytes |\nNumbers wider than that overflow.')).toEqual([
      '| type | size |',
      '| bigint | 8 bytes |',
      'Numbers wider than that overflow.',
    ]);
  });

  it('does not split on abbreviations or numbered lists of figures', () => {
    expect(sentences('Use e.g. the apt tool. Version 3. 5 is old.')).toEqual([
      'Use e.g. the apt tool.',
      'Version 3. 5 is old.',
    ]);
  });
});
