import { mayReadDocument, mayReadWorkspace, memberView } from '../../access/policy.js';
import type {
  Audience,
  DocumentRecord,
  Member,
  Role,
  Run,
  RunView,
  WebhookEventType,
  WorkspaceAccess,
} from '../../domain/types.js';
import type { EvaluationRecord } from '../../evaluation/store.js';
import { newId } from '../../ids.js';
import {
  documentEvent,
  documentEventType,
  evaluationEvent,
  evaluationEventType,
  type NewWebhookEvent,
  runEvent,
  runEventType,
} from '../../webhooks/events.js';
import type { PoolClient } from './db.js';
import { toWorkspace, type WorkspaceRow } from './rows.js';

/**
 * The webhook outbox, written inside the transactions that change what the events announce: a run
 * that settles or is cancelled, documents that finish. An event is stored only when an endpoint of
 * the account wants it, with one delivery per such endpoint, due at once; the worker's dispatcher
 * sends them (webhooks/dispatch.ts). So a committed change always has its deliveries, and one that
 * rolls back never had any.
 */

/**
 * An endpoint belongs to its creator and carries only what that creator may see (decision 0017):
 * `owner` is that user's view (role and groups as they are now), undefined for the whole account (an
 * endpoint made with an account key, or by an owner or admin).
 */
interface Subscription {
  endpointId: string;
  events: Set<string>;
  owner: Member | undefined;
}

/** The endpoints of each account, with the events each wants and the view it is sent with. */
type Subscriptions = Map<string, Subscription[]>;

async function subscriptionsIn(c: PoolClient, accountIds: string[]): Promise<Subscriptions> {
  const r = await c.query<{
    id: string;
    account_id: string;
    events: string[];
    owner_id: string | null;
    owner_role: Role | null;
    owner_groups: string[] | null;
  }>(
    `SELECT e.id, e.account_id, e.events, u.id AS owner_id, u.role AS owner_role,
            ARRAY(SELECT gm.group_id FROM group_members gm WHERE gm.user_id = u.id) AS owner_groups
       FROM webhook_endpoints e LEFT JOIN users u ON u.id = e.owner_user_id
      WHERE e.account_id = ANY($1::text[])`,
    [[...new Set(accountIds)]],
  );
  const subs: Subscriptions = new Map();
  for (const row of r.rows) {
    const list = subs.get(row.account_id) ?? [];
    list.push({
      endpointId: row.id,
      events: new Set(row.events),
      owner: row.owner_id ? memberView(row.owner_id, row.owner_role!, row.owner_groups ?? []) : undefined,
    });
    subs.set(row.account_id, list);
  }
  return subs;
}

function subscribed(subs: Subscriptions, accountId: string, type: WebhookEventType): Subscription[] {
  return (subs.get(accountId) ?? []).filter((e) => e.events.has(type));
}

/** Stores the events, each with a delivery to the endpoints given for it. */
async function queueIn(
  c: PoolClient,
  all: { event: NewWebhookEvent; endpointIds: string[] }[],
): Promise<void> {
  const wanted = all.filter((e) => e.endpointIds.length > 0);
  if (wanted.length === 0) return;
  const events = wanted.map((w) => w.event);
  const deliveries = wanted.flatMap((w) =>
    w.endpointIds.map((endpointId) => ({ eventId: w.event.id, endpointId })),
  );
  await c.query(
    `INSERT INTO webhook_events (id, account_id, type, body)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])`,
    [
      events.map((e) => e.id),
      events.map((e) => e.accountId),
      events.map((e) => e.type),
      events.map((e) => e.body),
    ],
  );
  await c.query(
    `INSERT INTO webhook_deliveries (id, event_id, endpoint_id, status, next_attempt_at)
     SELECT u.id, u.event_id, u.endpoint_id, 'pending', now()
     FROM unnest($1::text[], $2::text[], $3::text[]) AS u(id, event_id, endpoint_id)`,
    [
      deliveries.map(() => newId('dlv')),
      deliveries.map((d) => d.eventId),
      deliveries.map((d) => d.endpointId),
    ],
  );
}

/** Events for documents that just finished (ready, failed, needing OCR), for the endpoints that want them. */
export async function announceDocumentsIn(c: PoolClient, documents: DocumentRecord[]): Promise<void> {
  const candidates = documents.flatMap((doc) => {
    const type = documentEventType(doc.status);
    return type ? [{ doc, type }] : [];
  });
  if (candidates.length === 0) return;
  const subs = await subscriptionsIn(
    c,
    candidates.map((x) => x.doc.accountId),
  );
  const wanting = candidates.filter((x) => subscribed(subs, x.doc.accountId, x.type).length > 0);
  if (wanting.length === 0) return;
  // What an owner who is a member may see of each document: its workspace's access and its own.
  const restricted = wanting.some((x) => subscribed(subs, x.doc.accountId, x.type).some((s) => s.owner));
  const access = restricted
    ? await workspaceAccessIn(
        c,
        wanting.map((x) => x.doc.workspaceId),
      )
    : new Map();
  await queueIn(
    c,
    wanting.map(({ doc, type }) => ({
      event: documentEvent(doc, type),
      endpointIds: subscribed(subs, doc.accountId, type)
        .filter(
          (s) =>
            !s.owner ||
            mayReadDocument(
              { accountId: doc.accountId, member: s.owner },
              access.get(doc.workspaceId) ?? null,
              doc.access,
            ),
        )
        .map((s) => s.endpointId),
    })),
  );
}

async function workspaceAccessIn(
  c: PoolClient,
  workspaceIds: string[],
): Promise<Map<string, WorkspaceAccess>> {
  const r = await c.query<WorkspaceRow>('SELECT * FROM workspaces WHERE id = ANY($1::text[])', [
    [...new Set(workspaceIds)],
  ]);
  return new Map(r.rows.map((w) => [w.id, toWorkspace(w).access]));
}

/**
 * The event of a run that just reached a final state. Its view (counts, failures) is read, with
 * `view`, only when an endpoint wants the event, and in the same transaction, so it counts what this
 * transaction wrote: once for the whole account, and once per endpoint owner who sees less (counts of
 * what that owner may see; no event when the run brought it nothing to see).
 */
export async function announceRunIn(
  c: PoolClient,
  run: Run,
  view: (run: Run, audience?: Audience) => Promise<RunView>,
): Promise<void> {
  const type = runEventType(run.status);
  if (!type) return;
  const subs = subscribed(await subscriptionsIn(c, [run.accountId]), run.accountId, type);
  if (subs.length === 0) return;
  const whole = subs.filter((s) => !s.owner);
  const queued: { event: NewWebhookEvent; endpointIds: string[] }[] = [];
  let full: RunView | undefined;
  if (whole.length > 0) {
    full = await view(run);
    queued.push({ event: runEvent(full, type), endpointIds: whole.map((s) => s.endpointId) });
  }
  const members = subs.filter((s) => s.owner);
  if (members.length > 0) {
    const access = (await workspaceAccessIn(c, [run.workspaceId])).get(run.workspaceId) ?? null;
    full ??= await view(run);
    for (const s of members) {
      const audience = { accountId: run.accountId, member: s.owner };
      if (!mayReadWorkspace(audience, access)) continue;
      const seen = await view(run, audience);
      if (full.counts.total > 0 && seen.counts.total === 0) continue;
      queued.push({ event: runEvent(seen, type), endpointIds: [s.endpointId] });
    }
  }
  await queueIn(c, queued);
}

/**
 * The event of an evaluation that just completed or failed. Its results are what its owner's view
 * found, so it goes to the endpoints of the whole account and to those of that owner only.
 */
export async function announceEvaluationIn(c: PoolClient, e: EvaluationRecord): Promise<void> {
  const type = evaluationEventType(e.status);
  if (!type) return;
  const ownerId = e.owner.kind === 'user' ? e.owner.userId : undefined;
  const endpointIds = subscribed(await subscriptionsIn(c, [e.accountId]), e.accountId, type)
    .filter((s) => !s.owner || s.owner.userId === ownerId)
    .map((s) => s.endpointId);
  await queueIn(c, [{ event: evaluationEvent(e, type), endpointIds }]);
}
