import type { DocumentAccess, DocumentRecord, RunView } from '../domain/types.js';
import type { PreviousItem, SourceRecord, SourceType, SyncFailureCode } from './model.js';
import type { SyncPlan } from './plan.js';

export interface NewSource {
  id: string;
  accountId: string;
  workspaceId: string;
  type: SourceType;
  name: string | null;
  settings: Record<string, unknown>;
  /** Encrypted (SecretBox, sourceCredentialsContext). */
  credentials: string | null;
  intervalSeconds: number | null;
  maxDeleteShare: number;
  /** Who of the workspace's readers may read the documents it brings (all of them when null). */
  access: DocumentAccess;
}

/** Fields an update sets; those left out keep their value. */
export interface SourceChanges {
  name?: string | null | undefined;
  settings?: Record<string, unknown> | undefined;
  credentials?: string | null | undefined;
  intervalSeconds?: number | null | undefined;
  maxDeleteShare?: number | undefined;
  /** Applied to every document the source brought, and to those it brings later. */
  access?: DocumentAccess | undefined;
}

/** Sources as their owners manage them (adapters/postgres/sources.ts). */
export interface SourceStore {
  /** Undefined when the account has no such workspace. */
  insertSource(source: NewSource): Promise<SourceRecord | undefined>;
  listSources(accountId: string, workspaceId: string): Promise<SourceRecord[]>;
  getSource(accountId: string, sourceId: string): Promise<SourceRecord | undefined>;
  updateSource(
    accountId: string,
    sourceId: string,
    changes: SourceChanges,
  ): Promise<SourceRecord | undefined>;
  /**
   * Deletes the source and marks its documents deleted (one transaction), cancelling a sync under
   * way; answers the documents, whose index rows and objects the caller removes.
   */
  deleteSource(
    accountId: string,
    sourceId: string,
  ): Promise<{ source: SourceRecord; documents: DocumentRecord[] } | undefined>;
  /**
   * The run of a sync of the source: the one requested or under way, or a new one (`created`).
   * Undefined when the account has no such source.
   */
  requestSync(
    accountId: string,
    sourceId: string,
    options: { runId: string; force: boolean },
  ): Promise<{ run: RunView; created: boolean } | undefined>;
}

/** A sync a worker holds: the source, its run and what the previous sync left. */
export interface ClaimedSync {
  source: SourceRecord;
  runId: string;
  runStatus: string;
  force: boolean;
  previous: PreviousItem[];
}

/** What applying a plan did: documents to process, documents to remove from the index and storage. */
export interface AppliedSync {
  enqueue: string[];
  removed: DocumentRecord[];
}

/** The worker's side of sources: scheduling, the sync lease, applying a listing. */
export interface SyncStore {
  /**
   * Starts the syncs whose time has come (a run each) and answers the sources with a sync that no
   * live worker holds: those to enqueue.
   */
  dueSyncs(limit: number, newRunId: () => string): Promise<string[]>;
  /**
   * Takes the source's pending sync for `leaseSeconds`; undefined when there is none or another
   * worker holds it. A sync that more than `maxAttempts` workers took up without finishing is
   * failed instead (whatever it lists takes its worker down).
   */
  claimSync(
    sourceId: string,
    workerId: string,
    leaseSeconds: number,
    maxAttempts?: number,
  ): Promise<ClaimedSync | undefined>;
  /** Extends the lease; false when this worker no longer holds the sync. */
  renewSync(sourceId: string, workerId: string, leaseSeconds: number): Promise<boolean>;
  /** Fails the sync's run with a code, changing nothing else; schedules the next sync. */
  failSync(sourceId: string, workerId: string, code: SyncFailureCode, message: string): Promise<void>;
  /**
   * Applies the plan in one transaction (new documents, changed ones back in the queue with a new
   * version, removed ones deleted, the items recorded) and ends the sync; the run then settles as
   * its documents finish. Undefined when this worker no longer holds the sync.
   */
  applySync(
    sourceId: string,
    workerId: string,
    plan: SyncPlan,
    newDocumentId: () => string,
  ): Promise<AppliedSync | undefined>;
  /** A source as the pipeline needs it to read one of its items. */
  sourceById(sourceId: string): Promise<SourceRecord | undefined>;
}
