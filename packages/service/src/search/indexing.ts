import type { DocumentRows, IndexRow, SearchIndex } from '../domain/ports.js';
import type { Chunk, DocumentRecord } from '../domain/types.js';
import { ENGLISH, type Language } from '../text/language.js';
import type { EmbeddingService } from './embeddings.js';
import { wordCode } from './word-codes.js';

export interface IndexingDeps {
  index: SearchIndex;
  embeddings?: EmbeddingService | undefined;
}

/** The heading field: the document's title, then the chunk's heading path, without repeats. */
export function headingField(title: string | null, headingPath: string[]): string {
  const parts: string[] = [];
  for (const p of [title, ...headingPath]) {
    const t = p?.trim();
    if (t && !parts.some((x) => x.toLowerCase() === t.toLowerCase())) parts.push(t);
  }
  return parts.join(' / ');
}

/**
 * The text the full-text index sees for a chunk: the passage with its title and headings in front,
 * unless the passage already contains them (the first chunk of a section starts with its heading). A
 * passage deep in a long section then still matches words of its title, without doubling them elsewhere.
 */
export function searchText(row: Pick<IndexRow, 'heading' | 'text'>): string {
  const missing = missingHeadings(row);
  return missing ? `${missing}\n\n${row.text}` : row.text;
}

/** The title and headings that the passage does not contain, one a line ('' when none). */
function missingHeadings(row: Pick<IndexRow, 'heading' | 'text'>): string {
  if (!row.heading) return '';
  const text = row.text.toLowerCase();
  return row.heading
    .split(' / ')
    .filter((h) => h && !text.includes(h.toLowerCase()))
    .join('\n');
}

/**
 * The index's terms of a chunk: the content words of its search text as its language reads them
 * (stop words dropped, stems with accents folded), separated by spaces. The index splits them at the
 * spaces and nothing else, so the index, the ranking signals and the answerer read the same words.
 */
export function searchTerms(row: Pick<IndexRow, 'heading' | 'text'>, language: Language): string {
  return language.indexTerms(searchText(row)).join(' ');
}

export function indexRowsOf(
  doc: Pick<DocumentRecord, 'id' | 'filename' | 'sourceUrl'>,
  parsed: { mediaType: string; title: string | null },
  chunks: Chunk[],
  language: Language = ENGLISH,
): IndexRow[] {
  return chunks.map((c) => {
    const heading = headingField(parsed.title, c.headingPath);
    // The passage is read once for its word codes and its index terms (as wordCodes and searchTerms
    // read it: the headings it lacks come first in its search text, on lines of their own).
    const tokens = language.tokens(c.text);
    const wordCodes = new Uint32Array(tokens.length);
    const missing = missingHeadings({ heading, text: c.text });
    const terms = missing ? language.indexTerms(missing) : [];
    for (let i = 0; i < tokens.length; i++) {
      const word = tokens[i]!.word;
      wordCodes[i] = wordCode(word, language);
      const term = language.indexTerm(word);
      if (term !== undefined) terms.push(term);
    }
    return {
      id: c.id,
      documentId: doc.id,
      ordinal: c.ordinal,
      text: c.text,
      headingPath: c.headingPath,
      heading,
      filename: doc.filename,
      sourceUrl: doc.sourceUrl,
      mediaType: parsed.mediaType,
      pageStart: c.pageStart,
      pageEnd: c.pageEnd,
      charStart: c.charStart,
      charEnd: c.charEnd,
      language: language.code,
      wordCodes,
      terms: terms.join(' '),
    };
  });
}

/**
 * Makes documents searchable, several in one commit (a worker's batch): replaces each one's chunks as
 * one set, then their vectors when embeddings are configured. Safe to run twice.
 */
export async function indexDocuments(
  deps: IndexingDeps,
  workspaceId: string,
  documents: DocumentRows<IndexRow>[],
  signal?: AbortSignal,
): Promise<void> {
  await deps.index.replaceDocuments(workspaceId, documents);
  // A replace racing another writer of the same document could leave extra rows: check and repair.
  const counts = await deps.index.countRowsByDocument(
    workspaceId,
    documents.map((d) => d.documentId),
  );
  for (const d of documents) {
    if (counts.get(d.documentId) === d.rows.length) continue;
    await deps.index.deleteDocument(workspaceId, d.documentId);
    await deps.index.replaceDocuments(workspaceId, [d]);
  }
  await deps.embeddings?.embedDocuments(workspaceId, documents, signal);
}
