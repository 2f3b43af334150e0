import { sanitizeFilename } from '../../domain/filenames.js';
import type { Log } from '../../domain/log.js';
import type { GroupParse, IndexRow } from '../../domain/ports.js';
import type { FetchedBytes, FinishDocument, RecordedFetch, StartOutcome } from '../../domain/stores.js';
import type { DocumentRecord } from '../../domain/types.js';
import { DocumentFailure } from '../../errors.js';

/**
 * Where a claimed document is in its batch. It moves forward only: `claimed` until its turn comes,
 * then through its stages to one of the three ends: `finished` (this worker wrote its outcome),
 * `lost` (deleted, cancelled or taken over while the batch held it) or `returned` (its lease given
 * back, to be processed again).
 */
export type Phase =
  | 'claimed'
  | 'started'
  | 'fetched'
  | 'parsed'
  | 'written'
  | 'finished'
  | 'lost'
  | 'returned';

const ENDS: ReadonlySet<Phase> = new Set(['finished', 'lost', 'returned']);

/**
 * A fetched document's bytes, stored as its original, not yet recorded: a small item's kept in memory
 * for its group's parse, a larger one's copied to the work folder.
 */
export type Fetched = {
  sizeBytes: number;
  sha256: string;
  contentType: string | null;
  filename: string;
} & ({ file: string; bytes?: undefined } | { file?: undefined; bytes: Buffer });

/**
 * Everything the batch knows of one claimed document: its phase, and the work begun for it ahead of
 * its turn (a group's start and parse, the read of its bytes), which its turn takes up.
 */
export class DocumentSlot {
  phase: Phase = 'claimed';
  /** Its turn came (the loop took it up); one given back untaken never had it. */
  begun = false;
  /** Aborts the document's work: its lease lapsed to someone else, or the batch stopped before its turn. */
  readonly abort = new AbortController();
  /** Started with a group before its own turn: its attempt is taken back if the turn never comes. */
  startedAhead = false;
  /** Its start, made with its group's (start.ts). */
  groupStart: Promise<StartOutcome> | undefined;
  /** Its parse in its group's request: undefined inside when the group did not parse it. */
  groupParse: Promise<GroupParse> | undefined;
  /** A synced item's fetched bytes, recorded with its group's (fetch.ts, recordTogether). */
  recorded: Promise<RecordedFetch | undefined> | undefined;
  /** The bytes of a document fetched first (a URL, a source's item), read once. */
  fetched: Promise<Fetched> | undefined;
  /** The path of its original's copy in the work folder, once copied (or fetched to a file). */
  input: Promise<string> | undefined;
  /** Its copy in the work folder, while it has one (most small ones have none: their bytes stay in memory). */
  workFile: string | undefined;
  /** What it writes to object storage (its original fetched, its text), awaited before deletions are checked. */
  readonly writes: Promise<void>[] = [];

  constructor(readonly claimed: DocumentRecord) {}

  get id(): string {
    return this.claimed.id;
  }

  /** Whether this worker still holds it: its lease is renewed while it does. */
  get held(): boolean {
    return !ENDS.has(this.phase) && !this.abort.signal.aborted;
  }

  lose(log: Log): void {
    this.phase = 'lost';
    log.info({ documentId: this.id }, 'document no longer held by this worker');
  }
}

/** Lost the document to someone else (deleted, cancelled, lease taken over): stop quietly. */
export class LeaseLost extends Error {}

/** What became of one document of a batch before the index. */
export type Prepared =
  | {
      kind: 'parsed';
      doc: DocumentRecord;
      rows: IndexRow[];
      result: FinishDocument;
      textBytes: number;
      /** The extracted text being written to object storage; done before the document is. */
      stored: Promise<void>;
    }
  | { kind: 'failed'; doc: DocumentRecord; result: FinishDocument }
  | { kind: 'lost'; doc: DocumentRecord }
  | { kind: 'paused'; doc: DocumentRecord }
  /** A synced item's bytes were those of the version still indexed: put back as it was, done. */
  | { kind: 'unchanged'; doc: DocumentRecord }
  | { kind: 'error'; doc: DocumentRecord; error: unknown };

export type ParsedDocument = Extract<Prepared, { kind: 'parsed' }>;

/** A URL or a source's item whose bytes are not stored yet: fetched before it is parsed. */
export const fetchesFirst = (doc: DocumentRecord) =>
  (doc.sourceUrl !== null || doc.sourceId !== null) && doc.sha256 === null;

/** A fetched document as WorkStore.recordFetched records it: the file name and type it is parsed under. */
export const fetchedBytes = (doc: DocumentRecord, fetched: Fetched): FetchedBytes => ({
  documentId: doc.id,
  sizeBytes: fetched.sizeBytes,
  sha256: fetched.sha256,
  declaredMediaType: fetched.contentType,
  filename: sanitizeFilename(fetched.filename),
});

export function cancelledWhileProcessing(): DocumentFailure {
  return new DocumentFailure('cancelled', 'The run was cancelled while this document was being processed.');
}
