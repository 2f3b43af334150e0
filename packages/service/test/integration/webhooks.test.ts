import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook, type WebhookEvent } from '../../../sdk/src/index.js';
import { buildApp } from '../../src/app.js';
import { webhookSecretContext } from '../../src/webhooks/signing.js';
import { client } from '../support/http.js';
import { startTestService, type TestService } from '../support/service.js';
import { holdsFor, waitFor } from '../support/wait.js';
import { type ReceivedHook, type Receiver, startReceiver } from '../support/webhook-receiver.js';

/**
 * Webhooks end to end: a real server and worker over PostgreSQL, and receivers on loopback (allowed
 * by name: URL_FETCH_ALLOW_HOSTS=127.0.0.1, so `localhost` still counts as loopback and is refused).
 * Every delivery is verified with the SDK's verifyWebhook.
 */

const ALL = ['run.completed', 'run.failed', 'run.cancelled', 'document.ready', 'document.failed'];
const RETRY_BASE_SECONDS = 0.2;

let svc: TestService;
let receiver: Receiver;
let api: ReturnType<typeof client>;
const secrets = new Map<string, string>();
const ids = new Map<string, string>();

beforeAll(async () => {
  // `/flaky` fails three times before it takes a delivery; everything else is taken at once.
  receiver = await startReceiver((path, nth) => (path === '/flaky' && nth <= 3 ? 500 : 200));
  svc = await startTestService({
    env: {
      ENCRYPTION_KEY: 'ab'.repeat(32),
      URL_FETCH_ALLOW_HOSTS: '127.0.0.1',
      WEBHOOK_RETRY_BASE_SECONDS: String(RETRY_BASE_SECONDS),
      WEBHOOK_POLL_INTERVAL_SECONDS: '0.1',
    },
  });
  api = client(svc.url, await svc.key());
});
afterAll(async () => {
  await svc?.close();
  await receiver?.close();
});

async function register(path: string, events: string[]) {
  const r = await api.post('/v1/webhooks', { url: receiver.url(path), events, description: path });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  secrets.set(path, r.body.secret);
  ids.set(path, r.body.webhook.id);
  return r.body;
}

/** Each request checked with the SDK, as a receiver would; the events they carry. */
async function verified(hooks: ReceivedHook[], path: string): Promise<WebhookEvent[]> {
  const events: WebhookEvent[] = [];
  for (const h of hooks) {
    const event = await verifyWebhook(secrets.get(path)!, h.headers, h.body);
    expect(h.headers['webhook-id']).toBe(event.id);
    expect(h.headers['content-type']).toBe('application/json');
    events.push(event);
  }
  return events;
}

const deliveries = async (path: string, query = '') =>
  (await api.get(`/v1/webhooks/${ids.get(path)}/deliveries${query}`)).body;

const countStays = (path: string, n: number) =>
  holdsFor(`${path} receiving ${n} requests`, () => receiver.received(path).length === n, 1500);

describe('deliveries', () => {
  it('each event reaches the endpoints that want it exactly once, signed', async () => {
    const created = await register('/all', ALL);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.webhook).toMatchObject({ url: receiver.url('/all'), events: ALL, description: '/all' });
    await register('/ready', ['document.ready']);

    // Blank text passes the upload's check (an empty file would be refused at once) and fails when parsed.
    const mixed = await api.upload([
      { name: 'good.md', content: '# Good\n\nA document with some text in it.' },
      { name: 'empty.txt', content: ' \n' },
    ]);
    const failing = await api.upload([{ name: 'nothing.txt', content: '\n\n' }]);
    expect((await api.waitForRun(mixed.body.run.id)).status).toBe('completed');
    expect((await api.waitForRun(failing.body.run.id)).status).toBe('failed');

    await receiver.waitFor('/all', 5);
    await receiver.waitFor('/ready', 1);
    await countStays('/all', 5);
    expect(receiver.received('/ready')).toHaveLength(1);

    const events = await verified(receiver.received('/all'), '/all');
    expect(new Set(events.map((e) => e.id)).size).toBe(5);
    const [good, empty] = mixed.body.documents;
    const byKey = new Map(events.map((e) => [`${e.type} ${e.data.id}`, e]));
    expect([...byKey.keys()].sort()).toEqual(
      [
        `document.ready ${good.id}`,
        `document.failed ${empty.id}`,
        `run.completed ${mixed.body.run.id}`,
        `document.failed ${failing.body.documents[0].id}`,
        `run.failed ${failing.body.run.id}`,
      ].sort(),
    );
    expect(byKey.get(`document.ready ${good.id}`)!.data).toMatchObject({
      workspaceId: mixed.body.workspace.id,
      runId: mixed.body.run.id,
      filename: 'good.md',
      status: 'ready',
      error: null,
      chunkCount: 1,
    });
    expect(byKey.get(`document.failed ${empty.id}`)!.data).toMatchObject({
      status: 'failed',
      error: { code: 'empty_document' },
    });
    expect(byKey.get(`run.completed ${mixed.body.run.id}`)!.data).toMatchObject({
      status: 'completed',
      counts: { total: 2, ready: 1, failed: 1 },
      failures: [{ documentId: empty.id, filename: 'empty.txt', code: 'empty_document' }],
    });
    const ready = await verified(receiver.received('/ready'), '/ready');
    expect(ready.map((e) => [e.type, e.data.id])).toEqual([['document.ready', good.id]]);

    // Every delivery succeeded at its first attempt, and says so.
    const page = await deliveries('/all');
    expect(page.deliveries).toHaveLength(5);
    for (const d of page.deliveries) {
      expect(d).toMatchObject({ status: 'succeeded', nextAttemptAt: null, webhookId: ids.get('/all') });
      expect(d.attempts).toMatchObject([{ number: 1, manual: false, statusCode: 200, error: null }]);
      expect(d.attempts[0].response).toBe(
        'answer ' + String(events.findIndex((e) => e.id === d.event.id) + 1),
      );
    }
  });

  it('announces a cancelled run with the documents it cancelled, once a worker runs', async () => {
    await register('/cancel', ['run.cancelled']);
    const before = receiver.received('/all').length;
    await svc.worker!.stop();
    const up = await api.upload([
      { name: 'a.txt', content: 'First note.' },
      { name: 'b.txt', content: 'Second note.' },
    ]);
    expect((await api.post(`/v1/runs/${up.body.run.id}/cancel`)).body.status).toBe('cancelled');
    // Written with the cancellation; sent by a worker, and none runs now.
    await countStays('/cancel', 0);
    await svc.startWorker();
    const [hook] = await receiver.waitFor('/cancel', 1);
    const [event] = await verified([hook!], '/cancel');
    expect(event).toMatchObject({
      type: 'run.cancelled',
      data: { id: up.body.run.id, status: 'cancelled', counts: { total: 2, cancelled: 2, queued: 0 } },
    });
    // The endpoint for everything gets the run's event and nothing for its cancelled documents.
    await receiver.waitFor('/all', before + 1);
    await countStays('/all', before + 1);
    await countStays('/cancel', 1);
  });

  it('gives a receiver that fails three times the delivery on the fourth try, then never again', async () => {
    await register('/flaky', ['document.ready']);
    const up = await api.upload([{ name: 'flaky.md', content: '# Flaky\n\nSent until it is taken.' }]);
    await api.waitForRun(up.body.run.id);
    const hooks = await receiver.waitFor('/flaky', 4);
    await countStays('/flaky', 4);
    const events = await verified(hooks, '/flaky');
    expect(new Set(events.map((e) => e.id)).size).toBe(1);
    expect(events[0]).toMatchObject({ type: 'document.ready', data: { id: up.body.documents[0].id } });
    // Back-off: each wait at least the base times 2^(n-1), less the jitter (20 %).
    for (let n = 1; n < 4; n++) {
      const gapSeconds = (hooks[n]!.at - hooks[n - 1]!.at) / 1000;
      expect(gapSeconds, `wait before attempt ${n + 1}`).toBeGreaterThanOrEqual(
        0.8 * RETRY_BASE_SECONDS * 2 ** (n - 1),
      );
    }
    const [delivery] = (await deliveries('/flaky')).deliveries;
    expect(delivery.status).toBe('succeeded');
    expect(delivery.attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([500, 500, 500, 200]);
    expect(delivery.attempts[0].error).toBe('Answered HTTP 500.');
    expect(delivery.attempts[0].response).toBe('answer 1');
  });

  it('shows deliveries page by page, and redelivers one on request with the same webhook-id', async () => {
    const all = await deliveries('/all');
    const first = await deliveries('/all', '?limit=2');
    expect(first.deliveries.map((d: { id: string }) => d.id)).toEqual(
      all.deliveries.slice(0, 2).map((d: { id: string }) => d.id),
    );
    const second = await deliveries('/all', `?limit=2&before=${first.next}`);
    expect(second.deliveries[0].id).toBe(all.deliveries[2].id);
    expect((await deliveries('/all', '?status=failed')).deliveries).toEqual([]);
    expect((await deliveries('/all', `?limit=${all.deliveries.length}`)).next).toBe(all.deliveries.at(-1).id);

    // Every document.ready so far went to /ready once; send the first one again.
    const before = receiver.received('/ready');
    const delivery = (await deliveries('/ready')).deliveries.at(-1);
    const original = before.find((h) => h.headers['webhook-id'] === delivery.event.id);
    const r = await api.post(`/v1/webhooks/${ids.get('/ready')}/deliveries/${delivery.id}/redeliver`);
    expect([r.status, r.body.status, r.body.id]).toEqual([202, 'pending', delivery.id]);
    const again = (await receiver.waitFor('/ready', before.length + 1)).at(-1);
    await countStays('/ready', before.length + 1);
    const [event] = await verified([again!], '/ready');
    expect(event!.id).toBe(original!.headers['webhook-id']);
    expect(again!.body).toBe(original!.body);
    const after = await waitFor('the redelivery to be recorded', async () => {
      const d = (await deliveries('/ready')).deliveries.at(-1);
      return d.status === 'succeeded' && d;
    });
    expect(after.id).toBe(delivery.id);
    expect(after.attempts.map((a: { manual: boolean }) => a.manual)).toEqual([false, true]);

    const missing = await api.post(`/v1/webhooks/${ids.get('/ready')}/deliveries/dlv_nope/redeliver`);
    expect([missing.status, missing.body.error.code]).toEqual([404, 'delivery_not_found']);
  });

  it('lists endpoints with their delivery counts, never their secrets, which are stored encrypted', async () => {
    const listed = await api.get('/v1/webhooks');
    expect(listed.body.webhooks.map((w: { description: string }) => w.description)).toEqual([
      '/all',
      '/ready',
      '/cancel',
      '/flaky',
    ]);
    const one = await api.get(`/v1/webhooks/${ids.get('/flaky')}`);
    expect(one.body).toMatchObject({
      id: ids.get('/flaky'),
      deliveries: { pending: 0, succeeded: 1, failed: 0 },
    });
    const text = JSON.stringify([listed.body, one.body]);
    for (const secret of secrets.values()) expect(text).not.toContain(secret.slice(6));

    const db = new pg.Client({ connectionString: svc.dbs.urls.service });
    await db.connect();
    try {
      const rows = (await db.query('SELECT id, secret FROM webhook_endpoints')).rows;
      for (const row of rows) {
        expect(row.secret).toMatch(/^v1:/);
        expect([...secrets.values()].some((s) => row.secret.includes(s.slice(6)))).toBe(false);
        const plain = svc.deps.secrets!.decrypt(row.secret, webhookSecretContext(row.id));
        expect([...secrets.values()]).toContain(plain);
      }
    } finally {
      await db.end();
    }
  });

  it("keeps each account's endpoints its own", async () => {
    const stranger = client(svc.url, await svc.key(['ingest'], 'stranger'));
    expect((await stranger.get('/v1/webhooks')).body).toEqual({ webhooks: [] });
    const id = ids.get('/all')!;
    const [delivery] = (await deliveries('/all')).deliveries;
    for (const r of [
      await stranger.get(`/v1/webhooks/${id}`),
      await stranger.get(`/v1/webhooks/${id}/deliveries`),
      await stranger.post(`/v1/webhooks/${id}/deliveries/${delivery.id}/redeliver`),
      await stranger.delete(`/v1/webhooks/${id}`),
    ]) {
      expect([r.status, r.body.error.code]).toEqual([404, 'webhook_not_found']);
    }
    expect((await api.get(`/v1/webhooks/${id}`)).status).toBe(200);
    const searchOnly = client(svc.url, await svc.key(['search']));
    expect((await searchOnly.get('/v1/webhooks')).status).toBe(403);
  });
});

describe('the request-forgery guard', () => {
  it('refuses private, loopback and metadata addresses at registration', async () => {
    const count = (await api.get('/v1/webhooks')).body.webhooks.length;
    for (const url of [
      receiver.url('/forbidden').replace('127.0.0.1', 'localhost'),
      `http://127.0.0.2:${receiver.port}/forbidden`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/hook',
      'http://[::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
    ]) {
      const r = await api.post('/v1/webhooks', { url, events: ['run.completed'] });
      expect([r.status, r.body.error?.code], url).toEqual([400, 'webhook_url_forbidden']);
      expect(r.body.error.message).toMatch(/private, local or reserved address.*URL_FETCH_ALLOW_HOSTS/);
    }
    for (const body of [
      { url: 'ftp://127.0.0.1/hook', events: ['run.completed'] },
      { url: 'http://user:secret@127.0.0.1/hook', events: ['run.completed'] },
      { url: 'not a url', events: ['run.completed'] },
      { url: receiver.url('/x'), events: [] },
      { url: receiver.url('/x'), events: ['run.started'] },
    ]) {
      const r = await api.post('/v1/webhooks', body);
      expect([r.status, r.body.error.code], JSON.stringify(body)).toEqual([400, 'invalid_request']);
    }
    expect((await api.get('/v1/webhooks')).body.webhooks).toHaveLength(count);
    expect(receiver.received('/forbidden')).toEqual([]);
  });

  it('refuses a name that resolves to loopback when a delivery is sent, and sends nothing there', async () => {
    // Registered while its name pointed elsewhere: the row as the API would have written it.
    const id = 'whk_rebound';
    const db = new pg.Client({ connectionString: svc.dbs.urls.service });
    await db.connect();
    try {
      const account = await svc.deps.accounts.ensureAccount('default');
      await db.query(
        `INSERT INTO webhook_endpoints (id, account_id, url, events, secret) VALUES ($1, $2, $3, $4, $5)`,
        [
          id,
          account.id,
          receiver.url('/rebound').replace('127.0.0.1', 'localhost'),
          ['document.ready'],
          svc.deps.secrets!.encrypt('whsec_AAAA', webhookSecretContext(id)),
        ],
      );
      const up = await api.upload([{ name: 'rebound.md', content: '# Rebound\n\nNot for localhost.' }]);
      await api.waitForRun(up.body.run.id);
      const refused = await waitFor('a refused attempt', async () => {
        const [d] = (await api.get(`/v1/webhooks/${id}/deliveries`)).body.deliveries;
        return d?.attempts.some((a: { error: string | null }) => a.error) && d;
      });
      expect(refused.status).toBe('pending');
      expect(refused.attempts[0]).toMatchObject({ statusCode: null, response: null });
      expect(refused.attempts[0].error).toMatch(
        /^Refused to send: localhost resolves to a private, local or reserved address; .*URL_FETCH_ALLOW_HOSTS/,
      );
      expect(receiver.received('/rebound')).toEqual([]);

      // Deleting the endpoint drops what it was still owed.
      expect((await api.delete(`/v1/webhooks/${id}`)).status).toBe(200);
      const left = await db.query(
        'SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1',
        [id],
      );
      expect(left.rows[0].n).toBe(0);
      await countStays('/rebound', 0);
    } finally {
      await db.end();
    }
  });
});

describe('registration limits', () => {
  it('refuses more than 20 endpoints per account', async () => {
    const crowded = client(svc.url, await svc.key(['ingest'], 'crowded'));
    for (let i = 0; i < 20; i++) {
      const r = await crowded.post('/v1/webhooks', { url: receiver.url(`/c${i}`), events: ['run.failed'] });
      expect(r.status).toBe(201);
    }
    const r = await crowded.post('/v1/webhooks', { url: receiver.url('/c20'), events: ['run.failed'] });
    expect([r.status, r.body.error.code]).toEqual([400, 'too_many_webhooks']);
  });

  it('refuses to register without an encryption key for the secret', async () => {
    const app = await buildApp({ ...svc.deps, secrets: undefined });
    try {
      const r = await app.inject({
        method: 'POST',
        url: '/v1/webhooks',
        headers: { authorization: `Bearer ${await svc.key(['ingest'])}` },
        payload: { url: receiver.url('/nokey'), events: ['run.completed'] },
      });
      expect([r.statusCode, r.json().error.code]).toEqual([400, 'encryption_not_configured']);
    } finally {
      await app.close();
    }
  });
});
