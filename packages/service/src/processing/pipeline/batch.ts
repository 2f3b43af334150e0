import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Log } from '../../domain/log.js';
import type {
  DocumentParser,
  JobQueue,
  ObjectStore,
  SearchIndex,
  SourceItemBatch,
  SourceItems,
  TextPreparer,
  UrlFetcher,
} from '../../domain/ports.js';
import type { SecretBox } from '../../domain/secrets.js';
import type { FinishDocument, WorkStore } from '../../domain/stores.js';
import type { DocumentRecord, DocumentStage } from '../../domain/types.js';
import type { EmbeddingService } from '../../search/embeddings.js';
import { groupable, type Schedule, TUNED_SCHEDULE } from './schedule.js';
import { DocumentSlot, LeaseLost } from './slot.js';

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
  /** Group sizes and flush timing; TUNED_SCHEDULE unless a test sets its own. */
  schedule?: Schedule;
}

/**
 * One batch of claimed documents, all of one workspace: what its stages share. Each document's own
 * state is its slot's; the batch keeps only what spans them.
 */
export class Batch {
  readonly schedule: Schedule;
  /** The batch's documents in the order they are processed, each with its slot. */
  readonly slots: ReadonlyMap<string, DocumentSlot>;
  /** The work folder: copies of originals for the parser. */
  readonly workDir: string;
  /** The first error that retrying may cure; the batch stops taking documents after it. */
  failure: unknown;
  /** Stops the batch's group parses when it ends early. */
  readonly ending = new AbortController();
  /** Groups formed so far (the first is smaller). */
  groupsFormed = 0;
  /** Reads the items of the batch's sources, each source's access looked up once (on first use). */
  sourceItemBatch: SourceItemBatch | undefined;

  constructor(
    readonly deps: PipelineDeps,
    readonly workerId: string,
    readonly docs: readonly DocumentRecord[],
    /** The workspace's `language` setting: `auto`, or the language every document is read in. */
    readonly workspaceLanguage: string,
  ) {
    this.schedule = deps.schedule ?? TUNED_SCHEDULE;
    this.slots = new Map(docs.map((d) => [d.id, new DocumentSlot(d)]));
    this.workDir = path.join(deps.tmpDir, `batch-${randomBytes(4).toString('hex')}`);
  }

  get workspaceId(): string {
    return this.docs[0]!.workspaceId;
  }

  slot(documentId: string): DocumentSlot {
    return this.slots.get(documentId)!;
  }

  /** Whether the document may be started and parsed with others (schedule.ts). */
  groupable(doc: DocumentRecord): boolean {
    return groupable(this.schedule, this.deps.parser.parseGroup !== undefined, doc);
  }

  /** Documents still held by this worker, whose leases it renews. */
  held(): string[] {
    return [...this.slots.values()].filter((s) => s.held).map((s) => s.id);
  }

  /**
   * Runs one stage of a document and tells observeStage how long it took; a document lost meanwhile
   * (its signal aborted) goes no further.
   */
  async timed<T>(signal: AbortSignal, stage: DocumentStage, fn: () => Promise<T>): Promise<T> {
    const t0 = performance.now();
    const out = await fn();
    this.deps.observeStage?.(stage, (performance.now() - t0) / 1000);
    if (signal.aborted) throw new LeaseLost();
    return out;
  }
}
