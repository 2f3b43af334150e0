import { describe, expect, it } from 'vitest';
import { foldAccents, withinEdits } from '../../src/text/spelling.js';

describe('spelling', () => {
  it('folds accents', () => {
    expect(foldAccents('gospić')).toBe('gospic');
    expect(foldAccents('temüjin')).toBe('temujin');
  });

  it('counts insertions, deletions, substitutions and swapped neighbours as one edit each', () => {
    expect(withinEdits('throguh', 'through', 1)).toBe(true); // swapped neighbours
    expect(withinEdits('seperating', 'separating', 1)).toBe(true);
    expect(withinEdits('canonball', 'cannonball', 1)).toBe(true);
    expect(withinEdits('arpnet', 'arpanet', 1)).toBe(true);
    expect(withinEdits('wireguard', 'firewall', 2)).toBe(false);
    expect(withinEdits('tmux', 'tmpfs', 1)).toBe(false);
    expect(withinEdits('abc', 'abc', 0)).toBe(true);
  });
});
