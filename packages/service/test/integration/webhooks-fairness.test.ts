import type pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPool } from '../../src/adapters/postgres/db.js';
import { PgWebhookRepository } from '../../src/adapters/postgres/webhooks.js';
import type { WebhookRequest, WebhookResponse } from '../../src/domain/ports.js';
import { SecretBox } from '../../src/domain/secrets.js';
import { endpointHealth, startWebhookDispatcher } from '../../src/webhooks/dispatch.js';
import { webhookSecretContext } from '../../src/webhooks/signing.js';
import { capturingLog } from '../support/log.js';
import { createTestDatabases, type TestDatabases } from '../support/service.js';
import { waitFor } from '../support/wait.js';

/**
 * Issue 26, finding 7: deliveries shared four slots in one queue ordered by due time, so 20 slow
 * endpoints of account B and their events delayed account A's event by minutes. Claims are now fair
 * across accounts and endpoints, capped per endpoint, and a slow endpoint pauses.
 */
let dbs: TestDatabases;
let pool: pg.Pool;
let outbox: PgWebhookRepository;
const box = new SecretBox('ab'.repeat(32));
const LEASE = 35;

/** An endpoint of `account` with `due` deliveries, due `ageSeconds` ago (older first). */
async function endpointWith(account: string, id: string, due: number, ageSeconds: number): Promise<string[]> {
  await pool.query('INSERT INTO accounts (id, name) VALUES ($1, $1) ON CONFLICT DO NOTHING', [account]);
  await pool.query(
    `INSERT INTO webhook_endpoints (id, account_id, url, events, secret) VALUES ($1, $2, $3, '{run.completed}', $4)`,
    [id, account, `http://${id}.test/`, box.encrypt('whsec_test', webhookSecretContext(id))],
  );
  const ids: string[] = [];
  for (let i = 0; i < due; i++) {
    const event = `evt_${id}_${i}`;
    const delivery = `dlv_${id}_${i}`;
    await pool.query(
      `INSERT INTO webhook_events (id, account_id, type, body) VALUES ($1, $2, 'run.completed', '{}')`,
      [event, account],
    );
    await pool.query(
      `INSERT INTO webhook_deliveries (id, event_id, endpoint_id, status, next_attempt_at)
       VALUES ($1, $2, $3, 'pending', now() - make_interval(secs => $4))`,
      [delivery, event, id, ageSeconds - i * 0.001],
    );
    ids.push(delivery);
  }
  return ids;
}

beforeAll(async () => {
  dbs = await createTestDatabases();
  pool = createPool(dbs.urls.service, 4, 'fairness-test');
  outbox = new PgWebhookRepository(pool);
});
afterAll(async () => {
  await pool?.end();
  await dbs?.drop();
});
beforeEach(async () => {
  await pool.query('DELETE FROM webhook_events');
  await pool.query('DELETE FROM webhook_endpoints');
});

describe('claiming webhook deliveries', () => {
  it("takes another account's newer event before more of one account's older backlog", async () => {
    for (let e = 0; e < 20; e++) await endpointWith('acc_b', `we_b${e}`, 5, 600);
    const [aDelivery] = await endpointWith('acc_a', 'we_a', 1, 1);
    const claimed = await outbox.claimDue(4, LEASE, 2);
    expect(claimed).toHaveLength(4);
    expect(claimed.map((d) => d.id)).toContain(aDelivery);
    // Account B's share goes to different endpoints, oldest first.
    const bEndpoints = claimed.filter((d) => d.id !== aDelivery).map((d) => d.endpointId);
    expect(new Set(bEndpoints).size).toBe(bEndpoints.length);
  });

  it('keeps at most the per-endpoint number in flight, across claims', async () => {
    await endpointWith('acc_b', 'we_one', 10, 60);
    expect(await outbox.claimDue(10, LEASE, 2)).toHaveLength(2);
    // Those two are in flight (claimed, lease running): none more for that endpoint.
    expect(await outbox.claimDue(10, LEASE, 2)).toHaveLength(0);
  });

  it('gives a slot that frees to an account with nothing in flight before one holding the others, however old its backlog', async () => {
    // Issue 44, finding 11: turns were counted within one claim only. A worker whose slots free one
    // at a time claims one delivery at a time, and B's older deliveries won every such claim until
    // all of B's endpoints had paused: A waited for 20 slow attempts (about 75 s at the defaults).
    for (let e = 0; e < 4; e++) await endpointWith('acc_b', `we_b${e}`, 3, 600);
    expect(await outbox.claimDue(4, LEASE, 2, 10)).toHaveLength(4);
    const [aDelivery] = await endpointWith('acc_a', 'we_a', 1, 1);
    const next = await outbox.claimDue(1, LEASE, 2, 10);
    expect(next.map((d) => d.id)).toEqual([aDelivery]);
  });

  it('keeps at most the per-account number in flight, across claims and endpoints', async () => {
    for (let e = 0; e < 5; e++) await endpointWith('acc_b', `we_b${e}`, 3, 600);
    const first = await outbox.claimDue(10, LEASE, 2, 3);
    expect(first).toHaveLength(3);
    expect(await outbox.claimDue(10, LEASE, 2, 3)).toHaveLength(0);
    // Another account is not held by B's cap.
    const [aDelivery] = await endpointWith('acc_a', 'we_a', 1, 1);
    expect((await outbox.claimDue(10, LEASE, 2, 3)).map((d) => d.id)).toEqual([aDelivery]);
  });

  it('pauses an endpoint that answered too slowly, and lets it go on once it answers in time', async () => {
    await endpointWith('acc_b', 'we_slow', 3, 60);
    const [first] = await outbox.claimDue(1, LEASE, 2);
    const timedOut = { statusCode: null, error: 'No answer within 15000 ms.', response: null };
    expect(endpointHealth(timedOut, 15, 15)).toBe('slow');
    await outbox.finishAttempt(first!, timedOut, { status: 'pending', retryInSeconds: 0 }, 'slow');
    // Due, but the endpoint is paused: nothing is claimed for it.
    expect(await outbox.claimDue(10, LEASE, 2)).toHaveLength(0);
    const paused = await pool.query<{ slow_attempts: number; pause: number }>(
      `SELECT slow_attempts, extract(epoch FROM paused_until - now())::float8 AS pause FROM webhook_endpoints WHERE id = 'we_slow'`,
    );
    expect(paused.rows[0]!.slow_attempts).toBe(1);
    expect(paused.rows[0]!.pause).toBeGreaterThan(20);
    // Once the pause is over, an attempt answered in time ends it.
    await pool.query(`UPDATE webhook_endpoints SET paused_until = now() - interval '1 second'`);
    const [again] = await outbox.claimDue(1, LEASE, 2);
    expect(again).toBeDefined();
    const answered = { statusCode: 200, error: null, response: 'ok' };
    expect(endpointHealth(answered, 0.2, 15)).toBe('healthy');
    await outbox.finishAttempt(again!, answered, { status: 'succeeded' }, 'healthy');
    const healthy = await pool.query(
      `SELECT slow_attempts, paused_until FROM webhook_endpoints WHERE id = 'we_slow'`,
    );
    expect(healthy.rows[0]).toEqual({ slow_attempts: 0, paused_until: null });
    expect(await outbox.claimDue(10, LEASE, 2)).toHaveLength(2);
  });
});

describe('the dispatcher', () => {
  it("sends another account's event among the first, however many slow endpoints one account has", async () => {
    // Account B: 20 endpoints that never answer in time, 5 events each, all older than A's one.
    for (let e = 0; e < 20; e++) await endpointWith('acc_b', `we_slowb${e}`, 5, 600);
    await endpointWith('acc_a', 'we_fasta', 1, 1);
    const started: string[] = [];
    const sender = {
      async send(request: WebhookRequest): Promise<WebhookResponse> {
        started.push(new URL(request.url).hostname);
        if (request.url.includes('slowb')) {
          // As a receiver that answers nothing: the attempt lasts the whole time limit.
          await new Promise((r) => setTimeout(r, 1000));
          return {
            statusCode: null,
            error: 'No answer within 1000 ms.',
            response: null,
            retryAfterSeconds: undefined,
          };
        }
        return { statusCode: 200, error: null, response: 'ok', retryAfterSeconds: undefined };
      },
    };
    const dispatcher = startWebhookDispatcher({
      outbox,
      sender,
      secrets: box,
      log: capturingLog().log,
      settings: {
        pollIntervalSeconds: 0.1,
        concurrency: 4,
        endpointConcurrency: 2,
        accountConcurrency: 3,
        timeoutSeconds: 1,
        retryBaseSeconds: 60,
        retryHours: 24,
        retentionDays: 30,
      },
    });
    try {
      await waitFor("account A's delivery", () => started.includes('we_fasta.test'), { timeoutMs: 60_000 });
      // Due order alone would have sent all 100 of B's older deliveries first, 4 at a time.
      expect(started.indexOf('we_fasta.test')).toBeLessThan(4);
    } finally {
      await dispatcher.stop();
    }
  });

  it("sends another account's new event while one account's endpoints hold every other slot without answering", async () => {
    // Issue 44, finding 11: B's endpoints could hold all of a worker's slots, so an event of A
    // that came after them waited for one of B's attempts to time out (WEBHOOK_TIMEOUT_SECONDS).
    // B's attempts here never end until the test lets them: A can only be sent in a slot B left.
    for (let e = 0; e < 20; e++) await endpointWith('acc_b', `we_hungb${e}`, 5, 600);
    let release = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const started: string[] = [];
    let bFinished = 0;
    const sender = {
      async send(request: WebhookRequest): Promise<WebhookResponse> {
        started.push(new URL(request.url).hostname);
        if (request.url.includes('hungb')) {
          await gate;
          bFinished++;
          return { statusCode: null, error: 'No answer.', response: null, retryAfterSeconds: undefined };
        }
        return { statusCode: 200, error: null, response: 'ok', retryAfterSeconds: undefined };
      },
    };
    const dispatcher = startWebhookDispatcher({
      outbox,
      sender,
      secrets: box,
      log: capturingLog().log,
      settings: {
        pollIntervalSeconds: 0.1,
        concurrency: 4,
        endpointConcurrency: 2,
        accountConcurrency: 3,
        timeoutSeconds: 600,
        retryBaseSeconds: 60,
        retryHours: 24,
        retentionDays: 30,
      },
    });
    try {
      await waitFor("B's first attempts", () => started.length >= 3);
      await endpointWith('acc_a', 'we_newa', 1, 0);
      await waitFor("account A's delivery", () => started.includes('we_newa.test'), { timeoutMs: 30_000 });
      // Sent while all of B's attempts still hang: B held three slots and left the fourth.
      expect(bFinished).toBe(0);
      expect(started.filter((h) => h.includes('hungb'))).toHaveLength(3);
    } finally {
      release();
      await dispatcher.stop();
    }
  });
});
