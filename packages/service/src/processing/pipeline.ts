import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline as streamPipeline } from 'node:stream/promises';
import { artifactKeys } from '../domain/artifacts.js';
import type { Log } from '../domain/log.js';
import type { DocumentParser, JobQueue, ObjectStore, SearchIndex, UrlFetcher } from '../domain/ports.js';
import { fetchHeadersContext, type SecretBox } from '../domain/secrets.js';
import type { WorkStore } from '../domain/stores.js';
import type { DocumentRecord, DocumentStage } from '../domain/types.js';
import { DependencyUnavailable, DocumentFailure } from '../errors.js';
import { sanitizeFilename } from '../ingestion/upload.js';
import type { EmbeddingService } from '../search/embeddings.js';
import { indexDocument, indexRowsOf } from '../search/indexing.js';
import { chunkText } from './chunker.js';

export interface PipelineDeps {
  work: WorkStore;
  objects: ObjectStore;
  index: SearchIndex;
  parser: DocumentParser;
  fetcher: UrlFetcher;
  /** Decrypts fetch headers of URL documents; undefined when no encryption key is configured. */
  secrets: SecretBox | undefined;
  jobs: Pick<JobQueue, 'enqueueWorkspaceMaintenance'>;
  log: Log;
  tmpDir: string;
  leaseSeconds: number;
  maxAttempts: number;
  observeStage?: (stage: DocumentStage, seconds: number) => void;
  /** Set when an embedding model is configured: chunks get vectors as they are indexed. */
  embeddings?: EmbeddingService | undefined;
}

/** Lost the document to someone else (deleted, cancelled, lease taken over): stop quietly. */
class LeaseLost extends Error {}

/**
 * Processes one document: parse, chunk, index, then mark it finished and settle its run. Every stage
 * can run twice without harm (artifacts are overwritten, index rows are replaced as one set), so a
 * document whose worker died is simply processed again by the next one.
 */
export async function processDocument(
  deps: PipelineDeps,
  documentId: string,
  workerId: string,
): Promise<void> {
  const claim = await deps.work.claimDocument(documentId, workerId, deps.leaseSeconds, deps.maxAttempts);
  if (claim.kind === 'attempts_exhausted') {
    await deps.work.failUnleased(
      documentId,
      'processing_failed',
      `Processing stopped after ${claim.document.attempts} attempts; the last attempt did not finish (the worker may have crashed on this file).`,
    );
    deps.log.warn({ documentId }, 'document failed: attempts exhausted');
    return;
  }
  if (claim.kind !== 'claimed') {
    deps.log.debug({ documentId, outcome: claim.kind }, 'document not claimed');
    return;
  }
  const doc = claim.document;
  const lease = holdLease(deps, documentId, workerId);
  const work = path.join(deps.tmpDir, `${documentId}-${randomBytes(4).toString('hex')}`);
  try {
    const result = await runStages(deps, doc, workerId, work, lease.signal);
    if (!(await deps.work.finishDocument(documentId, workerId, result))) throw new LeaseLost();
    deps.log.info(
      { documentId, status: result.status, chunks: result.chunkCount ?? 0 },
      'document processed',
    );
    await deps.jobs.enqueueWorkspaceMaintenance(doc.workspaceId).catch((err: unknown) => {
      deps.log.warn({ err, workspaceId: doc.workspaceId }, 'could not schedule index maintenance');
    });
  } catch (err) {
    if (err instanceof DocumentFailure) {
      const status =
        err.code === 'needs_ocr' ? 'needs_ocr' : err.code === 'cancelled' ? 'cancelled' : 'failed';
      const finished = await deps.work.finishDocument(documentId, workerId, {
        status,
        errorCode: err.code,
        errorMessage: err.message,
      });
      deps.log.info({ documentId, status, code: err.code, finished }, 'document not indexed');
      return;
    }
    if (err instanceof LeaseLost || lease.signal.aborted) {
      // Deleted or taken over while we worked: make sure nothing we wrote stays searchable if deleted.
      if (await deps.work.isDeleted(documentId)) await deps.index.deleteDocument(doc.workspaceId, documentId);
      deps.log.info({ documentId }, 'document no longer held by this worker');
      return;
    }
    deps.log.error({ err, documentId, attempt: doc.attempts }, 'document processing error');
    if (doc.attempts >= deps.maxAttempts) {
      // Object storage down through every attempt: say so, since the file itself may be fine.
      const storageDown = err instanceof DependencyUnavailable && err.dependency === 'objectStorage';
      await deps.work.finishDocument(documentId, workerId, {
        status: 'failed',
        errorCode: storageDown ? 'storage_unavailable' : 'processing_failed',
        errorMessage: `Processing failed after ${doc.attempts} attempts: ${(err as Error).message}`,
      });
      return;
    }
    // Transient (storage, index, database): let the job engine retry after a back-off.
    await deps.work.releaseLease(documentId, workerId);
    throw err;
  } finally {
    lease.stop();
    await rm(work, { recursive: true, force: true });
  }
}

async function runStages(
  deps: PipelineDeps,
  claimed: DocumentRecord,
  workerId: string,
  work: string,
  signal: AbortSignal,
) {
  let doc = claimed;
  const enter = async (stage: DocumentStage) => {
    if (signal.aborted || !(await deps.work.setStage(doc.id, workerId, stage))) throw new LeaseLost();
    if ((await deps.work.runStatusOf(doc.id)) === 'cancelled') {
      throw new DocumentFailure(
        'cancelled',
        'The run was cancelled while this document was being processed.',
      );
    }
  };
  const timed = async <T>(stage: DocumentStage, fn: () => Promise<T>): Promise<T> => {
    await enter(stage);
    const t0 = performance.now();
    const out = await fn();
    deps.observeStage?.(stage, (performance.now() - t0) / 1000);
    return out;
  };

  // A URL document gets its bytes first. Once they are stored (sha256 known) a re-run skips this.
  if (doc.sourceUrl && doc.sha256 === null) {
    const sourceUrl = doc.sourceUrl;
    doc = await timed('fetching', async () => {
      const encrypted = await deps.work.fetchHeadersOf(doc.id);
      let headers: Record<string, string> = {};
      if (encrypted) {
        if (!deps.secrets)
          throw new DocumentFailure(
            'credentials_unavailable',
            'The fetch credentials cannot be decrypted: no ENCRYPTION_KEY.',
          );
        headers = JSON.parse(deps.secrets.decrypt(encrypted, fetchHeadersContext(doc.id))) as Record<
          string,
          string
        >;
      }
      const fetched = await deps.fetcher.fetch(sourceUrl, signal, headers);
      const hash = createHash('sha256');
      let size = 0;
      const meter = new Transform({
        transform(chunk: Buffer, _enc, done) {
          hash.update(chunk);
          size += chunk.length;
          done(null, chunk);
        },
      });
      fetched.body.on('error', (err) => meter.destroy(err));
      await deps.objects.put(doc.storageKey, fetched.body.pipe(meter), fetched.contentType ?? undefined);
      const updated = await deps.work.recordFetched(doc.id, workerId, {
        sizeBytes: size,
        sha256: hash.digest('hex'),
        declaredMediaType: fetched.contentType,
        filename: sanitizeFilename(fetched.filename),
      });
      if (!updated) throw new LeaseLost();
      return updated;
    });
  }

  const current = doc;
  const parsed = await timed('parsing', async () => {
    await mkdir(work, { recursive: true });
    const input = path.join(work, 'input');
    const original = await deps.objects.get(current.storageKey);
    if (!original)
      throw new DocumentFailure('original_missing', 'The uploaded file is missing from storage.');
    await streamPipeline(original, createWriteStream(input));
    const result = await deps.parser.parse(
      {
        path: input,
        filename: current.filename,
        declaredMediaType: current.declaredMediaType,
        group: current.workspaceId,
      },
      signal,
    );
    await deps.objects.put(artifactKeys.text(doc.id), result.text, 'text/markdown; charset=utf-8');
    return result;
  });

  const chunks = await timed('chunking', async () => chunkText(parsed.text, doc.id));
  if (chunks.length === 0) {
    if (parsed.mediaType === 'application/pdf') {
      throw new DocumentFailure('needs_ocr', 'The PDF has no text layer (a scan?); its text needs OCR.');
    }
    throw new DocumentFailure('empty_document', 'No text could be extracted from this file.');
  }

  await timed('indexing', async () => {
    const rows = indexRowsOf(current, parsed, chunks);
    await indexDocument(deps, current.workspaceId, current.id, rows, signal);
  });

  return {
    status: 'ready' as const,
    mediaType: parsed.mediaType,
    pageCount: parsed.pageCount,
    chunkCount: chunks.length,
  };
}

/** Renews the document's lease while work goes on; aborts the signal when the lease is lost. */
function holdLease(deps: PipelineDeps, documentId: string, workerId: string) {
  const controller = new AbortController();
  const timer = setInterval(
    () => {
      deps.work
        .renewLease(documentId, workerId, deps.leaseSeconds)
        .then((held) => {
          if (!held) controller.abort();
        })
        .catch((err: unknown) => deps.log.warn({ err, documentId }, 'lease renewal failed'));
    },
    Math.max(1000, (deps.leaseSeconds * 1000) / 3),
  );
  timer.unref();
  return { signal: controller.signal, stop: () => clearInterval(timer) };
}
