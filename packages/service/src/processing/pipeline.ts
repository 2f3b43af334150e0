// Over 400 lines: one batch of documents is one state machine (leases held, the group waiting for the
// index, the first retryable failure) that its steps share; split, they would pass it all around.
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, Readable, Transform } from 'node:stream';
import { finished, pipeline as streamPipeline } from 'node:stream/promises';
import { artifactKeys } from '../domain/artifacts.js';
import { sanitizeFilename } from '../domain/filenames.js';
import type { JobHandlers } from '../domain/jobs.js';
import type { Log } from '../domain/log.js';
import type {
  DocumentParser,
  FetchedResource,
  GroupParse,
  IndexRow,
  JobQueue,
  ObjectStore,
  SearchIndex,
  SmallDocument,
  SourceItemBatch,
  SourceItems,
  TextPreparer,
  UrlFetcher,
} from '../domain/ports.js';
import { fetchHeadersContext, type SecretBox } from '../domain/secrets.js';
import type {
  FetchedBytes,
  FinishDocument,
  RecordedFetch,
  StartOutcome,
  WorkStore,
} from '../domain/stores.js';
import type { DocumentRecord, DocumentStage } from '../domain/types.js';
import { DependencyUnavailable, DocumentFailure } from '../errors.js';
import type { EmbeddingService } from '../search/embeddings.js';
import { indexDocuments } from '../search/indexing.js';

export interface PipelineDeps {
  work: WorkStore;
  objects: ObjectStore;
  index: SearchIndex;
  parser: DocumentParser;
  fetcher: UrlFetcher;
  /** Decrypts fetch headers of URL documents; undefined when no encryption key is configured. */
  secrets: SecretBox | undefined;
  jobs: Pick<JobQueue, 'enqueue' | 'enqueueMany' | 'depth'>;
  log: Log;
  tmpDir: string;
  leaseSeconds: number;
  maxAttempts: number;
  /** Most bytes of originals one batch takes (WORKER_BATCH_MAX_BYTES); a larger document goes alone. */
  batchMaxBytes: number;
  /**
   * Most documents one batch takes (WORKER_BATCH_DOCUMENTS), also when it takes them from the queue
   * in another workspace's turn; by default as many as the jobs in hand.
   */
  batchDocuments?: number;
  observeStage?: (stage: DocumentStage, seconds: number) => void;
  /** Told of each document this worker finished, with its resulting status (for the metrics). */
  observeFinished?: (status: FinishDocument['status']) => void;
  /** Set when an embedding model is configured: chunks get vectors as they are indexed. */
  embeddings?: EmbeddingService | undefined;
  /** Reads the items of synced sources (a document with a source gets its bytes from there). */
  sourceItems?: SourceItems | undefined;
  /** Turns each parsed text into its language, chunks and index rows, off the event loop. */
  preparer: TextPreparer;
}

/**
 * A batch's parsed documents are written to the index (one commit) and finished (one transaction)
 * once this long has passed since the first of them started, so that a document is searchable about a
 * second after it was parsed (at once after a long parse), whatever the batch's size.
 */
const FLUSH_AFTER_MS = 1000;
/** ... or once their text reaches this size, which bounds what a batch holds in memory. */
const FLUSH_TEXT_BYTES = 32 * 2 ** 20;

/**
 * Uploads and synced items up to this size are started and parsed in groups (decision 0016): for a
 * small file the write and the request around its parse cost more than the parse. A group holds up to
 * GROUP_DOCUMENTS documents and GROUP_BYTES of originals, which it keeps in memory until it is sent.
 */
const GROUP_DOCUMENT_BYTES = 128 * 1024;
const GROUP_DOCUMENTS = 64;
/** A batch's first group is smaller: its first documents are searchable sooner, the next group parsed meanwhile. */
const FIRST_GROUP_DOCUMENTS = 8;
const GROUP_BYTES = 1024 * 1024;

/**
 * A document whose parse is already at hand is prepared without a turn of the event loop (its awaits
 * resolve at once): a group of them would hold back, for its whole length, the reads and the parse of
 * the next group and the server's requests. The batch lets them run at least this often.
 */
const YIELD_AFTER_MS = 5;

/** Lost the document to someone else (deleted, cancelled, lease taken over): stop quietly. */
class LeaseLost extends Error {}

/**
 * A fetched document's bytes, stored as its original, not yet recorded: a small item's kept in memory
 * for its group's parse, a larger one's copied to the work folder.
 */
type Fetched = {
  sizeBytes: number;
  sha256: string;
  contentType: string | null;
  filename: string;
} & ({ file: string; bytes?: undefined } | { file?: undefined; bytes: Buffer });

/** A fetched document as WorkStore.recordFetched records it: the file name and type it is parsed under. */
const fetchedBytes = (doc: DocumentRecord, fetched: Fetched): FetchedBytes => ({
  documentId: doc.id,
  sizeBytes: fetched.sizeBytes,
  sha256: fetched.sha256,
  declaredMediaType: fetched.contentType,
  filename: sanitizeFilename(fetched.filename),
});

/** A URL or a source's item whose bytes are not stored yet: fetched before it is parsed. */
const fetchesFirst = (doc: DocumentRecord) =>
  (doc.sourceUrl !== null || doc.sourceId !== null) && doc.sha256 === null;

/** What became of one document of a batch before the index. */
type Prepared =
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

/**
 * The handler of the batched `processDocument` job, for the worker `workerId`; `measure` wraps each
 * batch (the worker's batch metric).
 */
export function processingHandler(
  deps: PipelineDeps,
  workerId: string,
  measure?: <T>(work: () => Promise<T>) => Promise<T>,
): JobHandlers['processDocument'] {
  return (payloads) => {
    const work = () =>
      processDocuments(
        deps,
        payloads.map((p) => p.documentId),
        workerId,
      );
    return measure ? measure(work) : work();
  };
}

/**
 * Processes the documents of a batch of jobs: claims those it may take together (one workspace,
 * the one whose turn it is, within the batch's size; see claimDocuments), then parses them one after another through the
 * workspace's parser process and makes them searchable a group at a time: one index commit and one
 * transaction per group. Leases, attempts and failures stay per document, and every step can run
 * twice without harm (artifacts are overwritten, index rows are replaced as one set per document),
 * so the documents of a worker that died are simply processed again by the next one.
 */
export async function processDocuments(
  deps: PipelineDeps,
  documentIds: string[],
  workerId: string,
): Promise<void> {
  const claim = await deps.work.claimDocuments(documentIds, workerId, {
    leaseSeconds: deps.leaseSeconds,
    maxAttempts: deps.maxAttempts,
    maxBytes: deps.batchMaxBytes,
    maxDocuments: deps.batchDocuments,
  });
  for (const s of claim.skipped) {
    deps.log.debug({ documentId: s.documentId, outcome: s.reason }, 'document not claimed');
  }
  try {
    if (claim.deferred.length > 0) {
      // Ahead of the queue: they were next in line, and another consumer may be idle.
      await deps.jobs.enqueueMany(
        'processDocument',
        claim.deferred.map((documentId) => ({ documentId })),
        { ahead: true },
      );
    }
    for (const doc of claim.exhausted) {
      await deps.work.failUnleased(
        doc.id,
        'processing_failed',
        `Processing stopped after ${doc.attempts} attempts; the last attempt did not finish (the worker may have crashed on this file).`,
      );
      deps.log.warn({ documentId: doc.id }, 'document failed: attempts exhausted');
    }
  } catch (err) {
    // Nothing started yet: give the claimed documents back; the jobs are retried.
    const claimed = claim.claimed.map((d) => d.id);
    if (claimed.length > 0) await deps.work.unclaimDocuments(claimed, workerId).catch(() => {});
    throw err;
  }
  if (claim.claimed.length > 0)
    await new Batch(deps, workerId, claim.claimed, claim.workspaceLanguage ?? 'auto').run();
}

class Batch {
  /** Documents this worker holds, whose leases it renews. */
  private readonly held: Set<string>;
  private readonly aborts = new Map<string, AbortController>();
  /** The first error that retrying may cure; the batch stops taking documents after it. */
  private failure: unknown;
  private readonly work: string;
  /**
   * Originals copied to the work folder, by document: the next document's is fetched while the
   * current one is parsed, so that storage and the parser work at the same time.
   */
  private readonly inputs = new Map<string, Promise<string>>();
  /**
   * Bytes of documents that are fetched first (a URL, a source's item), by document: the next one's
   * are read while the current one is parsed, as an upload's original is copied (`inputs`). Recorded
   * on the document only when it starts.
   */
  private readonly fetches = new Map<string, Promise<Fetched>>();
  /**
   * Small documents are started and parsed a group at a time (see startGroup): their starts and
   * parses by document, made when the group's first document starts or the group before is parsed.
   */
  private readonly groupStarts = new Map<string, Promise<StartOutcome>>();
  private readonly grouped = new Map<string, Promise<GroupParse>>();
  /** Synced items of a group whose fetched bytes are being recorded together (see recordTogether). */
  private readonly recorded = new Map<string, Promise<RecordedFetch | undefined>>();
  /** Documents started with a group whose own turn has not come: their attempt is taken back if it never does. */
  private readonly startedAhead = new Set<string>();
  /** Stops the batch's group parses when it ends early. */
  private readonly ending = new AbortController();
  /** Documents whose processing began (`prepare`). */
  private readonly started = new Set<string>();
  /** Extracted texts being written to object storage (see discardDeleted). */
  private readonly writes: Promise<void>[] = [];
  /** Documents this worker lost while it worked on them (deleted, cancelled, taken over). */
  private readonly lost = new Set<string>();
  /** Documents with a copy in the work folder (most small ones have none: their bytes stay in memory). */
  private readonly workFiles = new Set<string>();
  /** Reads the items of the batch's sources, each source's access looked up once (on first use). */
  private sourceItemBatch: SourceItemBatch | undefined;

  constructor(
    private readonly deps: PipelineDeps,
    private readonly workerId: string,
    private readonly docs: DocumentRecord[],
    /** The workspace's `language` setting: `auto`, or the language every document is read in. */
    private readonly workspaceLanguage: string,
  ) {
    this.held = new Set(docs.map((d) => d.id));
    this.work = path.join(deps.tmpDir, `batch-${randomBytes(4).toString('hex')}`);
  }

  private get workspaceId(): string {
    return this.docs[0]!.workspaceId;
  }

  async run(): Promise<void> {
    const renewal = this.holdLeases();
    let flushing: Promise<void> = Promise.resolve();
    let pending: Prepared[] = [];
    let pendingSince = 0;
    let pendingText = 0;
    const unclaim: string[] = [];
    let yielded = performance.now();
    try {
      await mkdir(this.work, { recursive: true });
      for (const [i, doc] of this.docs.entries()) {
        if (this.failure !== undefined) {
          // Left for later, never started: back to the queue without an attempt counted.
          unclaim.push(...this.docs.slice(i).map((d) => d.id));
          break;
        }
        const startedAt = performance.now();
        if (startedAt - yielded >= YIELD_AFTER_MS) {
          await new Promise((resolve) => setImmediate(resolve));
          yielded = performance.now();
        }
        const prepared = await this.prepare(doc, this.docs[i + 1]);
        if (prepared.kind === 'paused') unclaim.push(doc.id);
        else if (prepared.kind === 'lost') this.lose(doc.id);
        else if (prepared.kind === 'unchanged') this.held.delete(doc.id);
        else if (prepared.kind === 'error') {
          await this.retryLater([prepared.doc], prepared.error);
        } else {
          // From the document's start: a long parse alone is reason enough to write it out.
          if (pending.length === 0) pendingSince = startedAt;
          pending.push(prepared);
          if (prepared.kind === 'parsed') pendingText += prepared.textBytes;
        }
        const last = i === this.docs.length - 1 || this.failure !== undefined;
        if (
          pending.length > 0 &&
          (last || performance.now() - pendingSince >= FLUSH_AFTER_MS || pendingText >= FLUSH_TEXT_BYTES)
        ) {
          // A group of small documents is written while the next ones are parsed (never two groups at
          // once). A group of one is a document that took the whole second itself: writing it beside
          // the next large parse only made both compete for the CPU (measured: R manuals 10 % slower).
          await flushing;
          flushing = this.flush(pending, last);
          if (pending.length === 1) await flushing;
          pending = [];
          pendingText = 0;
        }
      }
      await flushing;
      if (pending.length > 0) await this.flush(pending, true);
      if (unclaim.length > 0) {
        // A group started ahead may still be on its way (its start, its items' records): its documents'
        // attempts are taken back too.
        await Promise.allSettled([...this.groupStarts.values(), ...this.recorded.values()]);
        await this.deps.work.unclaimDocuments(unclaim, this.workerId, this.startedAhead);
        for (const id of unclaim) this.held.delete(id);
      }
    } finally {
      renewal.stop();
      // Bytes read ahead for documents the batch did not start (it stopped early): not wanted now.
      for (const id of this.fetches.keys()) if (!this.started.has(id)) this.aborts.get(id)?.abort();
      this.ending.abort();
      await Promise.allSettled([
        ...this.fetches.values(),
        ...this.grouped.values(),
        ...this.recorded.values(),
      ]);
      await this.sourceItemBatch
        ?.close()
        .catch((err: unknown) => this.deps.log.warn({ err }, 'could not close what the sources held'));
      await rm(this.work, { recursive: true, force: true });
      await this.discardDeleted().catch((err: unknown) =>
        this.deps.log.warn({ err, workspaceId: this.workspaceId }, 'could not check for deleted documents'),
      );
    }
    // The pg-boss jobs of the batch fail and are retried after a back-off; documents finished
    // meanwhile are skipped then, the others claimed again.
    if (this.failure !== undefined) throw this.failure;
  }

  /** Removes a document's copy in the work folder, if it has one, as soon as it is parsed. */
  private async dropWorkFile(documentId: string): Promise<void> {
    if (this.workFiles.delete(documentId)) await rm(path.join(this.work, documentId), { force: true });
  }

  /**
   * Copies a document's original to the work folder (once). A document whose bytes are not stored yet
   * (a URL, a source's item) is fetched first, and its copy written then (see fetch).
   */
  private input(doc: DocumentRecord): Promise<string> {
    let copied = this.inputs.get(doc.id);
    if (!copied) {
      copied = (async () => {
        const original = await this.deps.objects.get(doc.storageKey);
        if (!original)
          throw new DocumentFailure('original_missing', 'The uploaded file is missing from storage.');
        const file = path.join(this.work, doc.id);
        this.workFiles.add(doc.id);
        await streamPipeline(original, createWriteStream(file));
        return file;
      })();
      // Awaited when the document is parsed; until then a failure must not count as unhandled.
      copied.catch(() => {});
      this.inputs.set(doc.id, copied);
    }
    return copied;
  }

  /** Everything up to the index for one document: start, fetch (URLs), parse, store the text, chunk. */
  private async prepare(claimed: DocumentRecord, next: DocumentRecord | undefined): Promise<Prepared> {
    const { deps, workerId } = this;
    this.started.add(claimed.id);
    this.startedAhead.delete(claimed.id);
    const signal = this.abortOf(claimed.id).signal;
    const fetchFirst = fetchesFirst(claimed);
    const started = await (
      this.groupStarts.get(claimed.id) ??
      this.startGroup(claimed) ??
      deps.work
        .startDocuments([claimed.id], workerId, fetchFirst ? 'fetching' : 'parsing')
        .then((s) => s.get(claimed.id)!)
    ).catch((error: unknown) => ({ error }));
    if ('error' in started) return { kind: 'error', doc: claimed, error: started.error };
    if (!started.held) return { kind: 'lost', doc: claimed };
    if (started.runStatus === 'paused') return { kind: 'paused', doc: claimed };
    if (started.runStatus === 'cancelled') {
      return {
        kind: 'failed',
        doc: claimed,
        result: {
          status: 'cancelled',
          errorCode: 'cancelled',
          errorMessage: 'The run was cancelled before this document was processed.',
        },
      };
    }
    let doc: DocumentRecord = { ...claimed, attempts: started.attempts };
    const timed = async <T>(stage: DocumentStage, fn: () => Promise<T>): Promise<T> => {
      const t0 = performance.now();
      const out = await fn();
      deps.observeStage?.(stage, (performance.now() - t0) / 1000);
      if (signal.aborted) throw new LeaseLost();
      return out;
    };
    try {
      if (fetchFirst) {
        const fetching = doc;
        doc = await timed('fetching', async () => {
          // An item of a group is fetched, recorded (recordTogether) and parsed with it.
          await this.grouped.get(fetching.id);
          const bytes = this.fetch(fetching);
          if (next && fetchesFirst(next)) this.fetch(next);
          return this.recordFetched(fetching, await bytes);
        });
      }
      // Also for a document whose bytes an earlier attempt stored before it stopped.
      if (doc.indexedSha256 && doc.sha256 === doc.indexedSha256) {
        await this.dropWorkFile(doc.id);
        if (await deps.work.keepIndexedVersion(doc.id, workerId)) return { kind: 'unchanged', doc };
        throw new LeaseLost();
      }
      const current = doc;
      const parsed = await timed('parsing', async () => {
        const inGroup = await this.grouped.get(current.id);
        if (inGroup && fetchFirst) await this.dropWorkFile(current.id);
        if (inGroup instanceof DocumentFailure) throw inGroup;
        if (inGroup) return inGroup;
        const input = this.input(current);
        try {
          const inputPath = await input;
          if (next && fetchesFirst(next)) this.fetch(next);
          else if (next && next.sha256 !== null && !this.groupable(next)) this.input(next);
          return await deps.parser.parse(
            {
              path: inputPath,
              filename: current.filename,
              declaredMediaType: current.declaredMediaType,
              group: current.workspaceId,
            },
            signal,
          );
        } finally {
          await this.dropWorkFile(current.id);
        }
      });
      const stored = deps.objects.put(
        artifactKeys.text(current.id),
        parsed.text,
        'text/markdown; charset=utf-8',
      );
      stored.catch(() => {});
      this.writes.push(stored);
      const prepared = await timed('chunking', () =>
        deps.preparer.prepare(
          {
            document: current,
            mediaType: parsed.mediaType,
            title: parsed.title,
            text: parsed.text,
            workspaceLanguage: this.workspaceLanguage,
            told: parsed.language,
          },
          signal,
        ),
      );
      // The map is small; the text's window reads need it, so the document is ready only with both.
      const mapped = deps.objects.put(
        artifactKeys.textMap(current.id),
        JSON.stringify(prepared.textMap),
        'application/json',
      );
      mapped.catch(() => {});
      this.writes.push(mapped);
      // A promise of its own, awaited only where the document is completed: when indexing fails first
      // (storage down), nothing awaits it, and a rejection nobody handles would end the worker.
      const both = Promise.all([stored, mapped]).then(() => {});
      both.catch(() => {});
      return {
        kind: 'parsed',
        doc: current,
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
    } catch (err) {
      if (err instanceof DocumentFailure) {
        const status =
          err.code === 'needs_ocr' ? 'needs_ocr' : err.code === 'cancelled' ? 'cancelled' : 'failed';
        return { kind: 'failed', doc, result: { status, errorCode: err.code, errorMessage: err.message } };
      }
      if (err instanceof LeaseLost || signal.aborted) return { kind: 'lost', doc };
      return { kind: 'error', doc, error: err };
    }
  }

  /**
   * A small document whose original is stored, or a synced source's small item (its size as listed).
   * One on a later attempt is never grouped: it comes in a small batch of such documents or alone
   * (claimDocuments, batchPlace) and is started and parsed by itself, so that a fault that ends the
   * worker again is pinned on it and raises no other document's attempts.
   */
  private groupable(doc: DocumentRecord): boolean {
    return (
      this.deps.parser.parseGroup !== undefined &&
      doc.attempts === 0 &&
      (!fetchesFirst(doc) || (doc.sourceId !== null && doc.sourceItem !== null)) &&
      doc.sizeBytes !== null &&
      doc.sizeBytes <= GROUP_DOCUMENT_BYTES
    );
  }

  /**
   * Starts a group: the document and the groupable ones after it in the batch, in one write, and
   * then parses those started in one request (DocumentParser.parseGroup), once the group before it
   * (`before`) is parsed. Called when the document's turn comes, or ahead of it when the group before
   * it begins its parse. Undefined when the document begins no group (not groupable, or nothing to
   * group it with).
   */
  private startGroup(first: DocumentRecord, before?: Promise<unknown>): Promise<StartOutcome> | undefined {
    const members: DocumentRecord[] = [];
    const most = this.groupStarts.size === 0 ? FIRST_GROUP_DOCUMENTS : GROUP_DOCUMENTS;
    // Items fetched first and stored originals are not mixed: they start at different stages.
    const fetched = fetchesFirst(first);
    let bytes = 0;
    for (const doc of this.docs.slice(this.docs.findIndex((d) => d.id === first.id))) {
      if (!this.groupable(doc) || fetchesFirst(doc) !== fetched || members.length === most) break;
      if (bytes + doc.sizeBytes! > GROUP_BYTES) break;
      members.push(doc);
      bytes += doc.sizeBytes!;
    }
    if (members.length < 2) return undefined;
    // The group's bytes are read as soon as it is formed, while the group before it is parsed: read
    // once that parse was over, they left the parser waiting between groups.
    const reads = new Map(members.map((d) => [d.id, this.smallDocument(d).catch(() => undefined)]));
    const starting = this.deps.work.startDocuments(
      members.map((d) => d.id),
      this.workerId,
      fetched ? 'fetching' : 'parsing',
    );
    // One parse at a time: the parser's process takes one request after another.
    const ready = Promise.all([starting, before?.catch(() => {})]);
    const parsing: Promise<Map<string, GroupParse>> = ready.then(async ([starts]) => {
      const parsed = members.filter((d) => {
        const s = starts.get(d.id);
        return s?.held === true && s.runStatus === 'processing';
      });
      for (const d of parsed) if (!this.started.has(d.id)) this.startedAhead.add(d.id);
      // The next group's start (a database write) is made while this one is parsed, and its parse
      // follows this one's: the parser then never waits for a start, nor the chunker for the parser.
      this.startGroupAfter(members.at(-1)!, parsing);
      const results = await this.parseGroup(parsed, reads);
      return new Map(parsed.map((d, i) => [d.id, results[i]]));
    });
    for (const doc of members) {
      const start = starting.then((s) => s.get(doc.id)!);
      // Awaited when the document's turn comes; until then a failure must not count as unhandled.
      start.catch(() => {});
      this.groupStarts.set(doc.id, start);
      // Whatever failed (storage, the parser process) is met again, by each document alone.
      this.grouped.set(
        doc.id,
        parsing.then(
          (results) => results.get(doc.id),
          () => undefined,
        ),
      );
    }
    return this.groupStarts.get(first.id);
  }

  /** Starts the group that follows `last` in the batch, unless it has begun or the batch is stopping. */
  private startGroupAfter(last: DocumentRecord, before: Promise<unknown>): void {
    const next = this.docs[this.docs.indexOf(last) + 1];
    if (!next || this.groupStarts.has(next.id) || this.failure !== undefined || this.ending.signal.aborted)
      return;
    this.startGroup(next, before);
  }

  /**
   * One request for the group's documents, with their bytes as `reads` has them: stored originals
   * read from storage, synced items fetched (each read once, as alone: stored as its original, and
   * recorded together). A document whose bytes could not be had, or grew past a small document's
   * size, is parsed alone.
   */
  private async parseGroup(
    docs: DocumentRecord[],
    reads: Map<string, Promise<SmallDocument | undefined>>,
  ): Promise<GroupParse[]> {
    const inputs = await Promise.all(docs.map((d) => reads.get(d.id)!));
    this.recordTogether(docs.filter((d, i) => inputs[i] !== undefined && fetchesFirst(d)));
    const sent = inputs.filter((i) => i !== undefined);
    if (sent.length === 0) return docs.map(() => undefined);
    const results = await this.deps.parser.parseGroup!(sent, this.workspaceId, this.ending.signal, {
      detectLanguage: this.workspaceLanguage === 'auto' && this.deps.preparer.detectsLanguages,
    });
    let next = 0;
    return inputs.map((i) => (i === undefined ? undefined : results[next++]));
  }

  /**
   * Records the fetched bytes of a group's synced items in one write, while the group is parsed;
   * each item takes its outcome at its turn (recordFetched). One write per item was the largest
   * part of what a folder's first sync cost beyond an upload of the same files.
   */
  private recordTogether(docs: DocumentRecord[]): void {
    if (docs.length === 0) return;
    const writing = Promise.all(docs.map((d) => this.fetch(d))).then((fetched) =>
      this.deps.work.recordFetched(
        this.workerId,
        docs.map((d, i) => fetchedBytes(d, fetched[i]!)),
      ),
    );
    for (const doc of docs) {
      const recorded = writing.then((all) => all.get(doc.id));
      // Taken at the document's turn; until then a failure must not count as unhandled.
      recorded.catch(() => {});
      this.recorded.set(doc.id, recorded);
    }
  }

  private async smallDocument(doc: DocumentRecord): Promise<SmallDocument | undefined> {
    if (!fetchesFirst(doc)) {
      const bytes = await this.deps.objects.getBuffer(doc.storageKey);
      return bytes && { bytes, filename: doc.filename, declaredMediaType: doc.declaredMediaType };
    }
    const fetched = await this.fetch(doc);
    if (fetched.sizeBytes > GROUP_DOCUMENT_BYTES) return undefined;
    // As they are recorded (fetchedBytes), so that the document is parsed as it is then described.
    return {
      bytes: fetched.bytes ?? (await readFile(fetched.file)),
      filename: sanitizeFilename(fetched.filename),
      declaredMediaType: fetched.contentType,
    };
  }

  /** The document's abort controller, made by whichever asks first: its read-ahead or its start. */
  private abortOf(documentId: string): AbortController {
    let abort = this.aborts.get(documentId);
    if (!abort) {
      abort = new AbortController();
      this.aborts.set(documentId, abort);
    }
    return abort;
  }

  /**
   * The bytes of a document fetched first, read once: ahead of its start while the document before
   * it is parsed, or when it starts. Nothing is recorded on the document here, so a document that
   * turns out paused, cancelled or lost only leaves its original in storage, where a re-run writes it
   * again (and a deletion's clean-up finds it: the batch's writes are awaited first).
   */
  private fetch(doc: DocumentRecord): Promise<Fetched> {
    let fetched = this.fetches.get(doc.id);
    if (!fetched) {
      const signal = this.abortOf(doc.id).signal;
      fetched = (async () =>
        this.download(
          doc,
          doc.sourceId !== null && doc.sourceItem !== null
            ? await this.openSourceItem(doc.sourceId, doc.sourceItem, signal)
            : await this.deps.fetcher.fetch(doc.sourceUrl!, signal, await this.fetchHeaders(doc)),
        ))();
      // Awaited when the document starts; until then a failure must not count as unhandled.
      fetched.catch(() => {});
      this.writes.push(
        fetched.then(
          () => {},
          () => {},
        ),
      );
      this.fetches.set(doc.id, fetched);
    }
    return fetched;
  }

  /** An item of a synced source, read through the batch's reader (each source's access looked up once). */
  private openSourceItem(sourceId: string, key: string, signal: AbortSignal): Promise<FetchedResource> {
    if (!this.deps.sourceItems)
      throw new DocumentFailure('fetch_failed', 'This worker cannot read synced sources.');
    this.sourceItemBatch ??= this.deps.sourceItems.forBatch();
    return this.sourceItemBatch.open(sourceId, key, signal);
  }

  /**
   * Stores fetched bytes as the document's original, hashed on the way; they are read once from their
   * source, never read back. A small item (as listed) is read into memory, stored from there and
   * parsed with its group: a folder's first sync spent more on streams, the work folder's copy and
   * reading it back than on the item. One that turns out larger than a small document goes on as a
   * stream with what was read so far.
   */
  private async download(doc: DocumentRecord, fetched: FetchedResource): Promise<Fetched> {
    if (!this.groupable(doc)) return this.downloadToFile(doc, fetched);
    const chunks: Buffer[] = [];
    let size = 0;
    const reading = fetched.body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    for (let next = await reading.next(); !next.done; next = await reading.next()) {
      chunks.push(next.value);
      size += next.value.length;
      if (size > GROUP_DOCUMENT_BYTES) {
        const rest = async function* () {
          yield* chunks;
          for (let more = await reading.next(); !more.done; more = await reading.next()) yield more.value;
        };
        return this.downloadToFile(doc, { ...fetched, body: Readable.from(rest(), { objectMode: false }) });
      }
    }
    const bytes = Buffer.concat(chunks, size);
    await this.deps.objects.put(doc.storageKey, bytes, fetched.contentType ?? undefined);
    return {
      bytes,
      sizeBytes: size,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      contentType: fetched.contentType,
      filename: fetched.filename,
    };
  }

  /** Stores the bytes and, in the same pass, writes the parser's copy to the work folder. */
  private async downloadToFile(doc: DocumentRecord, fetched: FetchedResource): Promise<Fetched> {
    const { deps } = this;
    const hash = createHash('sha256');
    let size = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        hash.update(chunk);
        size += chunk.length;
        done(null, chunk);
      },
    });
    const file = path.join(this.work, doc.id);
    this.workFiles.add(doc.id);
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
        deps.objects.put(doc.storageKey, toStore, fetched.contentType ?? undefined),
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

  /**
   * Records fetched bytes on the started document, which moves on to parsing (once they are recorded,
   * sha256 known, a re-run skips the fetch).
   */
  private async recordFetched(doc: DocumentRecord, fetched: Fetched): Promise<DocumentRecord> {
    const updated = await (this.recorded.get(doc.id) ??
      this.deps.work
        .recordFetched(this.workerId, [fetchedBytes(doc, fetched)])
        .then((recorded) => recorded.get(doc.id)));
    if (!updated) throw new LeaseLost();
    // Bytes kept in memory are parsed with their group; parsed alone, they are read from storage (input).
    if (fetched.file) this.inputs.set(doc.id, Promise.resolve(fetched.file));
    if (updated.runStatus === 'cancelled') throw cancelledWhileProcessing();
    return { ...updated.document, attempts: doc.attempts };
  }

  /** The decrypted headers a URL document is fetched with (none for most). */
  private async fetchHeaders(doc: DocumentRecord): Promise<Record<string, string>> {
    const { deps } = this;
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
   * Makes a group of parsed documents searchable (one index commit) and finishes them with the
   * group's failures (one transaction). A document cancelled, deleted or taken over meanwhile is left
   * out; an error that retrying may cure sends the whole group back for another attempt.
   */
  private async flush(group: Prepared[], last: boolean): Promise<void> {
    const { deps, workerId } = this;
    const results: { documentId: string; result: FinishDocument }[] = [];
    const written: Extract<Prepared, { kind: 'parsed' }>[] = [];
    let searchable = false;
    try {
      const parsed = group.filter((p): p is Extract<Prepared, { kind: 'parsed' }> => p.kind === 'parsed');
      const runs =
        parsed.length > 0
          ? await deps.work.setStages(
              parsed.map((p) => p.doc.id),
              workerId,
              'indexing',
            )
          : new Map();
      const stored = await Promise.allSettled(parsed.map((p) => p.stored));
      for (const [i, p] of parsed.entries()) {
        const run = runs.get(p.doc.id);
        const put = stored[i]!;
        if (put.status === 'rejected') {
          await this.retryLater([p.doc], put.reason);
        } else if (!run || this.aborts.get(p.doc.id)?.signal.aborted) {
          this.lose(p.doc.id);
        } else if (run === 'cancelled') {
          const failure = cancelledWhileProcessing();
          results.push({
            documentId: p.doc.id,
            result: { status: 'cancelled', errorCode: failure.code, errorMessage: failure.message },
          });
        } else {
          written.push(p);
        }
      }
      if (written.length > 0) {
        const t0 = performance.now();
        await indexDocuments(
          deps,
          this.workspaceId,
          written.map((p) => ({ documentId: p.doc.id, rows: p.rows })),
        );
        const share = (performance.now() - t0) / 1000 / written.length;
        for (const p of written) {
          deps.observeStage?.('indexing', share);
          results.push({ documentId: p.doc.id, result: p.result });
        }
      }
      for (const p of group) {
        if (p.kind === 'failed') results.push({ documentId: p.doc.id, result: p.result });
      }
      const finished = await deps.work.finishDocuments(workerId, results);
      searchable = written.some((p) => finished.has(p.doc.id));
      for (const { documentId, result } of results) {
        this.held.delete(documentId);
        if (finished.has(documentId)) {
          deps.observeFinished?.(result.status);
          if (result.status === 'ready') {
            deps.log.info(
              { documentId, status: result.status, chunks: result.chunkCount },
              'document processed',
            );
          } else {
            deps.log.info(
              { documentId, status: result.status, code: result.errorCode },
              'document not indexed',
            );
          }
        } else {
          // Deleted or taken over while we worked: what we wrote is checked at the end of the batch.
          this.lose(documentId);
        }
      }
    } catch (err) {
      // Those of the group not settled yet (finished, lost or sent back already).
      await this.retryLater(
        group
          .filter((p) => (p.kind === 'parsed' || p.kind === 'failed') && this.held.has(p.doc.id))
          .map((p) => p.doc),
        err,
      );
      return;
    }
    // Only for rows that stay: a deleted workspace's are removed with it. A run this group finished
    // completes once its rows are folded in: then the maintenance runs now, not after the usual wait
    // that lets a burst of groups fold in one optimisation. The worker's maintenance consumer takes it
    // when it next looks (within 2 s), or at once after a batch's last group when no other batch is
    // queued: the end of a burst, whose runs are then complete as soon as their rows are folded in.
    if (searchable) {
      const schedule = async () => {
        const waiting = (await deps.work.runsAwaitingIndex(this.workspaceId)).length > 0;
        const wake = waiting && last && (await deps.jobs.depth('processDocument')).queued === 0;
        await deps.jobs.enqueue(
          'maintainWorkspace',
          waiting ? { workspaceId: this.workspaceId, urgent: true } : { workspaceId: this.workspaceId },
          { wake },
        );
      };
      await schedule().catch((err: unknown) => {
        deps.log.warn({ err, workspaceId: this.workspaceId }, 'could not schedule index maintenance');
      });
    }
  }

  /**
   * Documents that met an error retrying may cure (storage, index, database) are retried after a
   * back-off, or failed when that was their last attempt; the batch takes no new document.
   */
  private async retryLater(docs: DocumentRecord[], err: unknown): Promise<void> {
    const { deps, workerId } = this;
    this.failure ??= err;
    try {
      for (const doc of docs) {
        deps.log.error({ err, documentId: doc.id, attempt: doc.attempts }, 'document processing error');
        this.held.delete(doc.id);
      }
      const last = docs.filter((d) => d.attempts >= deps.maxAttempts);
      if (last.length > 0) {
        // Object storage down through every attempt: say so, since the file itself may be fine.
        const storageDown = err instanceof DependencyUnavailable && err.dependency === 'objectStorage';
        await deps.work.finishDocuments(
          workerId,
          last.map((d) => ({
            documentId: d.id,
            result: {
              status: 'failed',
              errorCode: storageDown ? 'storage_unavailable' : 'processing_failed',
              errorMessage: `Processing failed after ${d.attempts} attempts: ${(err as Error).message}`,
            },
          })),
        );
      }
      const again = docs.filter((d) => d.attempts < deps.maxAttempts).map((d) => d.id);
      if (again.length > 0) await deps.work.releaseLeases(again, workerId);
    } catch (settleErr) {
      // The database itself is failing: the leases lapse on their own and the documents come back.
      deps.log.warn({ err: settleErr }, 'could not release the documents of a failed batch');
    }
  }

  private lose(documentId: string): void {
    this.held.delete(documentId);
    this.lost.add(documentId);
    this.deps.log.info({ documentId }, 'document no longer held by this worker');
  }

  /**
   * A document deleted while this batch worked on it, alone or with its whole workspace, must not come
   * back through what the batch wrote after the deletion removed its things: its extracted text, its
   * original fetched from a URL, its index rows, or index tables a write created again. Looked at once
   * every write of the batch has settled, so that whatever a deletion could not see, this sees. A
   * deleted workspace's leftovers are handed to its deletion, which the reconcilers carry out.
   */
  private async discardDeleted(): Promise<void> {
    if (this.lost.size === 0 && this.failure === undefined) return;
    const { deps } = this;
    await Promise.allSettled(this.writes);
    const gone = await deps.work.deletedAmong(
      this.workspaceId,
      this.docs.map((d) => d.id),
    );
    const keys = this.docs
      .filter((d) => gone.workspace || gone.documents.has(d.id))
      .flatMap((d) => [...new Set([d.storageKey, ...artifactKeys.all(d.id)])]);
    if (gone.workspace) {
      await deps.work.reopenDeletion(this.workspaceId, keys);
      deps.log.info(
        { workspaceId: this.workspaceId },
        'workspace deleted during the batch: its writes are removed',
      );
      return;
    }
    if (gone.documents.size === 0) return;
    for (const id of gone.documents) await deps.index.deleteDocument(this.workspaceId, id);
    await deps.objects.delete(keys);
  }

  /** Renews the leases of the documents still held; aborts the work on those lost. */
  private holdLeases() {
    const { deps, workerId } = this;
    const timer = setInterval(
      () => {
        const ids = [...this.held];
        if (ids.length === 0) return;
        deps.work
          .renewLeases(ids, workerId, deps.leaseSeconds)
          .then((kept) => {
            for (const id of ids) {
              if (kept.has(id)) continue;
              this.aborts.get(id)?.abort();
              this.held.delete(id);
            }
          })
          .catch((err: unknown) => deps.log.warn({ err }, 'lease renewal failed'));
      },
      Math.max(1000, (deps.leaseSeconds * 1000) / 3),
    );
    timer.unref();
    return { stop: () => clearInterval(timer) };
  }
}

function cancelledWhileProcessing(): DocumentFailure {
  return new DocumentFailure('cancelled', 'The run was cancelled while this document was being processed.');
}
