import { chunkText } from '../../src/processing/chunker.js';
import { indexRowsOf } from '../../src/search/indexing.js';
import { MemorySearchIndex } from './fake-index.js';

/**
 * A workspace `ws` of Markdown documents (id → text) in the memory index, chunked and indexed as the
 * pipeline does, with the stores search and answers read: what an answer's tests and bench/walk.ts
 * ask questions of without a database. Its documents are recorded as written in `languages`.
 */
export async function memoryWorkspace(documents: Record<string, string>, languages: string[] = ['en']) {
  const index = new MemorySearchIndex();
  for (const [id, text] of Object.entries(documents))
    await index.replaceDocument(
      'ws',
      id,
      indexRowsOf(
        { id, filename: `${id}.md`, sourceUrl: null },
        { mediaType: 'text/markdown', title: null },
        chunkText(text, id),
      ),
    );
  return {
    index,
    workspaces: { searchContext: async () => ({ language: 'auto', languages, visibility: undefined }) },
    documents: {
      liveDocuments: async (_w: string, ids: string[]) =>
        new Map(ids.map((id) => [id, { source: null, sourceItem: null, version: 1 }])),
    },
  };
}
