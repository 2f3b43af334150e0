import type { DocumentRows, IndexRow, SearchIndex } from '../domain/ports.js';
import type { Chunk, DocumentRecord } from '../domain/types.js';
import type { EmbeddingService } from './embeddings.js';
import { wordCodes } from './word-codes.js';

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

export function indexRowsOf(
  doc: Pick<DocumentRecord, 'id' | 'filename' | 'sourceUrl'>,
  parsed: { mediaType: string; title: string | null },
  chunks: Chunk[],
): IndexRow[] {
  return chunks.map((c) => ({
    id: c.id,
    documentId: doc.id,
    ordinal: c.ordinal,
    text: c.text,
    headingPath: c.headingPath,
    heading: headingField(parsed.title, c.headingPath),
    filename: doc.filename,
    sourceUrl: doc.sourceUrl,
    mediaType: parsed.mediaType,
    pageStart: c.pageStart,
    pageEnd: c.pageEnd,
    charStart: c.charStart,
    charEnd: c.charEnd,
    wordCodes: wordCodes(c.text),
  }));
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
