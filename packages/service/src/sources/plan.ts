import type { SkippedItems } from '../domain/types.js';
import type { ItemFingerprint, ListedItem, PreviousItem } from './model.js';

/** What a sync changes in the workspace, decided from the listing and the previous sync's items. */
export interface SyncPlan {
  added: ListedItem[];
  /**
   * Items whose content changed: their documents are processed again (same id, version + 1).
   * `unverified`: only the item's size or time says so (a folder's listing reads no bytes), and its
   * document is ready: the worker that reads the item compares its bytes with the indexed version's.
   */
  changed: { item: ListedItem; documentId: string; unverified: boolean }[];
  /** Unchanged items whose recorded fingerprint moved (a touched file, a new ETag for the same bytes). */
  refreshed: { item: ListedItem; documentId: string }[];
  /** Unchanged and recorded as they are: nothing to write. */
  unchanged: number;
  removed: PreviousItem[];
  /** Items no worker can read, by reason; null when there were none. */
  skipped: SkippedItems | null;
}

/** Skipped items counted by reason, the commonest first, with a few of each as examples. */
function summariseSkipped(items: ListedItem[]): SkippedItems | null {
  if (items.length === 0) return null;
  const byReason = new Map<string, { reason: string; count: number; examples: string[] }>();
  for (const item of items) {
    const reason = item.skipReason!;
    const entry = byReason.get(reason) ?? { reason, count: 0, examples: [] };
    entry.count++;
    if (entry.examples.length < 5) entry.examples.push(item.key);
    byReason.set(reason, entry);
  }
  return { total: items.length, reasons: [...byReason.values()].sort((a, b) => b.count - a.count) };
}

/** A document whose last processing did not succeed is tried again by the next sync. */
const RETRY_STATUSES = new Set(['failed', 'cancelled']);

function sameFingerprint(a: ItemFingerprint, b: ItemFingerprint): boolean {
  return (
    (a.etag ?? null) === (b.etag ?? null) &&
    (a.sizeBytes ?? null) === (b.sizeBytes ?? null) &&
    (a.mtimeMs ?? null) === (b.mtimeMs ?? null) &&
    (a.lastModified ?? null) === (b.lastModified ?? null) &&
    (a.contentHash ?? null) === (b.contentHash ?? null)
  );
}

/**
 * Whether the item's content is the one the previous sync recorded. The source's own answer first
 * (304), then the strongest evidence both sides have: a content hash (website pages), else the ETag
 * with the size (S3), else size and modification time (files; one whose size or time moved is read
 * by the worker, which tells a touched file from a changed one: see SyncPlan.changed).
 */
export function unchangedContent(previous: PreviousItem, now: ListedItem): boolean {
  if (now.notModified) return true;
  const a = previous;
  const b = now.fingerprint;
  if (a.contentHash && b.contentHash) return a.contentHash === b.contentHash;
  if (a.etag && b.etag) return a.etag === b.etag && (a.sizeBytes ?? null) === (b.sizeBytes ?? null);
  if (a.mtimeMs != null && b.mtimeMs != null) return a.sizeBytes === b.sizeBytes && a.mtimeMs === b.mtimeMs;
  return false;
}

export function planSync(listed: ListedItem[], previous: ReadonlyMap<string, PreviousItem>): SyncPlan {
  const plan: SyncPlan = { added: [], changed: [], refreshed: [], unchanged: 0, removed: [], skipped: null };
  const seen = new Set<string>();
  const skipped: ListedItem[] = [];
  for (const item of listed) {
    if (seen.has(item.key)) continue;
    // No document for what no worker can read: one it had before (its file replaced by an archive,
    // say) goes, as a gone item's does.
    if (item.skipReason) {
      skipped.push(item);
      continue;
    }
    seen.add(item.key);
    const before = previous.get(item.key);
    if (!before) plan.added.push(item);
    else if (!unchangedContent(before, item) || RETRY_STATUSES.has(before.documentStatus))
      plan.changed.push({
        item,
        documentId: before.documentId,
        unverified:
          before.documentStatus === 'ready' && !item.fingerprint.contentHash && !item.fingerprint.etag,
      });
    else if (!item.notModified && !sameFingerprint(before, item.fingerprint))
      plan.refreshed.push({ item, documentId: before.documentId });
    else plan.unchanged++;
  }
  for (const [key, before] of previous) if (!seen.has(key)) plan.removed.push(before);
  plan.skipped = summariseSkipped(skipped);
  return plan;
}

/**
 * Whether the plan deletes more than `maxShare` of the source's documents: a source that suddenly
 * looks empty (a wrong prefix, a site that answers a login page) must not empty the workspace.
 */
export function exceedsDeletionLimit(plan: SyncPlan, previousCount: number, maxShare: number): boolean {
  if (plan.removed.length === 0 || previousCount === 0) return false;
  return plan.removed.length / previousCount > maxShare;
}
