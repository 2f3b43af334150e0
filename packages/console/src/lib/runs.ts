import type { DocumentCounts, DocumentStatus, Run, RunKind, RunProgress, RunStatus } from '@service/sdk';

/**
 * What a run's numbers mean to a person. The API's `progress` counts every finished document, so a
 * cancelled run is "100 %" although most of its documents were never processed: the console shows
 * processed, failed and cancelled documents apart instead, in words and in colours.
 */

/** Document states in the order a run's bar shows them, with their word and colour (tone). */
export const DOCUMENT_STATES: { state: DocumentStatus; word: string; tone: string }[] = [
  { state: 'ready', word: 'ready', tone: 'ok' },
  { state: 'needs_ocr', word: 'need OCR', tone: 'warn' },
  { state: 'failed', word: 'failed', tone: 'bad' },
  { state: 'processing', word: 'processing', tone: 'busy' },
  { state: 'queued', word: 'queued', tone: 'wait' },
  { state: 'cancelled', word: 'cancelled', tone: 'cancelled' },
  { state: 'deleted', word: 'deleted', tone: 'muted' },
];

export interface Segment {
  state: DocumentStatus;
  word: string;
  tone: string;
  count: number;
  /** Share of the run's documents, 0–1. */
  share: number;
}

/**
 * The run's documents by state, as segments of one bar. Queued documents are part of the list but
 * draw nothing (the bar's empty track); cancelled ones draw a striped grey, never the "done" colour.
 */
export function runSegments(counts: DocumentCounts): Segment[] {
  return DOCUMENT_STATES.filter((s) => counts[s.state] > 0).map((s) => ({
    ...s,
    count: counts[s.state],
    share: counts.total === 0 ? 0 : counts[s.state] / counts.total,
  }));
}

/** Documents that went through the pipeline to an outcome (ready, needing OCR, or failed). */
export const processedCount = (c: DocumentCounts) => c.ready + c.needs_ocr + c.failed;

const STATUS_WORD: Record<RunStatus, string> = {
  processing: 'Processing',
  paused: 'Paused',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * One sentence that says what happened to the run's documents, e.g. "Cancelled: 13 of 40 documents
 * processed (12 ready, 1 failed); 27 cancelled before they were processed."
 */
export function describeRun(status: RunStatus, c: DocumentCounts): string {
  const processed = processedCount(c);
  const outcomes = DOCUMENT_STATES.filter((s) => ['ready', 'needs_ocr', 'failed'].includes(s.state))
    .filter((s) => c[s.state] > 0)
    .map((s) => `${c[s.state]} ${s.word}`);
  let sentence = `${STATUS_WORD[status]}: ${processed} of ${plural(c.total, 'document')} processed`;
  if (outcomes.length > 0) sentence += ` (${outcomes.join(', ')})`;
  const rest: string[] = [];
  if (c.processing) rest.push(`${c.processing} processing`);
  if (c.queued) rest.push(`${c.queued} queued`);
  if (c.cancelled) rest.push(`${c.cancelled} cancelled before they were processed`);
  if (c.deleted) rest.push(`${c.deleted} deleted`);
  if (rest.length > 0) sentence += `; ${rest.join(', ')}`;
  return `${sentence}.`;
}

/**
 * The same for a screen reader's live region, which speaks every change: while the run is open it
 * moves in steps of a tenth, so that a run of hundreds of files is not read out file by file.
 */
export function announceRun(status: RunStatus, c: DocumentCounts): string {
  if (status !== 'processing') return describeRun(status, c);
  const finished = c.total - c.queued - c.processing;
  const tenths = c.total === 0 ? 10 : Math.floor((finished / c.total) * 10);
  return `Processing: ${tenths * 10} % of ${plural(c.total, 'document')} finished.`;
}

/**
 * What a run was, in words: "Upload of 3 files", "Sync of Handbook folder", "2 documents processed
 * again". `sourceName` names a sync's source when it is known.
 */
export function runName(
  run: { kind: RunKind; counts: Pick<DocumentCounts, 'total'> },
  sourceName?: string | null,
): string {
  const n = run.counts.total;
  switch (run.kind) {
    case 'upload':
      return `Upload of ${plural(n, 'file')}`;
    case 'urls':
      return `Ingestion of ${plural(n, 'URL')}`;
    case 'sync':
      return sourceName ? `Sync of ${sourceName}` : 'Sync of a source';
    case 'reprocess':
      return `${plural(n, 'document')} processed again`;
  }
}

/**
 * A sync that completed and found nothing new in its source: nothing added, changed or deleted, by
 * what the sync recorded when it listed it (`changes`). A run whose documents were synced again since
 * also counts no documents, so its counts alone cannot tell; a server that records nothing says null.
 */
export function foundNothing(run: Pick<Run, 'kind' | 'status' | 'changes'>): boolean {
  const c = run.changes;
  return run.kind === 'sync' && run.status === 'completed' && !!c && c.added + c.changed + c.deleted === 0;
}

/** What a sync found, in words: "3 items unchanged, nothing new" or "1 new, 2 changed, 1 gone; 5 unchanged". */
export function describeChanges(c: NonNullable<Run['changes']>): string {
  const unchanged = `${plural(c.unchanged, 'item')} unchanged`;
  if (c.added + c.changed + c.deleted === 0) return `No changes: the sync found nothing new (${unchanged}).`;
  const found = [
    c.added ? `${c.added} new` : '',
    c.changed ? `${c.changed} changed` : '',
    c.deleted ? `${c.deleted} gone from the source` : '',
  ].filter(Boolean);
  return `The sync found ${found.join(', ')}; ${unchanged}.`;
}

/** The stages a document goes through while it is processed, in order (fetching for URLs and sources). */
const STAGES = ['queued', 'fetching', 'parsing', 'chunking', 'indexing', 'done'];

/** How far one document has got, for its own bar: stages while it is worked on, its outcome after. */
export function documentProgress(status: DocumentStatus, stage: string): { value: number; caption: string } {
  switch (status) {
    case 'queued':
      return { value: 0, caption: 'waiting' };
    case 'processing': {
      // Claimed by a worker, not started yet: its stage still reads "queued", which it no longer is.
      if (stage === 'queued') return { value: 0, caption: 'starting' };
      const i = STAGES.indexOf(stage);
      return { value: i <= 0 ? 0 : i / (STAGES.length - 1), caption: stage };
    }
    case 'ready':
      return { value: 1, caption: 'processed' };
    case 'needs_ocr':
      return { value: 1, caption: 'processed: its text needs OCR' };
    case 'failed':
      return { value: 1, caption: 'processed: failed' };
    case 'cancelled':
      return { value: 0, caption: 'not processed: cancelled' };
    case 'deleted':
      return { value: 0, caption: 'deleted' };
  }
}

/** Names as people number them: file2 before file10, case and accents aside. */
export const naturalCompare = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' }).compare;

/** Documents still being worked on: a run that has turned terminal may still have one finishing. */
export const inFlight = (c: DocumentCounts) => c.queued + c.processing;

/**
 * When to ask for a run's progress again. While the run is open: every second (every 3 s paused).
 * A cancelled run can still have documents that were in progress finishing: keep asking until none
 * is. Once it is settled, ask once more (the run's status and its documents are read one after the
 * other) and stop only when two answers in a row were settled.
 */
export function nextPoll(p: RunProgress, previousSettled: boolean): number | undefined {
  if (!p.done) return p.status === 'paused' ? 3000 : 1000;
  if (inFlight(p.counts) > 0) return 1000;
  return previousSettled ? undefined : 1000;
}

/** One page of a long list: `page` is 0-based and kept within the list. */
export function pageOf<T>(
  items: T[],
  page: number,
  size: number,
): { items: T[]; page: number; pages: number } {
  const pages = Math.max(1, Math.ceil(items.length / size));
  const p = Math.min(Math.max(0, page), pages - 1);
  return { items: items.slice(p * size, (p + 1) * size), page: p, pages };
}
