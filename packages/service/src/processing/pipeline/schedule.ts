import type { DocumentRecord } from '../../domain/types.js';
import { fetchesFirst, type Prepared } from './slot.js';

/**
 * How a batch paces its documents: the sizes of its groups, when it writes what it parsed, how often
 * it lets the event loop turn. The worker runs with TUNED_SCHEDULE; tests pass sizes of their own.
 */
export interface Schedule {
  /**
   * A batch's parsed documents are written to the index (one commit) and finished (one transaction)
   * once this long has passed since the first of them started, so that a document is searchable about
   * a second after it was parsed (at once after a long parse), whatever the batch's size.
   */
  flushAfterMs: number;
  /** ... or once their text reaches this size, which bounds what a batch holds in memory. */
  flushTextBytes: number;
  /**
   * Uploads and synced items up to this size are started and parsed in groups (decision 0016): for a
   * small file the write and the request around its parse cost more than the parse.
   */
  groupDocumentBytes: number;
  /** A group holds up to this many documents and `groupBytes` of originals, kept in memory until it is sent. */
  groupDocuments: number;
  /** A batch's first group is smaller: its first documents are searchable sooner, the next group parsed meanwhile. */
  firstGroupDocuments: number;
  groupBytes: number;
  /**
   * A document whose parse is already at hand is prepared without a turn of the event loop (its awaits
   * resolve at once): a group of them would hold back, for its whole length, the reads and the parse of
   * the next group and the server's requests. The batch lets them run at least this often.
   */
  yieldAfterMs: number;
}

export const TUNED_SCHEDULE: Schedule = {
  flushAfterMs: 1000,
  flushTextBytes: 32 * 2 ** 20,
  groupDocumentBytes: 128 * 1024,
  groupDocuments: 64,
  firstGroupDocuments: 8,
  groupBytes: 1024 * 1024,
  yieldAfterMs: 5,
};

/**
 * A small document whose original is stored, or a synced source's small item (its size as listed),
 * when the parser takes groups. One on a later attempt is never grouped: it comes in a small batch of
 * such documents or alone (claimDocuments, batchPlace) and is started and parsed by itself, so that a
 * fault that ends the worker again is pinned on it and raises no other document's attempts.
 */
export function groupable(schedule: Schedule, parserGroups: boolean, doc: DocumentRecord): boolean {
  return (
    parserGroups &&
    doc.attempts === 0 &&
    (!fetchesFirst(doc) || (doc.sourceId !== null && doc.sourceItem !== null)) &&
    doc.sizeBytes !== null &&
    doc.sizeBytes <= schedule.groupDocumentBytes
  );
}

/**
 * The group `docs[from]` begins: it and the groupable documents after it, up to the group's size
 * (the first group's, smaller, when `first`). Items fetched first and stored originals are not mixed:
 * they start at different stages. Fewer than two make no group.
 */
export function groupMembers(
  schedule: Schedule,
  parserGroups: boolean,
  docs: readonly DocumentRecord[],
  from: number,
  first: boolean,
): DocumentRecord[] {
  const members: DocumentRecord[] = [];
  const most = first ? schedule.firstGroupDocuments : schedule.groupDocuments;
  const fetched = fetchesFirst(docs[from]!);
  let bytes = 0;
  for (const doc of docs.slice(from)) {
    if (!groupable(schedule, parserGroups, doc) || fetchesFirst(doc) !== fetched || members.length === most)
      break;
    if (bytes + doc.sizeBytes! > schedule.groupBytes) break;
    members.push(doc);
    bytes += doc.sizeBytes!;
  }
  return members.length < 2 ? [] : members;
}

/**
 * What is read ahead for the next document while the current one is parsed alone, so that storage
 * and the parser work at the same time: the bytes of one fetched first, the copy of a stored original
 * parsed alone (a grouped one is read with its group).
 */
export function readAheadOf(
  schedule: Schedule,
  parserGroups: boolean,
  next: DocumentRecord | undefined,
): 'fetch' | 'copy' | undefined {
  if (!next) return undefined;
  if (fetchesFirst(next)) return 'fetch';
  if (next.sha256 !== null && !groupable(schedule, parserGroups, next)) return 'copy';
  return undefined;
}

/**
 * The parsed documents waiting for the index, and when they are due: `flushAfterMs` from the start
 * of the first of them (a long parse alone is reason enough to write it out), at `flushTextBytes` of
 * text, or at the batch's last document.
 */
export class FlushWindow {
  private pending: Prepared[] = [];
  private since = 0;
  private text = 0;

  constructor(private readonly schedule: Schedule) {}

  get size(): number {
    return this.pending.length;
  }

  add(prepared: Prepared, startedAt: number): void {
    if (this.pending.length === 0) this.since = startedAt;
    this.pending.push(prepared);
    if (prepared.kind === 'parsed') this.text += prepared.textBytes;
  }

  due(last: boolean, now: number): boolean {
    return (
      this.pending.length > 0 &&
      (last || now - this.since >= this.schedule.flushAfterMs || this.text >= this.schedule.flushTextBytes)
    );
  }

  take(): Prepared[] {
    const taken = this.pending;
    this.pending = [];
    this.text = 0;
    return taken;
  }
}

/** Lets the event loop turn when `yieldAfterMs` have passed since it last did. */
export class Turns {
  private yielded: number;

  constructor(
    private readonly schedule: Schedule,
    now: number,
  ) {
    this.yielded = now;
  }

  async maybeYield(now: number): Promise<void> {
    if (now - this.yielded < this.schedule.yieldAfterMs) return;
    await new Promise((resolve) => setImmediate(resolve));
    this.yielded = performance.now();
  }
}
