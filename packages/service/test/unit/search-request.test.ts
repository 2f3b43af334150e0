import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { checkRequest, REQUEST_BOUNDS, SearchFiltersShape } from '../../src/search/request.js';

/** One search and answer request for every face: its bounds checked by the operations (issue 42 §3). */

const limits = { maxQueryChars: 20, maxTopK: 50 };
const codeOf = (f: () => void): string | undefined => {
  try {
    f();
    return undefined;
  } catch (err) {
    return err instanceof AppError ? err.code : String(err);
  }
};

describe('checkRequest', () => {
  it('passes a request within the limits', () => {
    expect(
      codeOf(() => checkRequest({ q: 'vacation days', topK: 50, maxChunksPerDocument: 100 }, limits)),
    ).toBe(undefined);
  });

  it('refuses a query over the service limit with query_too_long', () => {
    expect(codeOf(() => checkRequest({ q: 'x'.repeat(21), topK: 5 }, limits))).toBe('query_too_long');
    // Without limits (an in-process caller) the query's length is the caller's business.
    expect(codeOf(() => checkRequest({ q: 'x'.repeat(21), topK: 5 }, undefined))).toBe(undefined);
  });

  it('refuses a topK or a per-document cap out of bounds', () => {
    for (const topK of [0, 51, 2.5])
      expect(
        codeOf(() => checkRequest({ q: 'x', topK }, limits)),
        String(topK),
      ).toBe('invalid_request');
    expect(codeOf(() => checkRequest({ q: 'x', topK: 5, maxChunksPerDocument: 0 }, limits))).toBe(
      'invalid_request',
    );
    expect(
      codeOf(() =>
        checkRequest(
          { q: 'x', topK: 5, maxChunksPerDocument: REQUEST_BOUNDS.maxChunksPerDocument + 1 },
          limits,
        ),
      ),
    ).toBe('invalid_request');
  });

  it('refuses metadata filters with too many values, a key at a time and in all', () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`);
    const perKey = { metadata: { team: many(REQUEST_BOUNDS.metadataValuesPerKey + 1) } };
    expect(codeOf(() => checkRequest({ q: 'x', topK: 5, filters: perKey }, limits))).toBe(
      'too_many_filter_values',
    );
    const keys = Object.fromEntries(Array.from({ length: 11 }, (_, k) => [`k${k}`, many(100)]));
    expect(codeOf(() => checkRequest({ q: 'x', topK: 5, filters: { metadata: keys } }, limits))).toBe(
      'too_many_filter_values',
    );
    const within = { metadata: { team: many(100), site: 'berlin' } };
    expect(codeOf(() => checkRequest({ q: 'x', topK: 5, filters: within }, limits))).toBe(undefined);
  });
});

describe('SearchFiltersShape', () => {
  it('accepts the four filters and refuses any other key', () => {
    expect(SearchFiltersShape.safeParse({ filenames: ['a.md'], mediaTypes: ['text/*'] }).success).toBe(true);
    expect(SearchFiltersShape.safeParse({ owner: 'me' }).success).toBe(false);
    expect(SearchFiltersShape.safeParse({ documentIds: ['not an id'] }).success).toBe(false);
  });
});
