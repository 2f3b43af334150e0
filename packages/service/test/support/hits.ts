import type { SearchHit } from '../../src/domain/types.js';

/**
 * A retrieved passage as the answerer gets it, for tests of the answerer: document `documentId`
 * (a file named after it), the text at `charStart` of the document's text, scored `score`.
 */
export function searchHit(
  documentId: string,
  text: string,
  options: { charStart?: number; score?: number; language?: string; extension?: 'html' | 'md' } = {},
): SearchHit {
  const { charStart = 0, score = 1, language, extension = 'md' } = options;
  return {
    text,
    score,
    ...(language ? { language } : {}),
    citation: {
      documentId,
      filename: `${documentId}.${extension}`,
      sourceUrl: null,
      mediaType: extension === 'html' ? 'text/html' : 'text/markdown',
      page: null,
      pageEnd: null,
      charStart,
      charEnd: charStart + text.length,
      chunkId: `${documentId}:0`,
      headingPath: [],
      score,
      source: null,
      sourceItem: null,
      version: 1,
    },
  };
}
