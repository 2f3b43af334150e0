import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LanceSearchIndex } from '../../src/adapters/index/lancedb.js';
import { fixedLexicons } from '../../src/adapters/lexicon/word-list.js';
import { loadWordNetLexicon } from '../../src/adapters/lexicon/wordnet.js';
import { LARGE_WORKSPACE_PASSAGES } from '../../src/answers/absent.js';
import { answerQuestion } from '../../src/answers/answer.js';
import { NOT_FOUND_ANSWER } from '../../src/answers/extractive.js';
import { chunkText } from '../../src/processing/chunker.js';
import { indexRowsOf } from '../../src/search/indexing.js';
import { searchWorkspace } from '../../src/search/search.js';

/**
 * The extractive answerer declines a question about a thing no passage of a large workspace names,
 * looked up in the real index (answers/absent.ts): the retrieved passages alone cannot tell "the
 * workspace never says it" from "the search ranked it lower".
 */
const ws = 'ws_absent';
const principal = {
  accountId: 'acc',
  scopes: new Set(['search'] as const),
  keyId: undefined,
  userId: undefined,
  role: undefined,
  actor: 'dsk_test',
};
let dir: string;
let index: LanceSearchIndex;

/** Indexes each text as a document of one passage, in one commit. */
async function add(...docs: [id: string, text: string][]) {
  const parsed = { mediaType: 'text/markdown', title: null };
  await index.replaceDocuments(
    ws,
    docs.map(([id, text]) => ({
      documentId: id,
      rows: indexRowsOf({ id, filename: `${id}.md`, sourceUrl: null }, parsed, chunkText(text, id)),
    })),
  );
  await index.optimize(ws);
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'docslurp-absent-'));
  index = new LanceSearchIndex(dir);
  await add(
    ['doc_kitchen', 'The coffee machine is descaled every Friday by the facilities team.'],
    ['doc_parking', 'Parking spaces are assigned by the office manager every quarter.'],
  );
});

afterAll(async () => {
  await index.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a question about a thing the workspace never names', () => {
  const deps = async () => ({
    workspaces: {
      searchContext: async () => ({ language: 'auto', languages: ['en'], visibility: undefined }),
    },
    documents: {
      liveDocuments: async (_w: string, ids: string[]) =>
        new Map(ids.map((id) => [id, { source: null, sourceItem: null, version: 1 }])),
    },
    index,
    lexicons: fixedLexicons({ en: await loadWordNetLexicon() }),
  });
  const q = 'How often is the espresso machine descaled?';
  const ask = async () => answerQuestion(await deps(), principal, { workspaceId: ws, q, topK: 1 });
  const best = async () =>
    (await searchWorkspace(await deps(), principal, { workspaceId: ws, q, topK: 1 })).map(
      (h) => h.citation.documentId,
    );

  it('is answered from the best passage in a small workspace, which may well never use the word', async () => {
    expect(await best()).toEqual(['doc_kitchen']);
    expect((await ask()).answer).toContain('descaled every Friday');
  });

  it('is declined in a large workspace that never uses the word, although a passage matches its other words', async () => {
    const rooms = Array.from({ length: LARGE_WORKSPACE_PASSAGES }, (_, i): [string, string] => [
      `doc_room${i}`,
      `Meeting room ${i} is booked through the front desk.`,
    ]);
    await add(...rooms);
    expect(await index.countRows(ws)).toBeGreaterThanOrEqual(LARGE_WORKSPACE_PASSAGES);
    expect(await best()).toEqual(['doc_kitchen']);
    expect(await ask()).toMatchObject({ answer: NOT_FOUND_ANSWER, citations: [], kind: 'declined' });
    // Without the lexicon no word can be told a noun: the passage is quoted.
    const without = await answerQuestion({ ...(await deps()), lexicons: undefined }, principal, {
      workspaceId: ws,
      q,
      topK: 1,
    });
    expect(without.answer).toContain('descaled every Friday');
  });

  it('is answered once another document names the thing, even when only the best passage is retrieved', async () => {
    await add(['doc_cups', 'Espresso cups are kept in the left cupboard.']);
    expect(await best()).toEqual(['doc_kitchen']);
    expect((await ask()).answer).toContain('descaled every Friday');
  });
});
