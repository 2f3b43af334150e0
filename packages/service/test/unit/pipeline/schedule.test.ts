// Scheduling (processing/pipeline/schedule.ts): group sizes, read-ahead and flush timing, with sizes
// of the tests' own, never the tuned ones.
import { describe, expect, it } from 'vitest';
import { artifactKeys } from '../../../src/domain/artifacts.js';
import type { DocumentParser } from '../../../src/domain/ports.js';
import type { DocumentRecord } from '../../../src/domain/types.js';
import { processDocuments } from '../../../src/processing/pipeline/index.js';
import {
  FlushWindow,
  groupMembers,
  readAheadOf,
  type Schedule,
} from '../../../src/processing/pipeline/schedule.js';
import type { Prepared } from '../../../src/processing/pipeline/slot.js';
import { inProcessPreparer } from '../../../src/processing/prepare.js';
import { documentRecord } from '../../support/fakes.js';
import {
  deps,
  index,
  inProcessParser,
  objects,
  recordingParser,
  TEXT,
  upload,
  uploadSmall,
  usePipelineBench,
  WORKER,
  work,
} from '../../support/pipeline.js';

usePipelineBench();

/** Sizes of these tests' own: groups of 3 then 5 documents of up to 1 KiB, 4 KiB a group. */
const SMALL: Schedule = {
  flushAfterMs: Number.POSITIVE_INFINITY,
  flushTextBytes: Number.POSITIVE_INFINITY,
  groupDocumentBytes: 1024,
  groupDocuments: 5,
  firstGroupDocuments: 3,
  groupBytes: 4096,
  yieldAfterMs: 0,
};

const doc = (id: string, fields: Partial<DocumentRecord> = {}) =>
  documentRecord({ id, runId: 'run_1', sizeBytes: 100, attempts: 0, sha256: 'stored', ...fields });

describe('which documents form a group', () => {
  it('takes the first group smaller, then groups of their full size', () => {
    const docs = Array.from({ length: 12 }, (_, i) => doc(`doc_${i}`));
    expect(groupMembers(SMALL, true, docs, 0, true).map((d) => d.id)).toEqual(['doc_0', 'doc_1', 'doc_2']);
    expect(groupMembers(SMALL, true, docs, 3, false)).toHaveLength(5);
    expect(groupMembers(SMALL, true, docs, 8, false)).toHaveLength(4);
  });

  it('ends a group at its bytes, at a document too large or tried before, and at a change of stage', () => {
    const sized = [900, 1000, 1000, 1000, 900].map((sizeBytes, i) => doc(`doc_${i}`, { sizeBytes }));
    // 900 + 1000 + 1000 + 1000 = 3900; the fifth would pass 4096.
    expect(groupMembers(SMALL, true, sized, 0, false)).toHaveLength(4);
    const mixed = [
      doc('a'),
      doc('b'),
      doc('large', { sizeBytes: 2048 }),
      doc('c'),
      doc('retried', { attempts: 1 }),
      doc('d'),
      doc('e'),
      doc('item', { sourceId: 'src_1', sourceItem: 'item.md', sha256: null }),
    ];
    expect(groupMembers(SMALL, true, mixed, 0, false).map((d) => d.id)).toEqual(['a', 'b']);
    // Alone, nothing to group it with: no group.
    expect(groupMembers(SMALL, true, mixed, 3, false)).toEqual([]);
    // Stored originals and items fetched first start at different stages: never one group.
    expect(groupMembers(SMALL, true, mixed, 5, false).map((d) => d.id)).toEqual(['d', 'e']);
    // A parser that parses no groups makes none.
    expect(groupMembers(SMALL, false, mixed, 0, false)).toEqual([]);
  });

  it('reads ahead the bytes of a document fetched first, and the copy of one parsed alone', () => {
    expect(readAheadOf(SMALL, true, doc('url', { sourceUrl: 'https://example.com/a', sha256: null }))).toBe(
      'fetch',
    );
    expect(readAheadOf(SMALL, true, doc('large', { sizeBytes: 2048 }))).toBe('copy');
    // A small one is read with its group.
    expect(readAheadOf(SMALL, true, doc('small'))).toBeUndefined();
    expect(readAheadOf(SMALL, false, doc('small'))).toBe('copy');
    expect(readAheadOf(SMALL, true, undefined)).toBeUndefined();
  });
});

describe('when parsed documents are written', () => {
  const parsed = (id: string, textBytes: number): Prepared => ({
    kind: 'parsed',
    doc: doc(id),
    rows: [],
    textBytes,
    stored: Promise.resolve(),
    result: { status: 'ready', mediaType: 'text/plain', pageCount: null, chunkCount: 0, language: 'en' },
  });

  it('writes a window once its time has passed since its first document started, or at its text size', () => {
    const window = new FlushWindow({ ...SMALL, flushAfterMs: 1000, flushTextBytes: 100 });
    expect(window.due(false, 0)).toBe(false);
    window.add(parsed('a', 10), 500);
    window.add(parsed('b', 10), 900);
    expect(window.due(false, 1499)).toBe(false);
    expect(window.due(false, 1500)).toBe(true);
    expect(window.due(true, 501)).toBe(true);
    expect(window.take().map((p) => p.doc.id)).toEqual(['a', 'b']);
    expect(window.size).toBe(0);
    // The next window counts from its own first document, and its own text.
    window.add(parsed('c', 60), 2000);
    expect(window.due(false, 2999)).toBe(false);
    window.add(parsed('d', 40), 2100);
    expect(window.due(false, 2100)).toBe(true);
  });

  it('commits one window at the end when no bound is met, one per document when each passes it', async () => {
    const ids = ['doc_a', 'doc_b', 'doc_c', 'doc_d'];
    for (const id of ids) await upload(id, TEXT);
    const commits: string[][] = [];
    const replace = index.replaceDocuments.bind(index);
    index.replaceDocuments = async (workspaceId, documents) => {
      commits.push(documents.map((d) => d.documentId));
      return replace(workspaceId, documents);
    };
    const alone = { ...SMALL, groupDocumentBytes: 0 };
    await processDocuments(deps({ schedule: alone }), ids, WORKER);
    expect(commits).toEqual([ids]);

    commits.length = 0;
    for (const id of ids) await upload(id, TEXT, { runId: 'run_2' });
    await processDocuments(deps({ schedule: { ...alone, flushTextBytes: TEXT.length + 1 } }), ids, WORKER);
    // Each parsed text is at most TEXT's length: two of them pass the bound, one does not.
    expect(commits).toEqual([ids.slice(0, 2), ids.slice(2)]);

    commits.length = 0;
    for (const id of ids) await upload(id, TEXT, { runId: 'run_3' });
    await processDocuments(deps({ schedule: { ...alone, flushAfterMs: 0 } }), ids, WORKER);
    expect(commits).toEqual(ids.map((id) => [id]));
    for (const id of ids) expect(work.document(id)).toMatchObject({ status: 'ready' });
  });
});

describe('scheduling groups and read-ahead in a batch', () => {
  it('starts and parses the next group while the documents of the one before are chunked', async () => {
    const ids = await uploadSmall(12);
    const { parser, groups } = recordingParser();
    let detected = 0;
    const detectedAtStart: number[] = [];
    const start = work.startDocuments.bind(work);
    work.startDocuments = async (documentIds, workerId, stage) => {
      detectedAtStart.push(detected);
      return start(documentIds, workerId, stage);
    };
    const languages = {
      detect: async () => {
        detected++;
        return { language: 'en', reliable: true };
      },
    };
    await processDocuments(
      deps({ parser, preparer: inProcessPreparer(languages), schedule: SMALL }),
      ids,
      WORKER,
    );

    // The first group is small, so that its documents are searchable soon.
    expect(groups.map((g) => g.length)).toEqual([3, 5, 4]);
    // The second group was started before the first group's first document was read for its language.
    expect(detectedAtStart).toHaveLength(3);
    expect(detectedAtStart.slice(0, 2)).toEqual([0, 0]);
    for (const id of ids) expect(work.document(id)).toMatchObject({ status: 'ready', attempts: 1 });
  });

  it("reads the next group's originals while the group before it is parsed", async () => {
    const ids = await uploadSmall(8);
    // The first group is 3 documents (doc_00 to doc_02): doc_03 begins the second.
    let secondRead = false;
    const getBuffer = objects.getBuffer.bind(objects);
    objects.getBuffer = async (key) => {
      if (key === artifactKeys.original('doc_03')) secondRead = true;
      return getBuffer(key);
    };
    const readDuringFirstParse: boolean[] = [];
    const parser: DocumentParser = {
      parse: (input, signal) => inProcessParser.parse(input, signal),
      parseGroup: async (documents, group, signal) => {
        if (readDuringFirstParse.length === 0) readDuringFirstParse.push(secondRead);
        return inProcessParser.parseGroup!(documents, group, signal);
      },
    };
    await processDocuments(deps({ parser, schedule: SMALL }), ids, WORKER);

    expect(readDuringFirstParse).toEqual([true]);
    for (const id of ids) expect(work.document(id)).toMatchObject({ status: 'ready', attempts: 1 });
  });
});
