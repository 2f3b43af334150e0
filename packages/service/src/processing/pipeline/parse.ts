import { readFile } from 'node:fs/promises';
import { artifactKeys } from '../../domain/artifacts.js';
import { sanitizeFilename } from '../../domain/filenames.js';
import type { GroupParse, ParsedDocument, SmallDocument } from '../../domain/ports.js';
import type { DocumentRecord } from '../../domain/types.js';
import { DocumentFailure } from '../../errors.js';
import type { Batch } from './batch.js';
import { copyOriginal, dropWorkFile, fetchBytes, recordTogether } from './fetch.js';
import { readAheadOf } from './schedule.js';
import { fetchesFirst, type Prepared } from './slot.js';

/**
 * One request for the group's documents, with their bytes as `reads` has them: stored originals
 * read from storage, synced items fetched (each read once, as alone: stored as its original, and
 * recorded together). A document whose bytes could not be had, or grew past a small document's
 * size, is parsed alone.
 */
export async function parseGroup(
  batch: Batch,
  docs: DocumentRecord[],
  reads: Map<string, Promise<SmallDocument | undefined>>,
): Promise<GroupParse[]> {
  const { deps } = batch;
  const inputs = await Promise.all(docs.map((d) => reads.get(d.id)!));
  recordTogether(
    batch,
    docs.filter((d, i) => inputs[i] !== undefined && fetchesFirst(d)),
  );
  const sent = inputs.filter((i) => i !== undefined);
  if (sent.length === 0) return docs.map(() => undefined);
  const results = await deps.parser.parseGroup!(sent, batch.workspaceId, batch.ending.signal, {
    detectLanguage: batch.workspaceLanguage === 'auto' && deps.preparer.detectsLanguages,
  });
  let next = 0;
  return inputs.map((i) => (i === undefined ? undefined : results[next++]));
}

/** A group member's bytes for its group's request: its stored original, or its item fetched into memory. */
export async function smallDocument(batch: Batch, doc: DocumentRecord): Promise<SmallDocument | undefined> {
  if (!fetchesFirst(doc)) {
    const bytes = await batch.deps.objects.getBuffer(doc.storageKey);
    return bytes && { bytes, filename: doc.filename, declaredMediaType: doc.declaredMediaType };
  }
  const fetched = await fetchBytes(batch, doc);
  if (fetched.sizeBytes > batch.schedule.groupDocumentBytes) return undefined;
  // As they are recorded (fetchedBytes), so that the document is parsed as it is then described.
  return {
    bytes: fetched.bytes ?? (await readFile(fetched.file)),
    filename: sanitizeFilename(fetched.filename),
    declaredMediaType: fetched.contentType,
  };
}

/**
 * A started document's parse: its group's answer when its group parsed it, otherwise a request of
 * its own from its copy in the work folder, while the next document's bytes are read ahead.
 */
export async function parseDocument(
  batch: Batch,
  doc: DocumentRecord,
  next: DocumentRecord | undefined,
  signal: AbortSignal,
): Promise<ParsedDocument> {
  const slot = batch.slot(doc.id);
  const inGroup = await slot.groupParse;
  if (inGroup && fetchesFirst(slot.claimed)) await dropWorkFile(batch, doc.id);
  if (inGroup instanceof DocumentFailure) throw inGroup;
  if (inGroup) return inGroup;
  const input = copyOriginal(batch, doc);
  try {
    const inputPath = await input;
    const ahead = readAheadOf(batch.schedule, batch.deps.parser.parseGroup !== undefined, next);
    if (ahead === 'fetch') fetchBytes(batch, next!);
    else if (ahead === 'copy') copyOriginal(batch, next!);
    return await batch.deps.parser.parse(
      {
        path: inputPath,
        filename: doc.filename,
        declaredMediaType: doc.declaredMediaType,
        group: doc.workspaceId,
      },
      signal,
    );
  } finally {
    await dropWorkFile(batch, doc.id);
  }
}

/**
 * A parsed document's text stored, and turned into its language, chunks and index rows (the chunking
 * stage); the document is ready for the index once its text and text map are both stored.
 */
export async function prepareParsed(
  batch: Batch,
  doc: DocumentRecord,
  parsed: ParsedDocument,
  signal: AbortSignal,
): Promise<Extract<Prepared, { kind: 'parsed' }>> {
  const { deps } = batch;
  const slot = batch.slot(doc.id);
  slot.phase = 'parsed';
  const stored = deps.objects.put(artifactKeys.text(doc.id), parsed.text, 'text/markdown; charset=utf-8');
  stored.catch(() => {});
  slot.writes.push(stored);
  const prepared = await batch.timed(signal, 'chunking', () =>
    deps.preparer.prepare(
      {
        document: doc,
        mediaType: parsed.mediaType,
        title: parsed.title,
        text: parsed.text,
        workspaceLanguage: batch.workspaceLanguage,
        told: parsed.language,
      },
      signal,
    ),
  );
  // The map is small; the text's window reads need it, so the document is ready only with both.
  const mapped = deps.objects.put(
    artifactKeys.textMap(doc.id),
    JSON.stringify(prepared.textMap),
    'application/json',
  );
  mapped.catch(() => {});
  slot.writes.push(mapped);
  // A promise of its own, awaited only where the document is completed: when indexing fails first
  // (storage down), nothing awaits it, and a rejection nobody handles would end the worker.
  const both = Promise.all([stored, mapped]).then(() => {});
  both.catch(() => {});
  return {
    kind: 'parsed',
    doc,
    rows: prepared.rows,
    textBytes: parsed.text.length,
    stored: both,
    result: {
      status: 'ready',
      mediaType: parsed.mediaType,
      pageCount: parsed.pageCount,
      chunkCount: prepared.rows.length,
      language: prepared.language,
    },
  };
}
