import type { AuditEvent, AuditQuery, AuditStore } from '../domain/stores.js';
import type { Principal } from '../domain/types.js';
import { errors } from '../errors.js';
import { requireManager } from './checks.js';

/** What one audit event says beyond who acted and when. */
export interface AuditEntry {
  action: string;
  targetType?: string | undefined;
  targetId?: string | undefined;
  outcome?: AuditEvent['outcome'] | undefined;
  details?: Record<string, unknown> | undefined;
}

/**
 * Appends an event for what `principal` did. The log is append-only (a trigger refuses changes);
 * an event that cannot be written fails the request that made it, as an unaudited change would
 * defeat the log's purpose.
 */
export function audit(
  store: Pick<AuditStore, 'append'>,
  principal: Principal,
  entry: AuditEntry,
): Promise<void> {
  return store.append({
    accountId: principal.accountId,
    actor: principal.actor,
    actorUserId: principal.userId ?? null,
    actorKeyId: principal.keyId ?? null,
    clientAddress: principal.address ?? null,
    action: entry.action,
    targetType: entry.targetType ?? null,
    targetId: entry.targetId ?? null,
    outcome: entry.outcome ?? 'success',
    details: entry.details ?? {},
  });
}

/** One page of the account's audit log, newest first: for its owners and admins. */
export async function listAuditEvents(
  store: Pick<AuditStore, 'list'>,
  principal: Principal,
  query: AuditQuery,
): Promise<{ events: AuditEvent[]; nextCursor: string | null }> {
  requireManager(principal, 'read the audit log');
  if (!principal.scopes.has('admin')) throw errors.insufficientScope('admin');
  const events = await store.list(principal.accountId, query);
  return { events, nextCursor: events.length === query.limit ? events.at(-1)!.id : null };
}
