import { fixedLexicons, type SortedWordList } from '../../src/adapters/lexicon/word-list.js';
import { answerQuestion } from '../../src/answers/answer.js';
import { chunkText } from '../../src/processing/chunker.js';
import { indexRowsOf } from '../../src/search/indexing.js';
import { splitterFor } from '../../src/text/compounds.js';
import { languageFor } from '../../src/text/language.js';
import { MemorySearchIndex } from './fake-index.js';
import { keyPrincipal } from './fakes.js';

const german = languageFor('de');
const principal = keyPrincipal('acc', ['search'], 'key');

/**
 * A German workspace in memory, indexed as the worker indexes it (compounds split by `list`, when
 * given), and the answer operation over it, with `list` as German's lexicon.
 */
export async function germanWorkspace(documents: Record<string, string>, list: SortedWordList | undefined) {
  const index = new MemorySearchIndex();
  const split = list ? splitterFor(german, list) : undefined;
  for (const [name, text] of Object.entries(documents)) {
    const rows = indexRowsOf(
      { id: name, filename: `${name}.md`, sourceUrl: null },
      { mediaType: 'text/markdown', title: null },
      chunkText(text, name, german),
      german,
      split,
    );
    await index.replaceDocument('ws', name, rows);
  }
  const deps = {
    workspaces: {
      searchContext: async () => ({ language: 'de', languages: ['de'], visibility: undefined }),
    },
    documents: {
      liveDocuments: async (_w: string, ids: string[]) =>
        new Map(ids.map((id) => [id, { source: null, sourceItem: null, version: 1 }])),
    },
    index,
    lexicons: list ? fixedLexicons({ de: list }) : undefined,
  };
  return (q: string) => answerQuestion(deps, principal, { workspaceId: 'ws', q, topK: 3 });
}
