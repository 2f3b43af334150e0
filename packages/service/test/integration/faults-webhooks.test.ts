import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { verifyWebhook } from '../../../sdk/src/index.js';
import { quoteIdent } from '../../src/adapters/postgres/db.js';
import { adminQuery, eventually, type FaultStack, startFaultStack, withDb } from '../support/fault-stack.js';
import { holdsFor } from '../support/wait.js';
import { type Receiver, startReceiver } from '../support/webhook-receiver.js';

/**
 * Fault: `kill -9` of the worker that owes a webhook delivery, as worker processes of the stack.
 * The outbox is in PostgreSQL, written with the state change, so another worker sends what the dead
 * one never sent (between the commit and the send), and what it was sending when it died.
 *
 * Workers poll the outbox every 30 s here, right after they start: so a delivery written while a
 * worker runs stays unsent until the test decides who sends it (a worker started later).
 */
const dbName = `fw_${randomBytes(5).toString('hex')}`;
const adminUrl = () => inject('testPg').adminUrl;
const admin = (sql: string) => adminQuery(adminUrl(), sql);
let dataDir: string;
let stack: FaultStack;
let receiver: Receiver;

beforeAll(async () => {
  // The first request to /hold is never answered: it is in flight when its worker is killed.
  receiver = await startReceiver((p, nth) => (p === '/hold' && nth === 1 ? 'hold' : 200));
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'docslurp-fw-'));
  await admin(`CREATE DATABASE ${quoteIdent(dbName)}`);
  stack = await startFaultStack({
    databaseUrl: withDb(adminUrl(), dbName),
    objectsEnv: { DATA_DIR: dataDir },
    workers: 1,
    env: {
      ENCRYPTION_KEY: 'cd'.repeat(32),
      URL_FETCH_ALLOW_HOSTS: '127.0.0.1',
      WEBHOOK_POLL_INTERVAL_SECONDS: '30',
      WEBHOOK_TIMEOUT_SECONDS: '3',
    },
  });
});

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
  await admin(`DROP DATABASE IF EXISTS ${quoteIdent(dbName)} WITH (FORCE)`);
  await admin(`DROP DATABASE IF EXISTS ${quoteIdent(`${dbName}_workflow`)} WITH (FORCE)`);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function register(p: string, events: string[]): Promise<{ id: string; secret: string }> {
  const r = await stack.api.post('/v1/webhooks', { url: receiver.url(p), events });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return { id: r.body.webhook.id, secret: r.body.secret };
}

/** The endpoint's deliveries as stored: status and attempts, oldest first. */
const stored = (endpointId: string) =>
  stack.db(async (c) => {
    const r = await c.query(
      `SELECT d.id, d.status, d.attempts, ev.type, d.next_attempt_at <= now() AS due
       FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
       WHERE d.endpoint_id = $1 ORDER BY d.id`,
      [endpointId],
    );
    return r.rows as { id: string; status: string; attempts: number; type: string; due: boolean }[];
  });

async function killAllWorkers(): Promise<void> {
  for (const w of stack.workers) {
    if (w.process.child.exitCode !== null || w.process.child.signalCode !== null) continue;
    w.process.child.kill('SIGKILL');
    expect((await w.process.exited).signal).toBe('SIGKILL');
  }
}

describe('kill -9 of the worker that owes a webhook', () => {
  it('between the commit and the send: another worker delivers, once', async () => {
    const endpoint = await register('/durable', ['document.ready', 'run.completed']);
    const up = await stack.api.upload([{ name: 'durable.md', content: '# Durable\n\nKept in the outbox.' }]);
    expect((await stack.api.waitForRun(up.body.run.id, 60_000)).status).toBe('completed');

    // Committed with the document and the run, and not yet sent by anyone.
    const pending = await eventually('both deliveries in the outbox', async () => {
      const rows = await stored(endpoint.id);
      return rows.length === 2 ? rows : undefined;
    });
    expect(pending.map((d) => [d.type, d.status, d.attempts])).toEqual(
      expect.arrayContaining([
        ['document.ready', 'pending', 0],
        ['run.completed', 'pending', 0],
      ]),
    );
    await killAllWorkers();
    expect(receiver.received('/durable')).toEqual([]);

    await stack.addWorker();
    const hooks = await receiver.waitFor('/durable', 2);
    await holdsFor('two deliveries', () => receiver.received('/durable').length === 2, 1500);
    const events = await Promise.all(hooks.map((h) => verifyWebhook(endpoint.secret, h.headers, h.body)));
    expect(events.map((e) => [e.type, e.data.id]).sort()).toEqual(
      [
        ['document.ready', up.body.documents[0].id],
        ['run.completed', up.body.run.id],
      ].sort(),
    );
    const done = await eventually('both recorded as succeeded', async () => {
      const rows = await stored(endpoint.id);
      return rows.every((d) => d.status === 'succeeded') ? rows : undefined;
    });
    expect(done.map((d) => d.attempts)).toEqual([1, 1]);
  });

  it('during the send: the delivery goes out again once the claim lapses, with the same webhook-id', async () => {
    const endpoint = await register('/hold', ['document.ready']);
    const up = await stack.api.upload([{ name: 'held.md', content: '# Held\n\nIn flight when killed.' }]);
    await stack.api.waitForRun(up.body.run.id, 60_000);
    await eventually('the delivery in the outbox', async () =>
      (await stored(endpoint.id)).length ? true : undefined,
    );

    // A fresh worker polls at once: it sends, and the receiver holds the request unanswered.
    await stack.addWorker();
    const [first] = await receiver.waitFor('/hold', 1);
    await killAllWorkers();
    const [claimed] = await stored(endpoint.id);
    expect(claimed).toMatchObject({ status: 'pending', attempts: 1, due: false });

    // Once the dead worker's claim has lapsed, the next worker to start sends it again.
    await eventually('the claim to lapse', async () =>
      (await stored(endpoint.id))[0]?.due ? true : undefined,
    );
    await stack.addWorker();
    const [, second] = await receiver.waitFor('/hold', 2);
    const events = await Promise.all(
      [first!, second!].map((h) => verifyWebhook(endpoint.secret, h.headers, h.body)),
    );
    expect(events[0]!.id).toBe(events[1]!.id);
    expect(second!.body).toBe(first!.body);

    const delivery = await eventually('the delivery recorded', async () => {
      const r = await stack.api.get(`/v1/webhooks/${endpoint.id}/deliveries`);
      const d = r.body.deliveries[0];
      return d?.status === 'succeeded' ? d : undefined;
    });
    expect(delivery.attempts).toMatchObject([
      {
        number: 1,
        statusCode: null,
        error: 'The worker stopped before this attempt finished; it is sent again.',
      },
      { number: 2, statusCode: 200, error: null },
    ]);
    await holdsFor('no third request', () => receiver.received('/hold').length === 2, 1500);
  });
});
