import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, Readable, Transform } from 'node:stream';
import { finished, pipeline as streamPipeline } from 'node:stream/promises';
import type { FetchedResource } from '../../domain/ports.js';
import { fetchHeadersContext } from '../../domain/secrets.js';
import type { DocumentRecord } from '../../domain/types.js';
import { DocumentFailure } from '../../errors.js';
import type { Batch } from './batch.js';
import { cancelledWhileProcessing, type Fetched, fetchedBytes, LeaseLost } from './slot.js';

/**
 * The bytes of a document fetched first, read once: ahead of its start while the document before
 * it is parsed, or when it starts. Nothing is recorded on the document here, so a document that
 * turns out paused, cancelled or lost only leaves its original in storage, where a re-run writes it
 * again (and a deletion's clean-up finds it: the batch's writes are awaited first).
 */
export function fetchBytes(batch: Batch, doc: DocumentRecord): Promise<Fetched> {
  const slot = batch.slot(doc.id);
  if (!slot.fetched) {
    const { signal } = slot.abort;
    const fetched = (async () =>
      download(
        batch,
        doc,
        doc.sourceId !== null && doc.sourceItem !== null
          ? await openSourceItem(batch, doc.sourceId, doc.sourceItem, signal)
          : await batch.deps.fetcher.fetch(doc.sourceUrl!, signal, await fetchHeaders(batch, doc)),
      ))();
    // Awaited when the document starts; until then a failure must not count as unhandled.
    fetched.catch(() => {});
    slot.writes.push(
      fetched.then(
        () => {},
        () => {},
      ),
    );
    slot.fetched = fetched;
  }
  return slot.fetched;
}

/** An item of a synced source, read through the batch's reader (each source's access looked up once). */
function openSourceItem(
  batch: Batch,
  sourceId: string,
  key: string,
  signal: AbortSignal,
): Promise<FetchedResource> {
  if (!batch.deps.sourceItems)
    throw new DocumentFailure('fetch_failed', 'This worker cannot read synced sources.');
  batch.sourceItemBatch ??= batch.deps.sourceItems.forBatch();
  return batch.sourceItemBatch.open(sourceId, key, signal);
}

/**
 * Stores fetched bytes as the document's original, hashed on the way; they are read once from their
 * source, never read back. A small item (as listed) is read into memory, stored from there and
 * parsed with its group: a folder's first sync spent more on streams, the work folder's copy and
 * reading it back than on the item. One that turns out larger than a small document goes on as a
 * stream with what was read so far.
 */
async function download(batch: Batch, doc: DocumentRecord, fetched: FetchedResource): Promise<Fetched> {
  if (!batch.groupable(doc)) return downloadToFile(batch, doc, fetched);
  const chunks: Buffer[] = [];
  let size = 0;
  const reading = fetched.body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  for (let next = await reading.next(); !next.done; next = await reading.next()) {
    chunks.push(next.value);
    size += next.value.length;
    if (size > batch.schedule.groupDocumentBytes) {
      const rest = async function* () {
        yield* chunks;
        for (let more = await reading.next(); !more.done; more = await reading.next()) yield more.value;
      };
      return downloadToFile(batch, doc, { ...fetched, body: Readable.from(rest(), { objectMode: false }) });
    }
  }
  const bytes = Buffer.concat(chunks, size);
  await batch.deps.objects.put(doc.storageKey, bytes, fetched.contentType ?? undefined);
  return {
    bytes,
    sizeBytes: size,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    contentType: fetched.contentType,
    filename: fetched.filename,
  };
}

/** Stores the bytes and, in the same pass, writes the parser's copy to the work folder. */
async function downloadToFile(batch: Batch, doc: DocumentRecord, fetched: FetchedResource): Promise<Fetched> {
  const hash = createHash('sha256');
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  const file = path.join(batch.workDir, doc.id);
  batch.slot(doc.id).workFile = file;
  const toStore = new PassThrough();
  const toFile = createWriteStream(file);
  // A failed read (a limit, the network) ends both writes with its own error, which is the
  // document's; a failed write ends the read.
  let readError: Error | undefined;
  fetched.body.on('error', (err) => {
    readError = err;
    toStore.destroy(err);
    toFile.destroy(err);
  });
  fetched.body.pipe(meter);
  meter.pipe(toStore);
  meter.pipe(toFile);
  try {
    await Promise.all([
      batch.deps.objects.put(doc.storageKey, toStore, fetched.contentType ?? undefined),
      finished(toFile),
    ]);
  } catch (err) {
    for (const stream of [fetched.body, meter, toStore, toFile]) stream.destroy();
    await rm(file, { force: true });
    throw readError ?? err;
  }
  return {
    file,
    sizeBytes: size,
    sha256: hash.digest('hex'),
    contentType: fetched.contentType,
    filename: fetched.filename,
  };
}

/** The decrypted headers a URL document is fetched with (none for most). */
async function fetchHeaders(batch: Batch, doc: DocumentRecord): Promise<Record<string, string>> {
  const { deps } = batch;
  const encrypted = await deps.work.fetchHeadersOf(doc.id);
  if (!encrypted) return {};
  if (!deps.secrets)
    throw new DocumentFailure(
      'credentials_unavailable',
      'The fetch credentials cannot be decrypted: no ENCRYPTION_KEY.',
    );
  return JSON.parse(deps.secrets.decrypt(encrypted, fetchHeadersContext(doc.id))) as Record<string, string>;
}

/**
 * Records fetched bytes on the started document, which moves on to parsing (once they are recorded,
 * sha256 known, a re-run skips the fetch).
 */
export async function recordFetched(
  batch: Batch,
  doc: DocumentRecord,
  fetched: Fetched,
): Promise<DocumentRecord> {
  const slot = batch.slot(doc.id);
  const updated = await (slot.recorded ??
    batch.deps.work
      .recordFetched(batch.workerId, [fetchedBytes(doc, fetched)])
      .then((recorded) => recorded.get(doc.id)));
  if (!updated) throw new LeaseLost();
  // Bytes kept in memory are parsed with their group; parsed alone, they are read from storage (copyOriginal).
  if (fetched.file) slot.input = Promise.resolve(fetched.file);
  if (updated.runStatus === 'cancelled') throw cancelledWhileProcessing();
  slot.phase = 'fetched';
  return { ...updated.document, attempts: doc.attempts };
}

/**
 * Records the fetched bytes of a group's synced items in one write, while the group is parsed;
 * each item takes its outcome at its turn (recordFetched). One write per item was the largest
 * part of what a folder's first sync cost beyond an upload of the same files.
 */
export function recordTogether(batch: Batch, docs: DocumentRecord[]): void {
  if (docs.length === 0) return;
  const writing = Promise.all(docs.map((d) => fetchBytes(batch, d))).then((fetched) =>
    batch.deps.work.recordFetched(
      batch.workerId,
      docs.map((d, i) => fetchedBytes(d, fetched[i]!)),
    ),
  );
  for (const doc of docs) {
    const recorded = writing.then((all) => all.get(doc.id));
    // Taken at the document's turn; until then a failure must not count as unhandled.
    recorded.catch(() => {});
    batch.slot(doc.id).recorded = recorded;
  }
}

/**
 * Copies a document's original to the work folder (once). A document whose bytes are not stored yet
 * (a URL, a source's item) is fetched first, and its copy written then (see fetchBytes).
 */
export function copyOriginal(batch: Batch, doc: DocumentRecord): Promise<string> {
  const slot = batch.slot(doc.id);
  if (!slot.input) {
    const copied = (async () => {
      const original = await batch.deps.objects.get(doc.storageKey);
      if (!original)
        throw new DocumentFailure('original_missing', 'The uploaded file is missing from storage.');
      const file = path.join(batch.workDir, doc.id);
      slot.workFile = file;
      await streamPipeline(original, createWriteStream(file));
      return file;
    })();
    // Awaited when the document is parsed; until then a failure must not count as unhandled.
    copied.catch(() => {});
    slot.input = copied;
  }
  return slot.input;
}

/** Removes a document's copy in the work folder, if it has one, as soon as it is parsed. */
export async function dropWorkFile(batch: Batch, documentId: string): Promise<void> {
  const slot = batch.slot(documentId);
  const file = slot.workFile;
  if (file === undefined) return;
  slot.workFile = undefined;
  await rm(file, { force: true });
}
