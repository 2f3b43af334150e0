import { artifactKeys } from '../domain/artifacts.js';
import type { ObjectStore } from '../domain/ports.js';
import { byteRange, type TextMap, textMapOf } from '../domain/text-map.js';
import type { DocumentRecord, DocumentStatus, Principal } from '../domain/types.js';
import { errors } from '../errors.js';
import { Slots } from '../slots.js';
import { type DocumentDeps, getDocument, listDocuments } from './documents.js';

/**
 * Documents and their text a piece at a time, for readers with a small budget (agents): a workspace's
 * documents in pages with a cursor, and a document's text by page range and character window.
 */

export interface DocumentPage {
  documents: DocumentRecord[];
  /** Documents matching the request in all, across pages. */
  total: number;
  /** Pass back to get the next page; null on the last page. */
  nextCursor: string | null;
}

/** The position after a document in the listing's order (creation time, then id). */
type Position = [createdAtMs: number, id: string];

const encodeCursor = (d: DocumentRecord) =>
  Buffer.from(JSON.stringify([d.createdAt.getTime(), d.id] satisfies Position)).toString('base64url');

function decodeCursor(cursor: string): Position {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && typeof value[0] === 'number' && typeof value[1] === 'string')
      return [value[0], value[1]];
  } catch {}
  throw errors.invalidRequest('The cursor is not one this service returned; start again without it.');
}

/**
 * One page of a workspace's documents, oldest first. The cursor names the last document returned, so
 * documents added meanwhile do not shift the pages; when that document has been deleted, the page
 * carries on from where it stood.
 */
export async function listDocumentPage(
  deps: Parameters<typeof listDocuments>[0],
  principal: Principal,
  workspaceId: string,
  request: { limit: number; cursor?: string | undefined; status?: DocumentStatus | undefined },
): Promise<DocumentPage> {
  const all = await listDocuments(deps, principal, workspaceId);
  const matching = request.status ? all.filter((d) => d.status === request.status) : all;
  let start = 0;
  if (request.cursor) {
    const [at, id] = decodeCursor(request.cursor);
    const same = matching.findIndex((d) => d.id === id);
    start =
      same >= 0
        ? same + 1
        : matching.findIndex(
            (d) => d.createdAt.getTime() > at || (d.createdAt.getTime() === at && d.id > id),
          );
    if (start < 0) start = matching.length;
  }
  const documents = matching.slice(start, start + request.limit);
  const last = documents.at(-1);
  return {
    documents,
    total: matching.length,
    nextCursor: last && start + documents.length < matching.length ? encodeCursor(last) : null,
  };
}

export interface TextRequest {
  /** First and last page to read (paged formats); the whole text when both are absent. */
  pageStart?: number | undefined;
  pageEnd?: number | undefined;
  /** Offset into the whole text to start at (a citation's charStart, or the last answer's nextOffset). */
  offset?: number | undefined;
  /** At most this many characters. */
  maxChars: number;
}

export interface TextPiece {
  document: DocumentRecord;
  text: string;
  /** Offsets of `text` in the document's whole text, the one citations point into. */
  charStart: number;
  charEnd: number;
  totalChars: number;
  /** Pages `text` covers; null for formats without pages. */
  pageStart: number | null;
  pageEnd: number | null;
  /** Where the requested range continues when `maxChars` cut it short; null when it is complete. */
  nextOffset: number | null;
}

/**
 * A piece of a document's extracted text: a page range, then a window of at most `maxChars` from
 * `offset`, all in the offsets citations use. The document must belong to the workspace.
 */
export async function readDocumentText(
  deps: Pick<DocumentDeps, 'documents' | 'objects'>,
  principal: Principal,
  workspaceId: string,
  documentId: string,
  request: TextRequest,
): Promise<TextPiece> {
  const document = await getDocument(deps.documents, principal, documentId);
  // Another workspace's document is as unknown here as a document that does not exist.
  if (document.workspaceId !== workspaceId) throw errors.documentNotFound(documentId);
  const stored = await storedMap(deps.objects, document);
  const map = stored ?? (await mapOfWholeText(deps.objects, document));
  const pages = map.pages.map(([page, at]) => ({ page, at }));
  let from = 0;
  let to = map.chars;
  if (request.pageStart !== undefined || request.pageEnd !== undefined) {
    const last = pages.at(-1)?.page;
    if (last === undefined)
      throw errors.invalidRequest(
        `Document "${document.id}" (${document.filename}) has no pages; read it without pageStart and pageEnd.`,
      );
    const first = request.pageStart ?? 1;
    const end = request.pageEnd ?? last;
    if (first > last)
      throw errors.invalidRequest(
        `Document "${document.id}" has ${last} pages; pageStart ${first} is past them.`,
      );
    if (end < first) throw errors.invalidRequest('pageEnd comes before pageStart.');
    from = pages.find((p) => p.page >= first)!.at;
    to = pages.find((p) => p.page > end)?.at ?? map.chars;
  }
  if (request.offset !== undefined) {
    if (request.offset > map.chars)
      throw errors.invalidRequest(`offset ${request.offset} is past the end of the text (${map.chars}).`);
    from = Math.max(from, request.offset);
    if (from > to) throw errors.invalidRequest('offset lies after the requested pages.');
  }
  const cut = Math.min(to, from + request.maxChars);
  const pageAt = (pos: number) => pages.filter((p) => p.at <= pos).at(-1);
  // Text before the first marker (none in parsers' output) belongs to no page.
  const first = pageAt(from) ?? pages.find((p) => p.at < cut);
  const last = pageAt(Math.max(from, cut - 1)) ?? first;
  return {
    document,
    text: await window(deps.objects, document, map, from, cut),
    charStart: from,
    charEnd: cut,
    totalChars: map.chars,
    pageStart: first?.page ?? null,
    pageEnd: last?.page ?? null,
    nextOffset: cut < to ? cut : null,
  };
}

/** Units `from`..`to` of the stored text, read from the marks around them only. */
async function window(
  objects: ObjectStore,
  document: DocumentRecord,
  map: TextMap,
  from: number,
  to: number,
): Promise<string> {
  if (to <= from) return '';
  const range = byteRange(map, from, to);
  const bytes = await objects.getRange(artifactKeys.text(document.id), range.start, range.end);
  if (!bytes) throw errors.textNotAvailable(document.id, document.status);
  const text = bytes.toString('utf8');
  return text.slice(from - range.startUnit, to - range.startUnit);
}

async function storedMap(objects: ObjectStore, document: DocumentRecord): Promise<TextMap | undefined> {
  const raw = await objects.getBuffer(artifactKeys.textMap(document.id));
  if (!raw) return undefined;
  const map = JSON.parse(raw.toString('utf8')) as TextMap;
  return map.version === 1 ? map : undefined;
}

/**
 * Texts stored before maps were made are read whole once, a few at a time (each is held twice, as
 * bytes and as a string), and their map stored, so every later read is a window.
 */
const wholeReads = new Slots(2);
async function mapOfWholeText(objects: ObjectStore, document: DocumentRecord): Promise<TextMap> {
  return wholeReads.run(async () => {
    const again = await storedMap(objects, document);
    if (again) return again;
    const bytes = await objects.getBuffer(artifactKeys.text(document.id));
    if (!bytes) throw errors.textNotAvailable(document.id, document.status);
    const map = textMapOf(bytes.toString('utf8'));
    await objects.put(artifactKeys.textMap(document.id), JSON.stringify(map), 'application/json');
    return map;
  });
}
