import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type LanceCacheSizes, LanceSearchIndex } from '../../src/adapters/index/lancedb.js';
import type { IndexRow } from '../../src/domain/ports.js';

// Issue 7: every write is a new table version and every optimize a new BM25 index; LanceDB caches each
// of them, so a long-running service's memory follows its caches' bound. The bound must be ours.
const WORDS = 'alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega protein cell gene'.split(
  ' ',
);

function rowsFor(documentId: string, n: number, seed: number): IndexRow[] {
  return Array.from({ length: n }, (_, i) => {
    // Plain words that every query finds, and numbered ones that make each row's postings differ.
    const text = Array.from(
      { length: 60 },
      (_, j) =>
        `${WORDS[(i + j) % WORDS.length]} ${WORDS[(j * 3 + seed) % WORDS.length]}${(i * j + seed) % 97}`,
    ).join(' ');
    return {
      id: `${documentId}_${i}`,
      documentId,
      ordinal: i,
      text,
      headingPath: ['Title'],
      filename: `${documentId}.txt`,
      sourceUrl: null,
      mediaType: 'text/plain',
      pageStart: null,
      pageEnd: null,
      charStart: i * 1000,
      charEnd: i * 1000 + text.length,
      heading: 'Title',
    };
  });
}

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** Writes, optimizes and searches a workspace through many versions; returns the caches' size. */
async function churn(caches?: LanceCacheSizes): Promise<number> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'lance-caches-'));
  dirs.push(dir);
  const index = new LanceSearchIndex(dir, {}, caches ? { caches } : {});
  try {
    for (let d = 0; d < 12; d++) {
      await index.replaceDocument('ws_caches', `doc_${d}`, rowsFor(`doc_${d}`, 300, d));
      if (d % 3 === 2) await index.optimize('ws_caches');
      for (const q of ['gene', 'protein cell', 'omega kappa']) {
        expect((await index.search('ws_caches', { text: q, limit: 20 })).length).toBeGreaterThan(0);
      }
    }
    return Number(index.session.sizeBytes());
  } finally {
    await index.close();
  }
}

describe('LanceDB caches', () => {
  it('stay within the sizes the index is given, where the same work fills more than that by default', async () => {
    const bound = { indexBytes: 2 ** 20, metadataBytes: 2 ** 20 };
    const unbounded = await churn();
    const bounded = await churn(bound);
    // The workload must need more than the bound, or the second assertion would prove nothing.
    expect(unbounded).toBeGreaterThan(bound.indexBytes + bound.metadataBytes);
    expect(bounded).toBeLessThanOrEqual(bound.indexBytes + bound.metadataBytes);
  }, 120_000);
});
