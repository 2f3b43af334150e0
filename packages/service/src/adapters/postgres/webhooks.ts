import type {
  AttemptOutcome,
  ClaimedDelivery,
  DeliveryNext,
  DeliveryPage,
  EndpointHealth,
  NewWebhookEndpoint,
  SecretStore,
  WebhookOutbox,
  WebhookStore,
} from '../../domain/stores.js';
import type {
  WebhookDelivery,
  WebhookDeliveryStatus,
  WebhookEndpoint,
  WebhookEventType,
} from '../../domain/types.js';
import { randomToken } from '../../ids.js';
import { webhookSecretContext } from '../../webhooks/signing.js';
import { inTransaction, type Pool, type Queryable } from './db.js';
import {
  toWebhookAttempt,
  type WebhookAttemptRow,
  type WebhookDeliveryRow,
  type WebhookEndpointRow,
} from './rows.js';

/** The first pause of an endpoint that answered too slowly. */
const SLOW_PAUSE_BASE_SECONDS = 30;

type EndpointWithCounts = WebhookEndpointRow & Record<WebhookDeliveryStatus, number>;

/** The endpoint's columns and its deliveries counted by status, for `FROM webhook_endpoints e`. */
const ENDPOINT_COLUMNS = `e.*,
  (SELECT count(*) FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.status = 'pending') AS pending,
  (SELECT count(*) FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.status = 'succeeded') AS succeeded,
  (SELECT count(*) FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.status = 'failed') AS failed`;

function toEndpoint(r: EndpointWithCounts): WebhookEndpoint {
  return {
    id: r.id,
    accountId: r.account_id,
    url: r.url,
    events: r.events,
    description: r.description,
    ownerUserId: r.owner_user_id ?? null,
    createdAt: r.created_at,
    deliveries: { pending: r.pending, succeeded: r.succeeded, failed: r.failed },
  };
}

type DeliveryRow = WebhookDeliveryRow & { type: WebhookEventType; body: string };

/** Deliveries with their events and attempts, in the order given. */
async function withAttempts(q: Queryable, rows: DeliveryRow[]): Promise<WebhookDelivery[]> {
  const a = await q.query<WebhookAttemptRow>(
    'SELECT * FROM webhook_attempts WHERE delivery_id = ANY($1::text[]) ORDER BY delivery_id, number',
    [rows.map((r) => r.id)],
  );
  const byDelivery = new Map<string, WebhookAttemptRow[]>();
  for (const row of a.rows)
    byDelivery.set(row.delivery_id, [...(byDelivery.get(row.delivery_id) ?? []), row]);
  return rows.map((r) => ({
    id: r.id,
    endpointId: r.endpoint_id,
    eventId: r.event_id,
    eventType: r.type,
    body: r.body,
    status: r.status,
    nextAttemptAt: r.status === 'pending' ? r.next_attempt_at : null,
    createdAt: r.created_at,
    finishedAt: r.finished_at,
    attempts: (byDelivery.get(r.id) ?? []).map(toWebhookAttempt),
  }));
}

/** What the worker says when it takes over an attempt whose worker stopped before recording it. */
const INTERRUPTED = 'The worker stopped before this attempt finished; it is sent again.';

/**
 * Webhook endpoints, the outbox of their deliveries (written by outbox.ts inside the transactions of
 * runs and documents) and every attempt. The HTTP layer reaches it as a WebhookStore, the worker as a
 * WebhookOutbox.
 */
export class PgWebhookRepository implements WebhookStore, WebhookOutbox, SecretStore {
  constructor(private readonly pool: Pool) {}

  async insertEndpoint(e: NewWebhookEndpoint, maxPerAccount: number): Promise<WebhookEndpoint | undefined> {
    return inTransaction(this.pool, async (c) => {
      // The account's row is the lock that keeps two concurrent registrations under the limit.
      await c.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [e.accountId]);
      const n = await c.query<{ n: number }>(
        'SELECT count(*) AS n FROM webhook_endpoints WHERE account_id = $1',
        [e.accountId],
      );
      if (n.rows[0]!.n >= maxPerAccount) return undefined;
      const r = await c.query<WebhookEndpointRow>(
        `INSERT INTO webhook_endpoints (id, account_id, url, events, description, secret, owner_user_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
        [e.id, e.accountId, e.url, e.events, e.description, e.encryptedSecret, e.ownerUserId],
      );
      return toEndpoint({ ...r.rows[0]!, pending: 0, succeeded: 0, failed: 0 });
    });
  }

  async listEndpoints(accountId: string): Promise<WebhookEndpoint[]> {
    const r = await this.pool.query<EndpointWithCounts>(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints e WHERE e.account_id = $1 ORDER BY e.created_at, e.id`,
      [accountId],
    );
    return r.rows.map(toEndpoint);
  }

  async getEndpoint(accountId: string, endpointId: string): Promise<WebhookEndpoint | undefined> {
    const r = await this.pool.query<EndpointWithCounts>(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints e WHERE e.id = $1 AND e.account_id = $2`,
      [endpointId, accountId],
    );
    return r.rows[0] && toEndpoint(r.rows[0]);
  }

  async deleteEndpoint(accountId: string, endpointId: string): Promise<WebhookEndpoint | undefined> {
    return inTransaction(this.pool, async (c) => {
      const r = await c.query<EndpointWithCounts>(
        `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints e WHERE e.id = $1 AND e.account_id = $2 FOR UPDATE`,
        [endpointId, accountId],
      );
      if (!r.rows[0]) return undefined;
      await c.query('DELETE FROM webhook_endpoints WHERE id = $1', [endpointId]);
      return toEndpoint(r.rows[0]);
    });
  }

  async listDeliveries(
    accountId: string,
    endpointId: string,
    page: DeliveryPage,
  ): Promise<WebhookDelivery[] | undefined> {
    const owner = await this.pool.query('SELECT 1 FROM webhook_endpoints WHERE id = $1 AND account_id = $2', [
      endpointId,
      accountId,
    ]);
    if (owner.rowCount === 0) return undefined;
    const r = await this.pool.query<DeliveryRow>(
      `SELECT d.*, ev.type, ev.body FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
       WHERE d.endpoint_id = $1 AND ($2::text IS NULL OR d.id < $2) AND ($3::text IS NULL OR d.status = $3)
       ORDER BY d.id DESC LIMIT $4`,
      [endpointId, page.before ?? null, page.status ?? null, page.limit],
    );
    return withAttempts(this.pool, r.rows);
  }

  async redeliver(
    accountId: string,
    endpointId: string,
    deliveryId: string,
  ): Promise<WebhookDelivery | undefined> {
    return inTransaction(this.pool, async (c) => {
      // Clearing the claim makes an attempt in flight unable to overwrite this (see finishAttempt).
      const u = await c.query<{ id: string }>(
        `UPDATE webhook_deliveries d SET status = 'pending', next_attempt_at = now(), retry_from = now(),
           manual = true, claim = NULL, finished_at = NULL, updated_at = now()
         FROM webhook_endpoints e
         WHERE d.id = $3 AND d.endpoint_id = $2 AND e.id = d.endpoint_id AND e.account_id = $1
         RETURNING d.id`,
        [accountId, endpointId, deliveryId],
      );
      if (u.rowCount === 0) return undefined;
      const r = await c.query<DeliveryRow>(
        `SELECT d.*, ev.type, ev.body FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
         WHERE d.id = $1`,
        [deliveryId],
      );
      return (await withAttempts(c, r.rows))[0];
    });
  }

  /**
   * Takes due deliveries fairly (SKIP LOCKED: workers never wait for each other): round-robin across
   * accounts and, within an account, across its endpoints, at most `perEndpoint` in flight per
   * endpoint and `perAccount` per account (across all workers), none of an endpoint paused for being
   * slow. The turns count what is already in flight: an account holding slots comes after one
   * holding none, even when its deliveries are older, so a slot that frees goes to the account
   * waiting for one rather than back to the one whose endpoints filled the others. With `perAccount`
   * below the worker's slots, one account's slow endpoints leave a slot free for everyone else.
   * A claimed delivery's due time moves past the attempt's lease; attempts a stopped worker left
   * open are closed, and this one opened.
   */
  async claimDue(
    limit: number,
    leaseSeconds: number,
    perEndpoint = limit,
    perAccount = limit,
  ): Promise<ClaimedDelivery[]> {
    const claim = randomToken(10);
    return inTransaction(this.pool, async (c) => {
      const fair = await c.query<{ id: string }>(
        `WITH in_flight AS (
           SELECT endpoint_id, count(*)::int AS n FROM webhook_deliveries
           WHERE status = 'pending' AND claim IS NOT NULL AND next_attempt_at > now()
           GROUP BY endpoint_id
         ), account_in_flight AS (
           SELECT e.account_id, sum(f.n)::int AS n
           FROM in_flight f JOIN webhook_endpoints e ON e.id = f.endpoint_id
           GROUP BY e.account_id
         ), candidates AS (
           SELECT d.id, e.account_id, d.next_attempt_at,
                  coalesce(f.n, 0) + row_number() OVER (PARTITION BY e.id ORDER BY d.next_attempt_at, d.id) AS endpoint_rank
           FROM webhook_endpoints e
           LEFT JOIN in_flight f ON f.endpoint_id = e.id
           LEFT JOIN account_in_flight a ON a.account_id = e.account_id
           CROSS JOIN LATERAL (
             SELECT id, next_attempt_at FROM webhook_deliveries
             WHERE endpoint_id = e.id AND status = 'pending' AND next_attempt_at <= now()
             ORDER BY next_attempt_at, id LIMIT $2
           ) d
           WHERE (e.paused_until IS NULL OR e.paused_until <= now()) AND coalesce(f.n, 0) < $2
             AND coalesce(a.n, 0) < $3
         ), ranked AS (
           SELECT c.id, c.next_attempt_at,
                  coalesce(a.n, 0) + row_number() OVER (
                    PARTITION BY c.account_id ORDER BY c.endpoint_rank, c.next_attempt_at, c.id) AS account_rank
           FROM candidates c LEFT JOIN account_in_flight a ON a.account_id = c.account_id
           WHERE c.endpoint_rank <= $2
         )
         SELECT id FROM ranked WHERE account_rank <= $3 ORDER BY account_rank, next_attempt_at, id LIMIT $1`,
        [limit, perEndpoint, perAccount],
      );
      if (fair.rows.length === 0) return [];
      const u = await c.query<{ id: string; attempts: number; was_manual: boolean }>(
        `WITH due AS (
           SELECT id, manual FROM webhook_deliveries
           WHERE id = ANY($1::text[]) AND status = 'pending' AND next_attempt_at <= now()
           FOR UPDATE SKIP LOCKED
         )
         UPDATE webhook_deliveries d SET attempts = d.attempts + 1, claim = $2, manual = false,
           next_attempt_at = now() + make_interval(secs => $3), updated_at = now()
         FROM due WHERE d.id = due.id
         RETURNING d.id, d.attempts, due.manual AS was_manual`,
        [fair.rows.map((r) => r.id), claim, leaseSeconds],
      );
      if (u.rows.length === 0) return [];
      const ids = u.rows.map((x) => x.id);
      await c.query(
        `UPDATE webhook_attempts SET finished_at = now(), error = $2
         WHERE delivery_id = ANY($1::text[]) AND finished_at IS NULL`,
        [ids, INTERRUPTED],
      );
      await c.query(
        `INSERT INTO webhook_attempts (delivery_id, number, manual)
         SELECT * FROM unnest($1::text[], $2::int[], $3::boolean[])`,
        [ids, u.rows.map((x) => x.attempts), u.rows.map((x) => x.was_manual)],
      );
      const r = await c.query<{
        id: string;
        event_id: string;
        type: WebhookEventType;
        body: string;
        endpoint_id: string;
        url: string;
        secret: string;
        retrying_for: number;
      }>(
        `SELECT d.id, d.event_id, ev.type, ev.body, d.endpoint_id, e.url, e.secret,
                extract(epoch FROM now() - d.retry_from)::float8 AS retrying_for
         FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
           JOIN webhook_endpoints e ON e.id = d.endpoint_id
         WHERE d.id = ANY($1::text[])`,
        [ids],
      );
      const claimed = new Map(u.rows.map((x) => [x.id, x]));
      return r.rows.map((x) => ({
        id: x.id,
        claim,
        attempt: claimed.get(x.id)!.attempts,
        manual: claimed.get(x.id)!.was_manual,
        eventId: x.event_id,
        eventType: x.type,
        body: x.body,
        endpointId: x.endpoint_id,
        url: x.url,
        encryptedSecret: x.secret,
        retryingForSeconds: x.retrying_for,
      }));
    });
  }

  async finishAttempt(
    d: ClaimedDelivery,
    outcome: AttemptOutcome,
    next: DeliveryNext,
    endpoint: EndpointHealth = 'unchanged',
  ): Promise<void> {
    await inTransaction(this.pool, async (c) => {
      // A slow endpoint waits before it may hold a slot again: twice as long after each slow attempt
      // in a row, from the retry base, at most an hour; an answer in time ends the pause.
      if (endpoint === 'slow')
        await c.query(
          `UPDATE webhook_endpoints SET slow_attempts = slow_attempts + 1,
             paused_until = now() + make_interval(secs => least(3600, $2 * power(2, slow_attempts)))
           WHERE id = $1`,
          [d.endpointId, SLOW_PAUSE_BASE_SECONDS],
        );
      else if (endpoint === 'healthy')
        await c.query(
          'UPDATE webhook_endpoints SET slow_attempts = 0, paused_until = NULL WHERE id = $1 AND slow_attempts > 0',
          [d.endpointId],
        );
      await c.query(
        `UPDATE webhook_attempts SET finished_at = now(), status_code = $3, error = $4, response = $5
         WHERE delivery_id = $1 AND number = $2 AND finished_at IS NULL`,
        [d.id, d.attempt, outcome.statusCode, outcome.error, outcome.response],
      );
      // Only under this attempt's claim: a redelivery or a worker that took over meanwhile decides.
      await c.query(
        `UPDATE webhook_deliveries SET status = $3, claim = NULL, updated_at = now(),
           next_attempt_at = CASE WHEN $3 = 'pending' THEN now() + make_interval(secs => $4) END,
           finished_at = CASE WHEN $3 = 'pending' THEN NULL ELSE now() END
         WHERE id = $1 AND claim = $2`,
        [d.id, d.claim, next.status, next.status === 'pending' ? next.retryInSeconds : 0],
      );
    });
  }

  async purgeOlderThan(days: number): Promise<number> {
    const r = await this.pool.query(
      `DELETE FROM webhook_events ev WHERE ev.created_at < now() - make_interval(days => $1)
         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = ev.id AND d.status = 'pending')`,
      [days],
    );
    return r.rowCount ?? 0;
  }

  async releaseAllClaims(): Promise<void> {
    await this.pool.query(
      `UPDATE webhook_deliveries SET next_attempt_at = now(), claim = NULL
       WHERE status = 'pending' AND claim IS NOT NULL`,
    );
  }

  async encryptedValues(): Promise<{ id: string; context: string; value: string }[]> {
    const r = await this.pool.query<Pick<WebhookEndpointRow, 'id' | 'secret'>>(
      'SELECT id, secret FROM webhook_endpoints',
    );
    return r.rows.map((x) => ({ id: x.id, context: webhookSecretContext(x.id), value: x.secret }));
  }

  async replaceEncryptedValue(endpointId: string, value: string): Promise<void> {
    await this.pool.query('UPDATE webhook_endpoints SET secret = $2 WHERE id = $1', [endpointId, value]);
  }
}
