import { describe, expect, it } from 'vitest';
import { LruMap } from '../../src/lru.js';

describe('LruMap', () => {
  it('lets the least recently used entry go when it is full, reads counting as uses', () => {
    const m = new LruMap<string, number>(2);
    m.set('a', 1);
    m.set('b', 2);
    expect(m.get('a')).toBe(1);
    m.set('c', 3);
    expect(m.size).toBe(2);
    expect(m.get('b')).toBeUndefined();
    expect([m.get('a'), m.get('c')]).toEqual([1, 3]);
    // Setting an existing key replaces its value and makes it the most recent.
    m.set('a', 10);
    m.set('d', 4);
    expect([m.get('a'), m.get('c'), m.get('d')]).toEqual([10, undefined, 4]);
  });

  it('keeps falsy values and forgets deleted keys', () => {
    const m = new LruMap<string, number | undefined>(3);
    m.set('zero', 0);
    m.set('none', undefined);
    expect(m.get('zero')).toBe(0);
    m.delete('zero');
    expect(m.get('zero')).toBeUndefined();
    expect(m.size).toBe(1);
    expect(() => new LruMap(0)).toThrow(RangeError);
  });
});
