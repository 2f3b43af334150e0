import { effectiveLimits, type QuotaStore, syncRoom, syncSkipReason } from '../accounts/quotas.js';
import { artifactKeys } from '../domain/artifacts.js';
import type { JobHandlers } from '../domain/jobs.js';
import type { Log } from '../domain/log.js';
import type { JobQueue, ObjectStore, SearchIndex } from '../domain/ports.js';
import type { SecretBox } from '../domain/secrets.js';
import type { DocumentRecord, QuotaLimits, SkippedItems } from '../domain/types.js';
import { newId } from '../ids.js';
import { type FolderRootGrant, rootsFor } from './grants.js';
import {
  type ListedItem,
  type PreviousItem,
  type SourceAccess,
  type SourceConnectors,
  SourceFailure,
  type SourceLister,
  type SourceRecord,
  sourceCredentialsContext,
} from './model.js';
import { exceedsDeletionLimit, planSync, type SyncPlan } from './plan.js';
import type { SyncStore } from './store.js';

export interface SyncDeps {
  syncs: SyncStore;
  connectors: SourceConnectors;
  /** Lists sources where a hostile one costs only its sync (a thread with a watchdog). */
  lister: SourceLister;
  /** SOURCE_FOLDER_ROOTS: which folders each account may sync. */
  folderGrants: readonly FolderRootGrant[];
  secrets: SecretBox | undefined;
  jobs: Pick<JobQueue, 'enqueue' | 'enqueueMany'>;
  index: Pick<SearchIndex, 'deleteDocument'>;
  objects: Pick<ObjectStore, 'delete'>;
  log: Log;
  /** How long a worker holds a sync without renewing it (DOCUMENT_LEASE_SECONDS). */
  leaseSeconds: number;
  /** Workers that may take up one sync (DOCUMENT_MAX_ATTEMPTS): a listing that kills each fails. */
  maxAttempts: number;
  /** The account's quotas: a sync adds what fits in them. */
  quotas: Pick<QuotaStore, 'quotaOverrides' | 'accountUse'>;
  quotaDefaults: QuotaLimits;
}

/**
 * The plan with only the new items that fit in the account's document and stored-bytes quotas; the
 * rest are skipped with the quota's reason (on the run), kept out of the items recorded so that the
 * next sync adds them once there is room. What the workspace holds is never removed for a quota.
 * The use is read without a lock: an upload committing at the same moment can pass the quota by
 * that upload's files.
 */
async function withinQuotas(deps: SyncDeps, accountId: string, plan: SyncPlan): Promise<SyncPlan> {
  if (plan.added.length === 0) return plan;
  const [overrides, use] = await Promise.all([
    deps.quotas.quotaOverrides(accountId),
    deps.quotas.accountUse(accountId),
  ]);
  const limits = effectiveLimits(deps.quotaDefaults, overrides);
  const sizes = plan.added.map((item) => item.fingerprint.sizeBytes ?? null);
  const { fits, refusal } = syncRoom(limits, use, sizes);
  if (!refusal) return plan;
  const over = plan.added.slice(fits);
  const reason = {
    reason: syncSkipReason(refusal),
    count: over.length,
    examples: over.slice(0, 5).map((i) => i.key),
  };
  const skipped: SkippedItems = {
    total: (plan.skipped?.total ?? 0) + over.length,
    reasons: [reason, ...(plan.skipped?.reasons ?? [])],
  };
  deps.log.warn({ accountId, ...refusal, skipped: over.length }, 'sync over quota: new items left out');
  return { ...plan, added: plan.added.slice(0, fits), skipped };
}

/** The settings, decrypted credentials and granted folders a connector works with. */
export function accessOf(
  source: SourceRecord,
  secrets: SecretBox | undefined,
  grants: readonly FolderRootGrant[],
): SourceAccess {
  let credentials: Record<string, string> | undefined;
  if (source.credentials) {
    if (!secrets)
      throw new SourceFailure(
        'credentials_unavailable',
        'The source credentials cannot be decrypted: no ENCRYPTION_KEY.',
      );
    credentials = JSON.parse(
      secrets.decrypt(source.credentials, sourceCredentialsContext(source.id)),
    ) as Record<string, string>;
  }
  const roots =
    source.type === 'folder' ? rootsFor(grants, { id: source.accountId, name: source.accountName }) : [];
  return { id: source.id, type: source.type, settings: source.settings, credentials, roots };
}

export interface SyncOutcome {
  status: 'applied' | 'failed' | 'not_held' | 'cancelled';
  added?: number;
  changed?: number;
  unchanged?: number;
  removed?: number;
}

/** How long a sync put off (see SyncSlots) waits before a worker tries it again. */
export const SYNC_PUT_OFF_SECONDS = 3;

/**
 * The syncs one worker runs at once (as many as the queue has consumers, WORKER_SYNC_CONCURRENCY),
 * shared among accounts: one account holds at most `perAccount` of them, so that its syncs waiting
 * on the network (a slow site, a bucket that does not answer) leave the other slots to other
 * accounts. Never two of one source: the sync's lease is this worker's, and a second job of the
 * source taken by another of its consumers would claim that lease again and list the source twice.
 */
export class SyncSlots {
  private readonly sources = new Set<string>();
  private readonly accounts = new Map<string, number>();

  constructor(private readonly perAccount: number) {}

  /** A slot for the source's sync, with what gives it back; or what is full. */
  take(accountId: string, sourceId: string): { release: () => void } | 'source' | 'account' {
    if (this.sources.has(sourceId)) return 'source';
    const held = this.accounts.get(accountId) ?? 0;
    if (held >= this.perAccount) return 'account';
    this.sources.add(sourceId);
    this.accounts.set(accountId, held + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.sources.delete(sourceId);
        const left = (this.accounts.get(accountId) ?? 1) - 1;
        if (left > 0) this.accounts.set(accountId, left);
        else this.accounts.delete(accountId);
      },
    };
  }
}

/**
 * The handler of the `syncSource` job, for the worker `workerId`. A sync whose account already holds
 * its share of the worker's slots, or whose source this worker is syncing, is put off (its job sent
 * again a few seconds on) rather than waited for in a slot that another account could use.
 */
export function syncHandler(deps: SyncDeps, workerId: string, slots: SyncSlots): JobHandlers['syncSource'] {
  return async ({ sourceId }) => {
    const source = await deps.syncs.sourceById(sourceId);
    if (!source) return;
    const slot = slots.take(source.accountId, sourceId);
    if (typeof slot === 'string') {
      // An account waiting for its share is routine; a second job for a sync in hand is not.
      const level = slot === 'source' ? 'info' : 'debug';
      deps.log[level]({ sourceId, accountId: source.accountId, reason: slot }, 'sync put off');
      await deps.jobs.enqueue('syncSource', { sourceId }, { delaySeconds: SYNC_PUT_OFF_SECONDS });
      return;
    }
    try {
      await syncSource(deps, sourceId, workerId);
    } finally {
      slot.release();
    }
  };
}

/**
 * Syncs one source (the job `sync-source`): takes the sync's lease, lists the source, compares the
 * listing with what the previous sync recorded and applies the difference in one transaction. Nothing
 * in the workspace changes before that transaction, so a source that cannot be listed (credentials,
 * network) fails its run and leaves the workspace as it was, and a worker killed while listing leaves
 * the sync to the next worker once the lease lapses: the listing starts over, nothing is doubled.
 */
export async function syncSource(deps: SyncDeps, sourceId: string, workerId: string): Promise<SyncOutcome> {
  const claim = await deps.syncs.claimSync(sourceId, workerId, deps.leaseSeconds, deps.maxAttempts);
  if (!claim) return { status: 'not_held' };
  const { source } = claim;
  const log = deps.log;
  if (claim.runStatus === 'cancelled') {
    await deps.syncs.failSync(
      sourceId,
      workerId,
      'sync_failed',
      'The sync was cancelled before it listed the source.',
    );
    return { status: 'cancelled' };
  }
  const abort = new AbortController();
  const renewal = setInterval(
    () => {
      deps.syncs
        .renewSync(sourceId, workerId, deps.leaseSeconds)
        .then((held) => {
          if (!held) abort.abort();
        })
        .catch((err: unknown) => log.warn({ err, sourceId }, 'sync lease renewal failed'));
    },
    Math.max(1000, (deps.leaseSeconds * 1000) / 3),
  );
  renewal.unref();
  try {
    const previous = new Map<string, PreviousItem>(claim.previous.map((p) => [p.key, p]));
    let listed: ListedItem[];
    try {
      listed = await deps.lister.list(
        accessOf(source, deps.secrets, deps.folderGrants),
        previous,
        abort.signal,
      );
    } catch (err) {
      if (abort.signal.aborted) return { status: 'not_held' };
      // A connector's unforeseen error fails this sync (retrying the job would meet it again); the
      // next sync tries afresh.
      const failure =
        err instanceof SourceFailure
          ? err
          : new SourceFailure('sync_failed', `Listing the source failed: ${(err as Error).message}`);
      log.warn({ sourceId, code: failure.code, reason: failure.message, err }, 'source sync failed');
      await deps.syncs.failSync(sourceId, workerId, failure.code, failure.message);
      return { status: 'failed' };
    }
    const listing = planSync(listed, previous);
    if (!claim.force && exceedsDeletionLimit(listing, previous.size, source.maxDeleteShare)) {
      const message = `The sync would delete ${listing.removed.length} of the source's ${previous.size} documents, more than its limit of ${Math.round(source.maxDeleteShare * 100)} %; sync with "force": true to delete them.`;
      await deps.syncs.failSync(sourceId, workerId, 'deletion_limit_exceeded', message);
      return { status: 'failed' };
    }
    const plan = await withinQuotas(deps, source.accountId, listing);
    const applied = await deps.syncs.applySync(sourceId, workerId, plan, () => newId('doc'));
    if (!applied) return { status: 'not_held' };
    // After the commit: a lost enqueue is found by the reconciler (the documents are queued in the
    // database), and a removed document is already out of search (marked deleted).
    if (applied.enqueue.length > 0)
      await deps.jobs.enqueueMany(
        'processDocument',
        applied.enqueue.map((documentId) => ({ documentId })),
      );
    await removeStored(deps, applied.removed);
    const outcome = {
      status: 'applied' as const,
      added: plan.added.length,
      changed: plan.changed.length,
      unchanged: plan.unchanged + plan.refreshed.length,
      removed: plan.removed.length,
    };
    log.info({ sourceId, ...outcome }, 'source synced');
    return outcome;
  } finally {
    clearInterval(renewal);
  }
}

/** Index rows and stored objects of documents a sync (or a source's deletion) removed. */
export async function removeStored(
  deps: { index: Pick<SearchIndex, 'deleteDocument'>; objects: Pick<ObjectStore, 'delete'>; log: Log },
  documents: DocumentRecord[],
): Promise<void> {
  for (const doc of documents) {
    try {
      await deps.index.deleteDocument(doc.workspaceId, doc.id);
      await deps.objects.delete([...new Set([doc.storageKey, ...artifactKeys.all(doc.id)])]);
    } catch (err) {
      // Search already ignores the document (it is marked deleted); leftovers are only storage.
      deps.log.warn({ err, documentId: doc.id }, 'document deleted but its index rows or artifacts remain');
    }
  }
}

/** The reconciler's part: starts due syncs and hands syncs nobody holds to the queue. */
export async function enqueueDueSyncs(deps: Pick<SyncDeps, 'syncs' | 'jobs'>): Promise<number> {
  const ids = await deps.syncs.dueSyncs(100, () => newId('run'));
  for (const sourceId of ids) await deps.jobs.enqueue('syncSource', { sourceId });
  return ids.length;
}
