import type { DocumentRows, IndexRow, SearchIndex } from '../domain/ports.js';
import type { Chunk, DocumentRecord } from '../domain/types.js';
import type { CompoundSplitter } from '../text/compounds.js';
import { ENGLISH, type Language } from '../text/language.js';
import { normalizeWord } from '../text/tokens.js';
import type { EmbeddingService } from './embeddings.js';
import { wordCode, wordMemo } from './word-codes.js';

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
export function searchTerms(
  row: Pick<IndexRow, 'heading' | 'text'>,
  language: Language,
  split?: CompoundSplitter,
): string {
  return indexTermsOf(searchText(row), language, split).join(' ');
}

/** `Language.indexTerms`, each compound followed by its last part's term when the language splits them. */
function indexTermsOf(text: string, language: Language, split: CompoundSplitter | undefined): string[] {
  if (!split) return language.indexTerms(text);
  const out: string[] = [];
  for (const { word } of language.tokens(text)) {
    const term = language.indexTerm(word);
    if (term === undefined) continue;
    out.push(term);
    pushHead(out, word, term, language, split);
  }
  return out;
}

/**
 * After a compound's term, the term of its last part, the word it names ("druckerwarteschlange" →
 * "warteschlang"): a passage then matches a question that names it apart. Only the last: with every
 * part, a passage's "Dateizugriffsrechte" matched every question about "Dateien", and on the German
 * tune questions one answer fell out of the top 5 while the compound questions gained nothing more
 * (decision 0020). Positions shift by the part, which only phrase queries would read; none is asked.
 */
function pushHead(out: string[], word: string, term: string, language: Language, split: CompoundSplitter) {
  const head = split(word)?.at(-1);
  if (head === undefined) return;
  const t = language.indexTerm(head);
  if (t !== undefined && t !== term) out.push(t);
}

export function indexRowsOf(
  doc: Pick<DocumentRecord, 'id' | 'filename' | 'sourceUrl'>,
  parsed: { mediaType: string; title: string | null },
  chunks: Chunk[],
  language: Language = ENGLISH,
  split?: CompoundSplitter,
): IndexRow[] {
  return chunks.map((c) => {
    const heading = headingField(parsed.title, c.headingPath);
    // The passage is read once for its word codes and its index terms (as wordCodes and searchTerms
    // read it: the headings it lacks come first in its search text, on lines of their own). Words are
    // found by their bounds and looked up once each: making token objects and asking two caches per
    // word was a fifth of bulk ingestion's main thread (issue 25's profile).
    const text = c.text;
    const bounds = language.tokenBounds(text);
    const wordCodes = new Uint32Array(bounds.length / 2);
    const missing = missingHeadings({ heading, text });
    const terms = missing ? indexTermsOf(missing, language, split) : [];
    for (let i = 0; i < wordCodes.length; i++) {
      const word = normalizeWord(text.slice(bounds[2 * i]!, bounds[2 * i + 1]!));
      const entry = indexWord(word, language);
      wordCodes[i] = entry.code;
      if (entry.term === undefined) continue;
      terms.push(entry.term);
      if (split) pushHead(terms, word, entry.term, language, split);
    }
    return {
      id: c.id,
      documentId: doc.id,
      ordinal: c.ordinal,
      text,
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

/** A word as the index stores it: its code (wordCode) and its index term (Language.indexTerm). */
interface IndexWord {
  code: number;
  term: string | undefined;
}

const indexWord = wordMemo(
  (word, language): IndexWord => ({ code: wordCode(word, language), term: language.indexTerm(word) }),
);

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
