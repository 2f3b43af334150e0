import { describe, expect, it } from 'vitest';
import { fixedLexicons } from '../../src/adapters/lexicon/word-list.js';
import { WordListLexicon } from '../../src/adapters/lexicon/wordnet.js';
import { LARGE_WORKSPACE_PASSAGES } from '../../src/answers/absent.js';
import { answerQuestion } from '../../src/answers/answer.js';
import type { CountedTerm, IndexQuery, TermCounts } from '../../src/domain/ports.js';
import type { Principal } from '../../src/domain/types.js';
import { chunkText } from '../../src/processing/chunker.js';
import { indexRowsOf } from '../../src/search/indexing.js';
import { searchPassages } from '../../src/search/search.js';
import { ENGLISH } from '../../src/text/language.js';
import { MemorySearchIndex } from '../support/fake-index.js';

/**
 * After retrieval the extractive answerer asks the index about the question's words once: the
 * workspace's rows, each term's rows and the names of things no passage uses, in one call, however
 * many words the question has (issue 27).
 */

/** The in-memory index, noting which of its reads each answer makes. */
class NotingIndex extends MemorySearchIndex {
  reads: string[] = [];
  counted: string[][] = [];

  override async termCounts(workspaceId: string, terms: CountedTerm[], cap: number): Promise<TermCounts> {
    this.reads.push('termCounts');
    this.counted.push(terms.map((t) => t.term));
    return super.termCounts(workspaceId, terms, cap);
  }

  override async countRows(workspaceId: string): Promise<number> {
    this.reads.push('countRows');
    return super.countRows(workspaceId);
  }

  override async search(workspaceId: string, query: IndexQuery) {
    this.reads.push('search');
    return super.search(workspaceId, query);
  }
}

const principal: Principal = {
  accountId: 'acc',
  scopes: new Set(['search']),
  keyId: 'key',
  userId: undefined,
  role: undefined,
  actor: 'dsk_test',
};
const q = 'How often is the espresso machine descaled by the facilities team?';
const request = { workspaceId: 'ws', q, topK: 3 };

async function workspace() {
  const index = new NotingIndex();
  const add = (id: string, text: string) =>
    index.replaceDocument(
      'ws',
      id,
      indexRowsOf(
        { id, filename: `${id}.md`, sourceUrl: null },
        { mediaType: 'text/markdown', title: null },
        chunkText(text, id),
      ),
    );
  await add('doc_kitchen', 'The coffee machine is descaled every Friday by the facilities team.');
  for (let i = 0; i < LARGE_WORKSPACE_PASSAGES; i++)
    await add(`doc_room${i}`, `Meeting room ${i} is booked through the front desk.`);
  const lexicon = new WordListLexicon(
    ['espresso', 'machine', 'coffee', 'often', 'descale', 'facility', 'team', 'cup'],
    ['espresso', 'coffee', 'cup'],
  );
  const deps = {
    workspaces: { searchContext: async () => ({ language: 'en', languages: ['en'], visibility: undefined }) },
    documents: {
      liveDocuments: async (_w: string, ids: string[]) =>
        new Map(ids.map((id) => [id, { source: null, sourceItem: null, version: 1 }])),
    },
    index,
    lexicons: fixedLexicons({ en: lexicon }),
  };
  /** The index reads of an answer beyond those of its retrieval, and the answer. */
  const ask = async () => {
    index.reads = [];
    await searchPassages(deps, principal, request);
    const retrieval = index.reads.length;
    index.reads = [];
    index.counted = [];
    const answer = await answerQuestion(deps, principal, request);
    return { answer, reads: index.reads.slice(retrieval), counted: index.counted };
  };
  return { add, ask };
}

describe("the answerer's look-ups in the workspace", () => {
  it('count the question words and the names no passage uses in one call, which decides the decline', async () => {
    const ws = await workspace();
    const { answer, reads, counted } = await ws.ask();
    expect(reads).toEqual(['termCounts']);
    expect(counted[0]).toEqual(
      expect.arrayContaining(
        ['espresso', 'machine', 'descaled', 'facilities', 'team'].map((w) => ENGLISH.term(w)),
      ),
    );
    expect(answer.kind).toBe('declined');

    await ws.add('doc_cups', 'Espresso cups are kept in the left cupboard.');
    const named = await ws.ask();
    expect(named.reads).toEqual(['termCounts']);
    expect(named.answer.answer).toContain('descaled every Friday');
  });
});
