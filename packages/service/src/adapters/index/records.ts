/**
 * A chunk's row as a workspace table stores it, and a set of rows as the Arrow IPC bytes LanceDB's
 * writes take: made on the event loop for a small write, in the index's encoding thread
 * (encode-thread.ts) for a large one, so that a large document's rows never hold that loop.
 */
import { createRequire } from 'node:module';
import { makeArrowTable } from '@lancedb/lancedb';
import type { Table as ArrowTable, Schema } from 'apache-arrow';
import type { IndexRow } from '../../domain/ports.js';
import { searchTerms, searchText } from '../../search/indexing.js';
import { ENGLISH } from '../../text/language.js';

/** `terms`: the current table format; `legacy`: made before languages (lancedb.ts, SCHEMA). */
export type TableFormat = 'terms' | 'legacy';

export function toRecord(row: IndexRow): Record<string, unknown> {
  return {
    id: row.id,
    document_id: row.documentId,
    ordinal: row.ordinal,
    text: row.text,
    heading_path: JSON.stringify(row.headingPath),
    filename: row.filename,
    source_url: row.sourceUrl,
    media_type: row.mediaType,
    page_start: row.pageStart,
    page_end: row.pageEnd,
    char_start: row.charStart,
    char_end: row.charEnd,
    heading: row.heading,
    word_codes: row.wordCodes ? codesToBytes(row.wordCodes) : null,
    language: row.language ?? 'en',
    terms: row.terms ?? searchTerms(row, ENGLISH),
  };
}

/** A record for a table made before languages: its own columns only. */
export function toLegacyRecord(row: IndexRow): Record<string, unknown> {
  const { language: _language, terms: _terms, ...rest } = toRecord(row);
  return { ...rest, search_text: searchText(row) };
}

export function recordsOf(rows: IndexRow[], format: TableFormat): Record<string, unknown>[] {
  return rows.map(format === 'legacy' ? toLegacyRecord : toRecord);
}

function codesToBytes(codes: Uint32Array): Uint8Array {
  // Stored little-endian: on such a machine the codes' own bytes (Arrow copies them into its column).
  if (LITTLE_ENDIAN) return new Uint8Array(codes.buffer, codes.byteOffset, codes.byteLength);
  const bytes = new Uint8Array(codes.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < codes.length; i++) view.setUint32(i * 4, codes[i]!, true);
  return bytes;
}

export const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/**
 * Arrow as LanceDB loads it (its CommonJS build): the tables and schemas it makes are instances of
 * that build's classes, which the ES module build's writer and reader do not take for their own.
 */
const arrow = createRequire(import.meta.url)('apache-arrow') as typeof import('apache-arrow');

/**
 * Rows in a table's schema as an Arrow IPC file: what LanceDB's merge-insert makes of records
 * (its makeArrowTable, then the file writer), so that its native side reads the same bytes.
 */
export function encodeRows(rows: IndexRow[], format: TableFormat, schema: Schema): Uint8Array {
  return arrow.tableToIPC(
    makeArrowTable(recordsOf(rows, format), { schema }) as unknown as ArrowTable,
    'file',
  );
}

/** A schema as bytes a thread can be sent (an empty table's), and back. */
export const schemaToBytes = (schema: Schema): Uint8Array =>
  arrow.tableToIPC(makeArrowTable([], { schema }) as unknown as ArrowTable, 'stream');
export const schemaFromBytes = (bytes: Uint8Array): Schema => arrow.tableFromIPC(bytes).schema;
