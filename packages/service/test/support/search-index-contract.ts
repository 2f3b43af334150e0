/**
 * The rules of the search index that the pipeline relies on, as one suite that runs against LanceDB
 * (integration) and against the in-memory fake the unit tests use (test/support/fake-index.ts).
 */
import { describe, expect, it } from 'vitest';
import type { IndexRow, SearchIndex } from '../../src/domain/ports.js';
import { indexRowsOf } from '../../src/search/indexing.js';
import { ENGLISH } from '../../src/text/language.js';

const WS = 'ws_contract';

function rows(documentId: string, texts: string[]): IndexRow[] {
  let at = 0;
  const chunks = texts.map((text, ordinal) => {
    const chunk = {
      id: `${documentId}_${ordinal}`,
      documentId,
      ordinal,
      text,
      headingPath: [],
      pageStart: null,
      pageEnd: null,
      charStart: at,
      charEnd: at + text.length,
    };
    at += text.length + 2;
    return chunk;
  });
  return indexRowsOf(
    { id: documentId, filename: `${documentId}.md`, sourceUrl: null },
    {
      mediaType: 'text/markdown',
      title: null,
    },
    chunks,
  );
}

export function searchIndexContract(
  name: string,
  make: () => Promise<{ index: SearchIndex; close(): Promise<void> }>,
) {
  describe(`the search index (${name})`, () => {
    const withIndex = (fn: (index: SearchIndex) => Promise<void>) => async () => {
      const f = await make();
      try {
        await fn(f.index);
      } finally {
        await f.close();
      }
    };

    it(
      'replaces each document of a batch as one set, leaving the others',
      withIndex(async (index) => {
        await index.replaceDocuments(WS, [
          { documentId: 'doc_a', rows: rows('doc_a', ['alpha one', 'alpha two', 'alpha three']) },
          { documentId: 'doc_b', rows: rows('doc_b', ['bravo one']) },
        ]);
        await index.replaceDocuments(WS, [{ documentId: 'doc_a', rows: rows('doc_a', ['alpha again']) }]);
        const counts = await index.countRowsByDocument(WS, ['doc_a', 'doc_b', 'doc_none']);
        expect(Object.fromEntries(counts)).toEqual({ doc_a: 1, doc_b: 1, doc_none: 0 });
        expect(await index.countDocumentRows(WS, 'doc_a')).toBe(1);
        expect(await index.countRows(WS)).toBe(2);
        expect(await index.countRows('ws_never_written')).toBe(0);
      }),
    );

    it(
      'counts the rows holding each term, up to the cap, with the rows of the workspace, in one call',
      withIndex(async (index) => {
        expect(await index.termCounts(WS, [{ term: 'zircon' }], 10)).toEqual({ rows: 0, counts: [0] });
        await index.replaceDocuments(WS, [
          { documentId: 'doc_a', rows: rows('doc_a', ['zircon crystals', 'zircon again', 'basalt']) },
          { documentId: 'doc_b', rows: rows('doc_b', ['a zircon mine', 'granite and basalt']) },
        ]);
        const [zircon, basalt, quartz] = ['zircon', 'basalt', 'quartz'].map((w) => ({
          term: ENGLISH.term(w),
          text: w,
        }));
        // In the order asked, a term asked twice counted twice.
        expect(await index.termCounts(WS, [zircon!, basalt!, quartz!, zircon!], 10)).toEqual({
          rows: 5,
          counts: [3, 2, 0, 3],
        });
        expect((await index.termCounts(WS, [zircon!, basalt!], 2)).counts).toEqual([2, 2]);
        expect(await index.termCounts(WS, [], 10)).toEqual({ rows: 5, counts: [] });
      }),
    );

    it(
      'removes one document, and finds the others by their words, within the documents asked for',
      withIndex(async (index) => {
        await index.replaceDocuments(WS, [
          { documentId: 'doc_a', rows: rows('doc_a', ['the zircon manual']) },
          { documentId: 'doc_b', rows: rows('doc_b', ['another zircon guide']) },
          { documentId: 'doc_c', rows: rows('doc_c', ['nothing related']) },
        ]);
        await index.deleteDocument(WS, 'doc_a');
        expect(await index.countDocumentRows(WS, 'doc_a')).toBe(0);
        const all = await index.search(WS, { text: 'zircon', limit: 10 });
        expect(all.map((h) => h.row.documentId)).toEqual(['doc_b']);
        const none = await index.search(WS, { text: 'zircon', limit: 10, documentIds: ['doc_c'] });
        expect(none).toEqual([]);
        const row = all[0]!.row;
        expect([row.text, row.filename, row.charStart]).toEqual(['another zircon guide', 'doc_b.md', 0]);
      }),
    );

    it(
      'drops a whole workspace, its vectors too, leaving the other workspaces; dropping again is harmless',
      withIndex(async (index) => {
        const space = { model: 'm', dimension: 2 };
        await index.replaceDocuments(WS, [
          { documentId: 'doc_a', rows: rows('doc_a', ['the zircon manual']) },
        ]);
        await index.replaceVectors(WS, space, [
          {
            documentId: 'doc_a',
            rows: [{ id: 'doc_a_0', documentId: 'doc_a', vector: new Float32Array([1, 0]) }],
          },
        ]);
        await index.replaceDocuments('ws_other', [
          { documentId: 'doc_b', rows: rows('doc_b', ['another zircon guide']) },
        ]);
        await index.dropWorkspace(WS);
        expect(await index.countDocumentRows(WS, 'doc_a')).toBe(0);
        expect(await index.countRows(WS)).toBe(0);
        expect(await index.search(WS, { text: 'zircon', limit: 10 })).toEqual([]);
        expect(await index.vectorIds(WS, space)).toEqual(new Set());
        const other = await index.search('ws_other', { text: 'zircon', limit: 10 });
        expect(other.map((h) => h.row.documentId)).toEqual(['doc_b']);
        await index.dropWorkspace(WS);
        await index.dropWorkspace('ws_never_written');
      }),
    );
  });
}
