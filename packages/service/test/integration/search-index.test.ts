// Over 400 lines: one adapter's rows, formats, concurrency and maintenance, against real LanceDB tables.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { Field, Int32, Schema, Utf8 } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LanceSearchIndex, LEGACY_FTS_OPTIONS } from '../../src/adapters/index/lancedb.js';
import type { IndexRow } from '../../src/domain/ports.js';
import { chunkText } from '../../src/processing/chunker.js';
import { expandQuery } from '../../src/search/expansion.js';
import { indexRowsOf, searchText } from '../../src/search/indexing.js';
import { Question } from '../../src/search/question.js';
import { rescoreLexical } from '../../src/search/ranking.js';
import { wordCodes } from '../../src/search/word-codes.js';
import { ENGLISH } from '../../src/text/language.js';

/** The LanceDB adapter's rows: what goes in comes back, in tables of this version and of older ones. */

const PASSAGES = [
  'Vitamin D deficiency increases the risk of hip fracture in older patients.',
  'Fracture risk was not associated with vitamin intake in this cohort of runners.',
  'The committee approved the new library budget after a long debate.',
  'Risk of fracture rises when vitamin D is deficient, a review of trials found.',
  'Running shoes wear out after about five hundred miles of use.',
];

function rowsOf(documentId: string): IndexRow[] {
  let at = 0;
  const chunks = PASSAGES.map((text, ordinal) => {
    const chunk = {
      id: `${documentId}_${ordinal}`,
      documentId,
      ordinal,
      text,
      headingPath: ordinal < 2 ? ['Results'] : [],
      pageStart: ordinal + 1,
      pageEnd: ordinal + 1,
      charStart: at,
      charEnd: at + text.length,
    };
    at += text.length + 2;
    return chunk;
  });
  return indexRowsOf(
    { id: documentId, filename: 'study.pdf', sourceUrl: null },
    { mediaType: 'application/pdf', title: 'A study' },
    chunks,
  );
}

/** The table as the service wrote it before word codes existed. */
const OLD_SCHEMA = new Schema(
  [
    ['id', new Utf8(), false],
    ['document_id', new Utf8(), false],
    ['ordinal', new Int32(), false],
    ['text', new Utf8(), false],
    ['heading_path', new Utf8(), false],
    ['filename', new Utf8(), false],
    ['source_url', new Utf8(), true],
    ['media_type', new Utf8(), true],
    ['page_start', new Int32(), true],
    ['page_end', new Int32(), true],
    ['char_start', new Int32(), false],
    ['char_end', new Int32(), false],
    ['heading', new Utf8(), false],
    ['search_text', new Utf8(), false],
  ].map(([name, type, nullable]) => new Field(name as string, type as Utf8, nullable as boolean)),
);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'search-index-test-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const byId = (hits: { row: IndexRow }[]) => [...hits].sort((a, b) => (a.row.id < b.row.id ? -1 : 1));
/** A row as search reads it back: what the index holds for full-text search is not read. */
const asRead = ({ terms: _terms, ...row }: IndexRow): IndexRow => row;

describe('the LanceDB search index', () => {
  it("returns every field of a row as it was given, the text's word codes included", async () => {
    const index = new LanceSearchIndex(path.join(dir, 'new'));
    try {
      const rows = rowsOf('doc_a');
      await index.replaceDocument('ws_new', 'doc_a', rows);
      const hits = await index.search('ws_new', { text: 'vitamin fracture risk', limit: 10 });
      expect(hits.length).toBe(3);
      for (const h of hits) {
        expect(h.score).toBeGreaterThan(0);
        expect(h.row).toEqual(asRead(rows.find((r) => r.id === h.row.id)!));
        expect(h.row.wordCodes).toBeInstanceOf(Uint32Array);
      }
    } finally {
      await index.close();
    }
  });

  it("finds passages by the query's expansions, scored as a boolean query of them would score", async () => {
    const folder = path.join(dir, 'expansions');
    const index = new LanceSearchIndex(folder);
    try {
      const texts = [
        'Set the timezone of the machine with timedatectl.',
        'The time of day is kept by the clock; each zone has its own offset.',
        'The committee approved the new library budget after a long debate.',
      ];
      const rows = indexRowsOf(
        { id: 'doc_tz', filename: 'clock.md', sourceUrl: null },
        { mediaType: 'text/markdown', title: 'Clock' },
        texts.map((text, ordinal) => ({
          id: `doc_tz_${ordinal}`,
          documentId: 'doc_tz',
          ordinal,
          text,
          headingPath: [],
          pageStart: null,
          pageEnd: null,
          charStart: ordinal * 100,
          charEnd: ordinal * 100 + text.length,
        })),
      );
      await index.replaceDocument('ws_tz', 'doc_tz', rows);
      const q = 'How do I change the time zone?';
      const terms = ENGLISH.indexTerms(q).join(' ');
      const expansions = expandQuery(q, ENGLISH);
      expect(expansions).toEqual([ENGLISH.term('timezone')]);
      const scores = async (withExpansions: boolean) => {
        const hits = await index.search('ws_tz', {
          text: q,
          terms,
          limit: 10,
          expansions: withExpansions ? expansions : [],
        });
        return new Map(hits.map((h) => [h.row.id, h.score]));
      };
      expect([...(await scores(false)).keys()]).toEqual(['doc_tz_1']);
      const joined = await scores(true);
      expect([...joined.keys()].sort()).toEqual(['doc_tz_0', 'doc_tz_1']);
      // What the adapter asked before issue 25, a should-clause each, gives the same scores.
      const db = await lancedb.connect(folder);
      const table = await db.openTable('ws_tz');
      const clauses = [terms, ...expansions].map(
        (t) =>
          [lancedb.Occur.Should, new lancedb.MatchQuery(t, 'terms')] as [
            lancedb.Occur,
            lancedb.FullTextQuery,
          ],
      );
      const boolean = (await table
        .query()
        .fullTextSearch(new lancedb.BooleanQuery(clauses), { columns: ['terms'] })
        .select(['id', '_score'])
        .toArray()) as { id: string; _score: number }[];
      expect(boolean.map((r) => r.id).sort()).toEqual([...joined.keys()].sort());
      for (const r of boolean) expect(joined.get(r.id)! / r._score).toBeCloseTo(1, 5);
      table.close();
      db.close();
    } finally {
      await index.close();
    }
  });

  it('returns equal scores in the order of their row ids, whatever order the rows were written in', async () => {
    const index = new LanceSearchIndex(path.join(dir, 'ties'));
    try {
      // The same passages in documents written in an order their ids do not sort in.
      for (const d of ['doc_m', 'doc_c', 'doc_x', 'doc_a', 'doc_q'])
        await index.replaceDocument('ws_ties', d, rowsOf(d));
      const hits = await index.search('ws_ties', { text: 'library budget', limit: 20 });
      expect(hits.map((h) => h.row.id)).toEqual(['doc_a_2', 'doc_c_2', 'doc_m_2', 'doc_q_2', 'doc_x_2']);
      expect(new Set(hits.map((h) => h.score)).size).toBe(1);
    } finally {
      await index.close();
    }
  });

  it('searches a table made before languages as it was made, its rows ranking as the same rows with codes', async () => {
    // Two tables as the service wrote them before languages (the index analysing English text): one
    // from before word codes, one with them. Both are searched the way they were built, read back
    // as the same rows, and ranked alike whether codes are stored or computed from the text.
    const rows = rowsOf('doc_old');
    const db = await lancedb.connect(path.join(dir, 'old'));
    const legacyRecord = (r: IndexRow) => ({
      id: r.id,
      document_id: r.documentId,
      ordinal: r.ordinal,
      text: r.text,
      heading_path: JSON.stringify(r.headingPath),
      filename: r.filename,
      source_url: r.sourceUrl,
      media_type: r.mediaType,
      page_start: r.pageStart,
      page_end: r.pageEnd,
      char_start: r.charStart,
      char_end: r.charEnd,
      heading: r.heading,
      search_text: searchText(r),
    });
    const withoutCodes = await db.createEmptyTable('ws_old', OLD_SCHEMA);
    await withoutCodes.add(rows.map(legacyRecord));
    await withoutCodes.createIndex('search_text', { config: lancedb.Index.fts(LEGACY_FTS_OPTIONS) });
    const withCodes = await db.createEmptyTable('ws_coded', OLD_SCHEMA);
    await withCodes.add(rows.map(legacyRecord));
    await withCodes.createIndex('search_text', { config: lancedb.Index.fts(LEGACY_FTS_OPTIONS) });
    withoutCodes.close();
    withCodes.close();
    db.close();

    const index = new LanceSearchIndex(path.join(dir, 'old'));
    try {
      // The second table gets its codes by an ordinary replace (the upgrade adds the column).
      await index.replaceDocument(
        'ws_coded',
        'doc_old',
        rows.map((r) => ({ ...r, language: undefined })),
      );
      const q = 'vitamin D fracture risk';
      const old = await index.search('ws_old', { text: q, limit: 10 });
      expect(old.length).toBeGreaterThan(0);
      expect(old.every((h) => h.row.wordCodes === undefined && h.row.language === undefined)).toBe(true);
      const coded = await index.search('ws_coded', { text: q, limit: 10 });
      expect(coded.every((h) => h.row.wordCodes instanceof Uint32Array)).toBe(true);
      expect(byId(old).map((h) => ({ ...h.row, wordCodes: undefined }))).toEqual(
        byId(coded).map((h) => ({ ...h.row, wordCodes: undefined })),
      );
      for (const h of coded) expect(h.row.wordCodes).toEqual(wordCodes(h.row.text));
      // Same order and scores from the rescoring, whether it reads stored codes or codes the text.
      const ranked = (hits: typeof old) =>
        rescoreLexical(hits, new Question(q), 0.2, 0.1).map((h) => [h.row.id, h.score.toFixed(6)]);
      const withCodes = old.map((h) => ({ ...h, row: { ...h.row, wordCodes: wordCodes(h.row.text) } }));
      expect(ranked(old)).toEqual(ranked(withCodes));

      // New documents in the old table are written in its format and found by the same query.
      await index.replaceDocument('ws_old', 'doc_new', rowsOf('doc_new'));
      const both = await index.search('ws_old', { text: q, limit: 20 });
      const codedNow = both.filter((h) => h.row.documentId === 'doc_new');
      expect(codedNow.length).toBeGreaterThan(0);
      expect(codedNow.every((h) => h.row.wordCodes instanceof Uint32Array)).toBe(true);

      // A word is counted there as typed, for the table stems it itself: its term stemmed again may be
      // another ("committee" → "committe" → "committ") and miss the rows that hold the word.
      const committee = ENGLISH.term('committee');
      const counted = await index.termCounts(
        'ws_old',
        [{ term: committee, text: 'committee' }, { term: committee }],
        10,
      );
      expect(counted).toEqual({ rows: 10, counts: [2, 0] });
    } finally {
      await index.close();
    }
  });

  it('keeps a bounded number of tables open and reopens the others when they are used again', async () => {
    const index = new LanceSearchIndex(path.join(dir, 'many'), {}, { maxOpenTables: 2 });
    try {
      const workspaces = ['ws_1', 'ws_2', 'ws_3', 'ws_4'];
      for (const ws of workspaces) await index.replaceDocument(ws, `doc_${ws}`, rowsOf(`doc_${ws}`));
      expect(index.openTables).toBe(2);
      // Twice round, so every search after the first round finds its table let go and opens it again.
      for (const round of [1, 2]) {
        for (const ws of workspaces) {
          const hits = await index.search(ws, { text: 'vitamin fracture', limit: 10 });
          expect(
            hits.map((h) => h.row.documentId),
            `${ws}, round ${round}`,
          ).toEqual([`doc_${ws}`, `doc_${ws}`, `doc_${ws}`]);
          expect(index.openTables).toBeLessThanOrEqual(2);
        }
      }
      // Writes reach a table that was let go, too.
      await index.replaceDocument('ws_1', 'doc_more', rowsOf('doc_more'));
      expect(await index.countDocumentRows('ws_1', 'doc_more')).toBe(PASSAGES.length);
      expect(index.openTables).toBe(2);
    } finally {
      await index.close();
    }
  });
  it('lets searches of a table being created find nothing, and the write that creates it succeed', async () => {
    const index = new LanceSearchIndex(path.join(dir, 'created-while-searched'));
    const errors: string[] = [];
    let failedWrites = 0;
    try {
      for (let i = 0; i < 20; i++) {
        const ws = `ws_new_${i}`;
        let writing = true;
        // Clients polling a new workspace for their first results, as the first upload's batch is written.
        const searchers = Promise.all(
          Array.from({ length: 4 }, async () => {
            while (writing) {
              await index.search(ws, { text: 'vitamin', limit: 5 }).catch((e) => errors.push(String(e)));
              await index.termCounts(ws, [{ term: 'vitamin' }], 100).catch((e) => errors.push(String(e)));
              await new Promise((r) => setTimeout(r, Math.random() * 5));
            }
          }),
        );
        await new Promise((r) => setTimeout(r, Math.random() * 20));
        const documents = Array.from({ length: 50 }, (_, j) => ({
          documentId: `d${j}`,
          rows: rowsOf(`d${j}`),
        }));
        await index.replaceDocuments(ws, documents).catch(() => failedWrites++);
        writing = false;
        await searchers;
      }
      expect({ failedWrites, errors: errors.slice(0, 3) }).toEqual({ failedWrites: 0, errors: [] });
      expect(await index.search('ws_new_0', { text: 'vitamin', limit: 500 })).toHaveLength(150);
    } finally {
      await index.close();
    }
  });
});

describe('a dropped workspace', () => {
  it('leaves no table in the folder, and a process that still had it open finds nothing', async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), 'index-drop-'));
    const here = new LanceSearchIndex(folder);
    const there = new LanceSearchIndex(folder);
    try {
      const space = { model: 'openai:m1', dimension: 2 };
      await here.replaceDocument('ws_gone', 'doc_a', rowsOf('doc_a'));
      await here.replaceVectors('ws_gone', space, [
        {
          documentId: 'doc_a',
          rows: [{ id: 'doc_a_0', documentId: 'doc_a', vector: new Float32Array([1, 0]) }],
        },
      ]);
      await here.replaceDocument('ws_kept', 'doc_b', rowsOf('doc_b'));
      // Another process (a second server) has the table open and searched it.
      expect(await there.search('ws_gone', { text: 'vitamin fracture', limit: 10 })).toHaveLength(3);

      await here.dropWorkspace('ws_gone');
      const { readdir } = await import('node:fs/promises');
      expect((await readdir(folder)).sort()).toEqual(['ws_kept.lance']);
      expect(await there.search('ws_gone', { text: 'vitamin fracture', limit: 10 })).toEqual([]);
      expect(await there.search('ws_kept', { text: 'vitamin fracture', limit: 10 })).toHaveLength(3);
    } finally {
      await here.close();
      await there.close();
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe('batches and maintenance', () => {
  const versionsOf = async (uri: string, workspaceId: string) => {
    const db = await lancedb.connect(uri);
    const table = await db.openTable(workspaceId);
    try {
      return { version: await table.version(), versions: (await table.listVersions()).length };
    } finally {
      table.close();
      db.close();
    }
  };

  it('replaces several documents in one commit, each one whole', async () => {
    const uri = path.join(dir, 'batches');
    const index = new LanceSearchIndex(uri);
    try {
      await index.replaceDocument('ws_b', 'doc_first', rowsOf('doc_first'));
      const before = await versionsOf(uri, 'ws_b');
      await index.replaceDocuments('ws_b', [
        { documentId: 'doc_a', rows: rowsOf('doc_a') },
        { documentId: 'doc_b', rows: rowsOf('doc_b') },
        { documentId: 'doc_c', rows: rowsOf('doc_c') },
      ]);
      expect((await versionsOf(uri, 'ws_b')).version).toBe(before.version + 1);
      const ids = ['doc_first', 'doc_a', 'doc_b', 'doc_c', 'doc_none'];
      expect(Object.fromEntries(await index.countRowsByDocument('ws_b', ids))).toEqual({
        doc_first: 5,
        doc_a: 5,
        doc_b: 5,
        doc_c: 5,
        doc_none: 0,
      });

      // Again, as a retried batch does: doc_b now has fewer chunks; nothing is doubled or left over.
      await index.replaceDocuments('ws_b', [
        { documentId: 'doc_a', rows: rowsOf('doc_a') },
        { documentId: 'doc_b', rows: rowsOf('doc_b').slice(0, 2) },
      ]);
      expect(Object.fromEntries(await index.countRowsByDocument('ws_b', ids))).toEqual({
        doc_first: 5,
        doc_a: 5,
        doc_b: 2,
        doc_c: 5,
        doc_none: 0,
      });
      const b = await index.listRows('ws_b', null, 100);
      expect(b.filter((r) => r.documentId === 'doc_b').map((r) => r.id)).toEqual(['doc_b_0', 'doc_b_1']);
      await expect(
        index.replaceDocuments('ws_b', [{ documentId: 'doc_a', rows: rowsOf('doc_b') }]),
      ).rejects.toThrow(/another document/);
    } finally {
      await index.close();
    }
  });

  it("writes a large document's rows through its encoding thread, read back as given, in either table format", async () => {
    // Over a megabyte of text: encoded in the thread (row-encoder.ts) and handed to LanceDB's native
    // merge-insert as bytes. An entry that does not exist fails such a write, and only such a write.
    const big = (documentId: string) => {
      const text = Array.from(
        { length: 700 },
        (_, i) =>
          `Passage ${i} of ${documentId}. ${i === 350 ? 'Zebrafish regrow fins. ' : ''}${PASSAGES[i % 5]} `,
      )
        .join('')
        .repeat(20);
      const chunks = chunkText(text, documentId, ENGLISH);
      return indexRowsOf(
        { id: documentId, filename: 'big.txt', sourceUrl: null },
        { mediaType: 'text/plain', title: 'Big' },
        chunks,
      );
    };
    const rows = big('doc_big');
    expect(rows.reduce((n, r) => n + r.text.length, 0)).toBeGreaterThan(1024 * 1024);
    const entry = path.resolve(import.meta.dirname, '../../dist/encode.js');

    const broken = new LanceSearchIndex(
      path.join(dir, 'encoded-broken'),
      {},
      { encoderEntry: '/nonexistent/encode.js' },
    );
    try {
      await broken.replaceDocument('ws_e', 'doc_small', rowsOf('doc_small'));
      await expect(broken.replaceDocument('ws_e', 'doc_big', rows)).rejects.toThrow();
    } finally {
      await broken.close();
    }

    const index = new LanceSearchIndex(path.join(dir, 'encoded'), {}, { encoderEntry: entry });
    try {
      await index.replaceDocument('ws_e', 'doc_big', rowsOf('doc_big'));
      await index.replaceDocument('ws_e', 'doc_big', rows);
      const back = await index.listRows('ws_e', null, 10_000);
      expect(back.length).toBe(rows.length);
      expect(byId(back.map((row) => ({ row }))).map((h) => h.row)).toEqual(
        byId(rows.map((r) => ({ row: asRead(r) }))).map((h) => h.row),
      );
      const hits = await index.search('ws_e', { text: 'zebrafish', limit: 3 });
      expect(hits[0]!.row.text).toContain('Zebrafish regrow fins');
    } finally {
      await index.close();
    }

    // A table made before languages takes a large write in its own format.
    const legacyUri = path.join(dir, 'encoded-legacy');
    const db = await lancedb.connect(legacyUri);
    await db.createEmptyTable('ws_l', OLD_SCHEMA);
    db.close();
    const legacy = new LanceSearchIndex(legacyUri, {}, { encoderEntry: entry });
    try {
      await legacy.replaceDocument('ws_l', 'doc_big', rows);
      const back = await legacy.listRows('ws_l', null, 10_000);
      expect(back.length).toBe(rows.length);
      expect((await legacy.search('ws_l', { text: 'zebrafish', limit: 3 }))[0]!.row.text).toContain(
        'Zebrafish regrow fins',
      );
    } finally {
      await legacy.close();
    }
  });

  it('indexes the columns a narrowed search filters by, in new tables and in older ones at their next maintenance', async () => {
    const uri = path.join(dir, 'scalar');
    const index = new LanceSearchIndex(uri);
    const indexesOf = async (name: string) => {
      const db = await lancedb.connect(uri);
      const table = await db.openTable(name);
      try {
        const found = await table.listIndices();
        const stats = await Promise.all(found.map((i) => table.indexStats(i.name)));
        return Object.fromEntries(
          found.map((i, n) => [i.columns.join(), `${i.indexType}/${stats[n]?.numUnindexedRows ?? '?'}`]),
        );
      } finally {
        table.close();
        db.close();
      }
    };
    const space = { model: 'test', dimension: 2 };
    try {
      for (const d of ['doc_a', 'doc_b', 'doc_c'])
        await index.replaceDocument(
          'ws_s',
          d,
          rowsOf(d).map((r) => ({ ...r, language: d === 'doc_c' ? 'de' : 'en' })),
        );
      await index.upsertVectors('ws_s', space, [
        { id: 'doc_a_0', documentId: 'doc_a', vector: new Float32Array([1, 0]) },
      ]);
      // A table made before these indexes: they are dropped as if it had never had them.
      const db = await lancedb.connect(uri);
      for (const name of await db.tableNames()) {
        const table = await db.openTable(name);
        for (const i of await table.listIndices()) if (i.indexType !== 'FTS') await table.dropIndex(i.name);
        table.close();
      }
      db.close();
      expect(Object.keys(await indexesOf('ws_s'))).toEqual(['terms']);
      // Still searched rightly without them, then given them by maintenance, every row indexed.
      const narrowed = async () => ({
        only: await index.search('ws_s', { text: 'vitamin fracture', limit: 50, documentIds: ['doc_b'] }),
        except: await index.search('ws_s', {
          text: 'vitamin fracture',
          limit: 50,
          excludeDocumentIds: ['doc_b'],
          language: 'en',
        }),
      });
      const before = await narrowed();
      await index.optimize('ws_s');
      expect(await indexesOf('ws_s')).toEqual({
        terms: 'FTS/0',
        document_id: 'Bitmap/0',
        language: 'Bitmap/0',
      });
      const vectorTable = (await (await lancedb.connect(uri)).tableNames()).find((n) =>
        n.startsWith('ws_s__v_'),
      )!;
      expect(await indexesOf(vectorTable)).toEqual({ document_id: 'Bitmap/0' });
      const after = await narrowed();
      expect(new Set(after.only.map((h) => h.row.documentId))).toEqual(new Set(['doc_b']));
      expect(new Set(after.except.map((h) => h.row.documentId))).toEqual(new Set(['doc_a']));
      // The same rows either way (their BM25 scores move as maintenance folds rows into the index).
      const ids = (r: typeof before) => ({
        only: byId(r.only).map((h) => h.row.id),
        except: byId(r.except).map((h) => h.row.id),
      });
      expect(ids(after)).toEqual(ids(before));
    } finally {
      await index.close();
    }
  });

  it('optimize compacts, removes versions older than it keeps and says how many remain', async () => {
    const uri = path.join(dir, 'versions');
    const index = new LanceSearchIndex(uri, {}, { oldVersionsKeptSeconds: 1 });
    try {
      for (let d = 0; d < 6; d++) await index.replaceDocument('ws_v', `doc_${d}`, rowsOf(`doc_${d}`));
      const written = await versionsOf(uri, 'ws_v');
      expect(written.versions).toBeGreaterThan(6);
      // Everything was replaced within the last second: compacted, but the old versions stay for now.
      const first = await index.optimize('ws_v');
      expect(first.keptSeconds).toBe(1);
      expect(first.oldVersions).toBeGreaterThanOrEqual(written.versions);
      await new Promise((r) => setTimeout(r, 1100));
      expect(await index.optimize('ws_v')).toEqual({ oldVersions: 0, keptSeconds: 1 });
      expect((await versionsOf(uri, 'ws_v')).versions).toBe(1);
      const hits = await index.search('ws_v', { text: 'vitamin fracture', limit: 100 });
      expect(new Set(hits.map((h) => h.row.documentId)).size).toBe(6);
    } finally {
      await index.close();
    }
  });
});
