import type { DocumentRecord, Run, RunView, WebhookEventType } from '../../domain/types.js';
import { newId } from '../../ids.js';
import {
  documentEvent,
  documentEventType,
  type NewWebhookEvent,
  runEvent,
  runEventType,
} from '../../webhooks/events.js';
import type { PoolClient } from './db.js';

/**
 * The webhook outbox, written inside the transactions that change what the events announce: a run
 * that settles or is cancelled, documents that finish. An event is stored only when an endpoint of
 * the account wants it, with one delivery per such endpoint, due at once; the worker's dispatcher
 * sends them (webhooks/dispatch.ts). So a committed change always has its deliveries, and one that
 * rolls back never had any.
 */

/** The endpoints of each account, with the events each wants. */
type Subscriptions = Map<string, { endpointId: string; events: Set<string> }[]>;

async function subscriptionsIn(c: PoolClient, accountIds: string[]): Promise<Subscriptions> {
  const r = await c.query<{ id: string; account_id: string; events: string[] }>(
    'SELECT id, account_id, events FROM webhook_endpoints WHERE account_id = ANY($1::text[])',
    [[...new Set(accountIds)]],
  );
  const subs: Subscriptions = new Map();
  for (const row of r.rows) {
    const list = subs.get(row.account_id) ?? [];
    list.push({ endpointId: row.id, events: new Set(row.events) });
    subs.set(row.account_id, list);
  }
  return subs;
}

function endpointsFor(subs: Subscriptions, accountId: string, type: WebhookEventType): string[] {
  return (subs.get(accountId) ?? []).filter((e) => e.events.has(type)).map((e) => e.endpointId);
}

/** Stores the events that some endpoint wants, with a delivery to each such endpoint. */
async function queueIn(c: PoolClient, subs: Subscriptions, all: NewWebhookEvent[]): Promise<void> {
  const events = all.filter((e) => endpointsFor(subs, e.accountId, e.type).length > 0);
  const deliveries = events.flatMap((e) =>
    endpointsFor(subs, e.accountId, e.type).map((endpointId) => ({ eventId: e.id, endpointId })),
  );
  if (deliveries.length === 0) return;
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
  await queueIn(
    c,
    subs,
    candidates.map((x) => documentEvent(x.doc, x.type)),
  );
}

/**
 * The event of a run that just reached a final state. Its view (counts, failures) is read, with
 * `view`, only when an endpoint wants the event, and in the same transaction, so it counts what this
 * transaction wrote.
 */
export async function announceRunIn(
  c: PoolClient,
  run: Run,
  view: (run: Run) => Promise<RunView>,
): Promise<void> {
  const type = runEventType(run.status);
  if (!type) return;
  const subs = await subscriptionsIn(c, [run.accountId]);
  if (endpointsFor(subs, run.accountId, type).length === 0) return;
  await queueIn(c, subs, [runEvent(await view(run), type)]);
}
