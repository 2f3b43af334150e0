import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { listDocumentPage, readDocumentText } from '../../src/documents/reading.js';
import { artifactKeys } from '../../src/domain/artifacts.js';
import type { ObjectStore } from '../../src/domain/ports.js';
import type { DocumentStore, WorkspaceStore } from '../../src/domain/stores.js';
import { textMapOf } from '../../src/domain/text-map.js';
import type { Audience, DocumentRecord, Principal } from '../../src/domain/types.js';
import { AppError } from '../../src/errors.js';
import { joinPages } from '../../src/parsing/markdown.js';

const principal: Principal = {
  accountId: 'acc_a',
  scopes: new Set(['artifacts']),
  keyId: 'key_a',
  userId: undefined,
  role: undefined,
  actor: 'dsk_test',
};

function doc(id: string, createdAt: number, extra: Partial<DocumentRecord> = {}): DocumentRecord {
  return {
    id,
    accountId: 'acc_a',
    workspaceId: 'ws_a',
    runId: 'run_a',
    filename: `${id}.md`,
    language: null,
    sourceUrl: null,
    declaredMediaType: null,
    mediaType: 'text/markdown',
    sizeBytes: 1,
    sha256: null,
    storageKey: `raw/${id}`,
    status: 'ready',
    stage: 'done',
    errorCode: null,
    errorMessage: null,
    pageCount: null,
    chunkCount: 1,
    metadata: {},
    access: null,
    attempts: 1,
    sourceId: null,
    sourceItem: null,
    version: 1,
    createdAt: new Date(createdAt),
    updatedAt: new Date(createdAt),
    finishedAt: null,
    ...extra,
  };
}

/** Documents and texts in memory, in the order the PostgreSQL store lists them (created, then id). */
function memory(
  docs: DocumentRecord[],
  texts: Record<string, string> = {},
  options: { maps?: boolean; step?: number } = { maps: true },
) {
  const rows = [...docs];
  const listed = () =>
    rows
      .filter((d) => d.status !== 'deleted')
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
  const workspaces = {
    getWorkspace: async ({ accountId }: Audience, id: string) =>
      accountId === 'acc_a' && id === 'ws_a'
        ? { id, accountId, name: null, access: null, createdAt: new Date(0) }
        : undefined,
  } as unknown as WorkspaceStore;
  const documents = {
    listDocuments: async () => listed(),
    getDocument: async ({ accountId }: Audience, id: string) =>
      listed().find((d) => d.id === id && d.accountId === accountId),
  } as unknown as DocumentStore;
  const store = { workspaces, documents };
  // Texts as the pipeline stores them; `maps` says which also have their map (older ones do not).
  const stored = new Map<string, Buffer>();
  for (const [id, text] of Object.entries(texts)) {
    stored.set(artifactKeys.text(id), Buffer.from(text, 'utf8'));
    if (options.maps)
      stored.set(artifactKeys.textMap(id), Buffer.from(JSON.stringify(textMapOf(text, options.step))));
  }
  const reads = { whole: 0, bytes: 0 };
  const objects = {
    getBuffer: async (key: string) => {
      if (key.endsWith('text.md')) reads.whole++;
      return stored.get(key);
    },
    getRange: async (key: string, start: number, end: number) => {
      const bytes = stored.get(key)?.subarray(start, end);
      reads.bytes += bytes?.length ?? 0;
      return bytes;
    },
    put: async (key: string, body: string) => void stored.set(key, Buffer.from(body)),
  } as unknown as ObjectStore;
  return { store, documents, objects, rows, reads, stored };
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    if (err instanceof AppError) return `${err.code}: ${err.message}`;
    throw err;
  }
}

describe('listDocumentPage', () => {
  const five = () => memory(['a', 'b', 'c', 'd', 'e'].map((id, i) => doc(id, 1000 + Math.floor(i / 2))));
  const ids = (page: { documents: DocumentRecord[] }) => page.documents.map((d) => d.id);

  it('pages through every document once, in order', async () => {
    const { store } = five();
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await listDocumentPage(store, principal, 'ws_a', { limit: 2, cursor });
      expect(page.total).toBe(5);
      seen.push(...ids(page));
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor);
    expect(seen).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(pages).toBe(3);
  });

  it('carries on after the cursor when its document was deleted, and is not shifted by new ones', async () => {
    const { store, rows } = five();
    const first = await listDocumentPage(store, principal, 'ws_a', { limit: 2 });
    expect(ids(first)).toEqual(['a', 'b']);
    rows.find((d) => d.id === 'b')!.status = 'deleted';
    rows.push(doc('f', 2000));
    const next = await listDocumentPage(store, principal, 'ws_a', { limit: 2, cursor: first.nextCursor! });
    expect(ids(next)).toEqual(['c', 'd']);
    const last = await listDocumentPage(store, principal, 'ws_a', { limit: 2, cursor: next.nextCursor! });
    expect(ids(last)).toEqual(['e', 'f']);
    expect(last.nextCursor).toBeNull();
  });

  it('filters by state, and refuses a cursor it did not make', async () => {
    const { store } = memory([doc('a', 1), doc('b', 2, { status: 'failed' }), doc('c', 3)]);
    const ready = await listDocumentPage(store, principal, 'ws_a', { limit: 10, status: 'ready' });
    expect([ids(ready), ready.total, ready.nextCursor]).toEqual([['a', 'c'], 2, null]);
    expect(
      await codeOf(listDocumentPage(store, principal, 'ws_a', { limit: 1, cursor: 'bm90IGpzb24' })),
    ).toMatch(/^invalid_request: The cursor/);
    expect(await codeOf(listDocumentPage(store, principal, 'ws_b', { limit: 1 }))).toMatch(
      /^workspace_not_found/,
    );
  });
});

describe('readDocumentText', () => {
  const pdfText = joinPages(['First page.', 'Second page, longer than the first.', 'Third.']);
  const setup = () =>
    memory([doc('p', 1, { pageCount: 3 }), doc('m', 2), doc('x', 3, { workspaceId: 'ws_b' })], {
      p: pdfText,
      m: '# Notes\n\nNo pages here.\n',
      x: 'another workspace',
    });
  const read = (id: string, request: Parameters<typeof readDocumentText>[4]) =>
    readDocumentText(setup(), principal, 'ws_a', id, request);

  it('cuts page ranges at the page markers, in the offsets of the whole text', async () => {
    const two = await read('p', { pageStart: 2, pageEnd: 2, maxChars: 1000 });
    expect(two.text.trim()).toBe('<!-- page 2 -->\n\nSecond page, longer than the first.');
    expect(pdfText.slice(two.charStart, two.charEnd)).toBe(two.text);
    expect([two.pageStart, two.pageEnd, two.nextOffset]).toEqual([2, 2, null]);
    const fromTwo = await read('p', { pageStart: 2, maxChars: 1000 });
    expect([fromTwo.text.endsWith('Third.'), fromTwo.pageStart, fromTwo.pageEnd]).toEqual([true, 2, 3]);
    const toTwo = await read('p', { pageEnd: 2, maxChars: 1000 });
    expect([toTwo.charStart, toTwo.pageStart, toTwo.pageEnd]).toEqual([0, 1, 2]);
  });

  it('windows by offset and maxChars, naming where the rest continues', async () => {
    const start = pdfText.indexOf('Second');
    const w = await read('p', { offset: start, maxChars: 6 });
    expect([w.text, w.charStart, w.charEnd, w.nextOffset, w.pageStart, w.pageEnd]).toEqual([
      'Second',
      start,
      start + 6,
      start + 6,
      2,
      2,
    ]);
    // Within a page range, the window stops at the range's end.
    const last = await read('p', {
      pageStart: 2,
      pageEnd: 2,
      offset: pdfText.indexOf('first.'),
      maxChars: 1000,
    });
    expect([last.text.trim(), last.nextOffset]).toEqual(['first.', null]);
  });

  it('refuses ranges the text does not have, and documents of other workspaces', async () => {
    expect(await codeOf(read('p', { pageStart: 4, maxChars: 10 }))).toMatch(
      /^invalid_request: .*has 3 pages/,
    );
    expect(await codeOf(read('p', { pageStart: 3, pageEnd: 1, maxChars: 10 }))).toMatch(
      /pageEnd comes before/,
    );
    expect(await codeOf(read('m', { pageStart: 1, maxChars: 10 }))).toMatch(/has no pages/);
    expect(await codeOf(read('p', { offset: pdfText.length + 1, maxChars: 10 }))).toMatch(/past the end/);
    expect(await codeOf(read('p', { pageEnd: 1, offset: pdfText.indexOf('Third'), maxChars: 10 }))).toMatch(
      /after the requested pages/,
    );
    expect(await codeOf(read('x', { maxChars: 10 }))).toBe('document_not_found: No document "x".');
  });
});

describe('readDocumentText reads windows, not whole texts (issue 44, finding 6)', () => {
  // Any text: several scripts, pairs of surrogates, lone halves (stored as U+FFFD, one unit still).
  const unit = fc.oneof(
    fc.constantFrom('a', ' ', '\n', 'é', '中', '😀', '\ud83d', '\ude00', '<!-- page 2 -->\n'),
    fc.string({ unit: 'binary', maxLength: 3 }),
  );
  const texts = fc.array(unit, { maxLength: 200 }).map((parts) => parts.join(''));

  it('gives what a slice of the whole text gives, reading only the marks around the window', async () => {
    await fc.assert(
      fc.asyncProperty(texts, fc.nat(), fc.integer({ min: 1, max: 60 }), async (raw, at, maxChars) => {
        // As stored and read back: lone surrogates become U+FFFD (one unit for one unit).
        const text = Buffer.from(raw, 'utf8').toString('utf8');
        const offset = text.length === 0 ? 0 : at % (text.length + 1);
        const step = 5;
        const m = memory([doc('t', 1)], { t: text }, { maps: true, step });
        const piece = await readDocumentText(m, principal, 'ws_a', 't', { offset, maxChars });
        expect(piece.text).toBe(text.slice(offset, offset + maxChars));
        expect([piece.charStart, piece.totalChars]).toEqual([offset, text.length]);
        expect(m.reads.whole).toBe(0);
        // The window and at most a step (and a surrogate pair's half) at either end, four bytes a unit.
        expect(m.reads.bytes).toBeLessThanOrEqual(4 * (piece.text.length + 2 * step + 2));
      }),
      { numRuns: 500 },
    );
  });

  it('maps a text stored before maps existed once, then reads windows of it', async () => {
    const text = joinPages(['One.', 'Two.', 'Three.']);
    const m = memory([doc('old', 1, { pageCount: 3 })], { old: text }, { maps: false });
    const first = await readDocumentText(m, principal, 'ws_a', 'old', {
      pageStart: 2,
      pageEnd: 2,
      maxChars: 100,
    });
    expect(first.text.trim()).toBe('<!-- page 2 -->\n\nTwo.');
    expect(m.reads.whole).toBe(1);
    expect(m.stored.has(artifactKeys.textMap('old'))).toBe(true);
    const again = await readDocumentText(m, principal, 'ws_a', 'old', { pageStart: 3, maxChars: 100 });
    expect(again.text.trim()).toBe('<!-- page 3 -->\n\nThree.');
    expect(m.reads.whole).toBe(1);
  });
});
