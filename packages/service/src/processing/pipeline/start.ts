import type { GroupParse } from '../../domain/ports.js';
import type { StartOutcome } from '../../domain/stores.js';
import type { DocumentRecord } from '../../domain/types.js';
import type { Batch } from './batch.js';
import { parseGroup, smallDocument } from './parse.js';
import { groupMembers } from './schedule.js';
import { fetchesFirst } from './slot.js';

/**
 * A document's start when its turn comes: the one its group made, or one its turn begins (a group,
 * or itself alone). A document fetched first starts at the fetching stage, any other at parsing.
 */
export function startDocument(batch: Batch, doc: DocumentRecord): Promise<StartOutcome> {
  return (
    batch.slot(doc.id).groupStart ??
    startGroup(batch, doc) ??
    batch.deps.work
      .startDocuments([doc.id], batch.workerId, fetchesFirst(doc) ? 'fetching' : 'parsing')
      .then((s) => s.get(doc.id)!)
  );
}

/**
 * Starts a group: the document and the groupable ones after it in the batch, in one write, and
 * then parses those started in one request (DocumentParser.parseGroup), once the group before it
 * (`before`) is parsed. Called when the document's turn comes, or ahead of it when the group before
 * it begins its parse. Undefined when the document begins no group (not groupable, or nothing to
 * group it with).
 */
function startGroup(
  batch: Batch,
  first: DocumentRecord,
  before?: Promise<unknown>,
): Promise<StartOutcome> | undefined {
  const members = groupMembers(
    batch.schedule,
    batch.deps.parser.parseGroup !== undefined,
    batch.docs,
    batch.docs.findIndex((d) => d.id === first.id),
    batch.groupsFormed === 0,
  );
  if (members.length === 0) return undefined;
  batch.groupsFormed++;
  // The group's bytes are read as soon as it is formed, while the group before it is parsed: read
  // once that parse was over, they left the parser waiting between groups.
  const reads = new Map(members.map((d) => [d.id, smallDocument(batch, d).catch(() => undefined)]));
  const starting = batch.deps.work.startDocuments(
    members.map((d) => d.id),
    batch.workerId,
    fetchesFirst(first) ? 'fetching' : 'parsing',
  );
  // One parse at a time: the parser's process takes one request after another.
  const ready = Promise.all([starting, before?.catch(() => {})]);
  const parsing: Promise<Map<string, GroupParse>> = ready.then(async ([starts]) => {
    const parsed = members.filter((d) => {
      const s = starts.get(d.id);
      return s?.held === true && s.runStatus === 'processing';
    });
    for (const d of parsed) {
      const slot = batch.slot(d.id);
      if (!slot.begun) slot.startedAhead = true;
    }
    // The next group's start (a database write) is made while this one is parsed, and its parse
    // follows this one's: the parser then never waits for a start, nor the chunker for the parser.
    startGroupAfter(batch, members.at(-1)!, parsing);
    const results = await parseGroup(batch, parsed, reads);
    return new Map(parsed.map((d, i) => [d.id, results[i]]));
  });
  for (const doc of members) {
    const slot = batch.slot(doc.id);
    const start = starting.then((s) => s.get(doc.id)!);
    // Awaited when the document's turn comes; until then a failure must not count as unhandled.
    start.catch(() => {});
    slot.groupStart = start;
    // Whatever failed (storage, the parser process) is met again, by each document alone.
    slot.groupParse = parsing.then(
      (results) => results.get(doc.id),
      () => undefined,
    );
  }
  return batch.slot(first.id).groupStart;
}

/** Starts the group that follows `last` in the batch, unless it has begun or the batch is stopping. */
function startGroupAfter(batch: Batch, last: DocumentRecord, before: Promise<unknown>): void {
  const next = batch.docs[batch.docs.findIndex((d) => d.id === last.id) + 1];
  if (
    !next ||
    batch.slot(next.id).groupStart !== undefined ||
    batch.failure !== undefined ||
    batch.ending.signal.aborted
  )
    return;
  startGroup(batch, next, before);
}
