// Over 400 lines: the attack catalogue against one running server process (one start for all), an
// attack per test, grouped by the part of the service it aims at.
import { readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { client } from '../support/http.js';
import { type ModelServer, startModelServer } from '../support/model-servers.js';
import type { RunningProcess } from '../support/processes.js';
import {
  idleConnection,
  jsonRequest,
  multipartBody,
  postHead,
  rawRequest,
  slowRequest,
} from '../support/raw-http.js';
import { type ServerProcess, startServerProcess, startWorkerProcess } from '../support/server-process.js';

/**
 * The attacks of issue 15 against `docslurp server` as its own process, over real sockets: what the
 * process holds (descriptors, staged files) is counted before and after.
 */

let srv: ServerProcess;
const admin = { email: 'admin@example.com', password: 'attack-test-password' };
/** The server's own settings here: a hosted platform (so /ready hides details from the public). */
const hostedEnv = {
  HOSTED_PLATFORM_APP_NAME: 'attack-test',
  LOGIN_ATTEMPTS_PER_MINUTE: '2',
  CONSOLE_ADMIN_EMAIL: admin.email,
  CONSOLE_ADMIN_PASSWORD: admin.password,
};

/**
 * An address of this machine that is not loopback: connections from it reach the server as a
 * caller from the network would. (A machine without one cannot run these tests.)
 */
function networkAddress(): string {
  const found = Object.values(os.networkInterfaces())
    .flat()
    .find((i) => i && !i.internal && i.family === 'IPv4');
  if (!found) throw new Error('this test needs a non-loopback IPv4 address on the machine');
  return found.address;
}

/** Short timeouts, so that the slow clients below are ended within the test's patience. */
const timeoutEnv = { HTTP_BODY_TIMEOUT_SECONDS: '2', HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: '2' };

beforeAll(async () => {
  // Bound to every interface, so that a caller from the network address can be played.
  srv = await startServerProcess({ ...hostedEnv, ...timeoutEnv }, { host: '0.0.0.0' });
});
afterAll(async () => {
  await srv?.stop();
});

/** Every file under DATA_DIR/objects: staged uploads, finished or not (`….tmp`). */
async function storedFiles(): Promise<string[]> {
  const root = path.join(srv.dataDir, 'objects');
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => e.name);
}

const json = (body: string) => JSON.parse(body) as { error: { code: string; message: string } };

describe('uploads that never finish', () => {
  it('ends every truncated or abandoned upload, keeping no staged file and no descriptor', async () => {
    const boundary = 'attack-boundary';
    const auth = {
      authorization: `Bearer ${srv.key}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
    };
    // Warm up: the database pool and the storage folders exist before counting.
    const warm = multipartBody(boundary, [{ name: 'files', filename: 'ok.txt', content: 'A whole file.' }]);
    await Promise.all(
      Array.from({ length: 4 }, () =>
        rawRequest(
          srv.port,
          Buffer.concat([
            Buffer.from(postHead('/v1/ingest/bulk', { ...auth, 'content-length': String(warm.length) })),
            warm,
          ]),
        ),
      ),
    );
    const filesBefore = await storedFiles();
    const descriptorsBefore = await srv.descriptors();

    const small = multipartBody(boundary, [{ name: 'files', filename: 'cut.txt', content: 'hello world' }]);
    const large = multipartBody(boundary, [
      { name: 'files', filename: 'big.bin', content: Buffer.alloc(512 * 1024, 'x') },
    ]);
    const truncated = (body: Buffer, at: number) => {
      const cut = body.subarray(0, at);
      return Buffer.concat([
        Buffer.from(postHead('/v1/ingest/bulk', { ...auth, 'content-length': String(cut.length) })),
        cut,
      ]);
    };
    for (let i = 0; i < 30; i++) {
      // The body is complete as sent, but ends inside a small file part: no closing boundary.
      const a = await rawRequest(srv.port, truncated(small, small.length - `--${boundary}--\r\n`.length - 2));
      expect(a.status).toBe(400);
      expect(json(a.body).error.code).toBe('upload_incomplete');
    }
    for (let i = 0; i < 10; i++) {
      // The same inside a large part.
      const a = await rawRequest(srv.port, truncated(large, 300 * 1024));
      expect(a.status).toBe(400);
      expect(json(a.body).error.code).toBe('upload_incomplete');
    }
    for (let i = 0; i < 10; i++) {
      // A client that announces the whole body, sends part of the file and goes away.
      const head = postHead('/v1/ingest/bulk', { ...auth, 'content-length': String(large.length) });
      await rawRequest(srv.port, Buffer.concat([Buffer.from(head), large.subarray(0, 200 * 1024)]), {
        abandon: true,
      });
    }

    await vi.waitFor(
      async () => {
        expect((await storedFiles()).filter((f) => !filesBefore.includes(f))).toEqual([]);
        // A little slack for the database pool, which may open a connection more under load.
        expect(await srv.descriptors()).toBeLessThanOrEqual(descriptorsBefore + 4);
      },
      { timeout: 10_000, interval: 250 },
    );
  });
});

describe('forwarded headers from a caller that is not a configured proxy', () => {
  it('ignores X-Forwarded-For on /ready: a public caller sees the redacted answer', async () => {
    const from = networkAddress();
    const forged = await jsonRequest(srv.port, 'GET', '/ready', {
      host: from,
      localAddress: from,
      headers: { 'x-forwarded-for': '127.0.0.1, 198.51.100.7' },
    });
    expect(forged.status).toBe(200);
    expect(Object.keys(forged.json).sort()).toEqual(['checks', 'status']);
    expect(forged.json.checks.database).toEqual({ ok: true });
    // The same server still gives loopback callers the detail.
    const local = await jsonRequest(srv.port, 'GET', '/ready');
    expect(local.json.schemaVersion).toBeDefined();
  });

  // What a reverse proxy on the same host (not in TRUSTED_PROXIES) may write to say whom it relays,
  // as proxies spell the names: nginx, HAProxy, Envoy, Caddy, Traefik, CDNs and platforms.
  const relayHeaders: [string, string][] = [
    ['X-Forwarded-For', '198.51.100.7'],
    ['Forwarded', 'for=198.51.100.7;proto=https'],
    ['X-Real-IP', '198.51.100.7'],
    ['X-Forwarded-Host', 'docs.example.com'],
    ['X-Forwarded-Proto', 'https'],
    ['X-Forwarded-Server', 'edge-1'],
    ['Via', '1.1 edge-1'],
    ['True-Client-IP', '198.51.100.7'],
    ['CF-Connecting-IP', '198.51.100.7'],
    ['Fastly-Client-IP', '198.51.100.7'],
    ['Fly-Client-IP', '198.51.100.7'],
    ['X-Client-IP', '198.51.100.7'],
    ['X-Cluster-Client-IP', '198.51.100.7'],
    ['X-Envoy-External-Address', '198.51.100.7'],
  ];
  it.each(relayHeaders)(
    'treats a request relayed to loopback with %s as public on /ready',
    async (name, value) => {
      const relayed = await jsonRequest(srv.port, 'GET', '/ready', { headers: { [name]: value } });
      expect(relayed.status).toBe(200);
      expect(Object.keys(relayed.json).sort()).toEqual(['checks', 'status']);
      expect(relayed.json.checks.database).toEqual({ ok: true });
    },
  );

  it('gives the detail to a loopback caller that no proxy relayed', async () => {
    const local = await jsonRequest(srv.port, 'GET', '/ready');
    expect(local.json.schemaVersion).toBeDefined();
    expect(local.json.checks.database.latencyMs).toBeTypeOf('number');
  });

  it('counts failed sign-ins per socket address however X-Forwarded-For varies', async () => {
    // LOGIN_ATTEMPTS_PER_MINUTE=2: ten failures per address, each with its own email and forged
    // address. The address's allowance refills one attempt every six seconds, and a loaded machine
    // can take that long over ten failed sign-ins (each checks a password hash), so attempts go on
    // until the first refusal: counted per socket it comes after ten and whatever refilled meanwhile;
    // counted per forged address it never would.
    const statuses: number[] = [];
    const started = Date.now();
    for (let i = 0; i < 40 && !statuses.includes(429); i++) {
      const r = await jsonRequest(srv.port, 'POST', '/v1/session', {
        body: { email: `guess${i}@example.com`, password: 'wrong password' },
        headers: { 'x-forwarded-for': `203.0.113.${i + 1}` },
      });
      statuses.push(r.status);
    }
    const refilled = Math.ceil((Date.now() - started) / 6000);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.length - 1).toBeLessThanOrEqual(10 + refilled);
  });

  it('ignores X-Forwarded-Proto: a session cookie over plain http is not marked Secure', async () => {
    const from = networkAddress();
    const r = await jsonRequest(srv.port, 'POST', '/v1/session', {
      host: from,
      localAddress: from,
      body: admin,
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(r.status).toBe(200);
    expect(r.headers['set-cookie']).toMatch(/^docslurp_session=/);
    expect(r.headers['set-cookie']).not.toMatch(/;\s*Secure/i);
  });
});

describe('behind a configured proxy (TRUSTED_PROXIES)', () => {
  let proxied: ServerProcess;
  beforeAll(async () => {
    proxied = await startServerProcess(
      { ...hostedEnv, TRUSTED_PROXIES: '127.0.0.1', HTTP_MAX_CONNECTIONS_PER_ADDRESS: '5' },
      { host: '0.0.0.0' },
    );
  });
  afterAll(async () => {
    await proxied?.stop();
  });

  it('takes the client from the proxy and not from what the client itself claimed', async () => {
    // The client forged "127.0.0.1"; the proxy appended the address it saw. Only the latter counts.
    const r = await jsonRequest(proxied.port, 'GET', '/ready', {
      headers: { 'x-forwarded-for': '127.0.0.1, 198.51.100.7' },
    });
    expect(Object.keys(r.json).sort()).toEqual(['checks', 'status']);
    const direct = await jsonRequest(proxied.port, 'GET', '/ready');
    expect(direct.json.schemaVersion).toBeDefined();
  });

  it('treats a request the proxy relayed without X-Forwarded-For as public on /ready', async () => {
    // The configured proxy names its client in a header the server does not resolve: the client is
    // unknown, so it is not the loopback address the proxy connects from.
    for (const headers of [{ Forwarded: 'for=198.51.100.7' }, { 'X-Real-IP': '198.51.100.7' }]) {
      const r = await jsonRequest(proxied.port, 'GET', '/ready', { headers });
      expect(Object.keys(r.json).sort()).toEqual(['checks', 'status']);
    }
  });

  it('caps the connections of one client address (429 too_many_connections), but not of the proxy', async () => {
    const from = networkAddress();
    const held = await Promise.all(
      Array.from({ length: 5 }, () => idleConnection(proxied.port, { host: from, localAddress: from })),
    );
    const refused = await idleConnection(proxied.port, { host: from, localAddress: from });
    const answer = await refused.answer();
    expect(answer.closed).toBe(true);
    expect(answer.status).toBe(429);
    expect(JSON.parse(answer.body).error.code).toBe('too_many_connections');
    // The operator hears of it (once a minute at most).
    await vi.waitFor(() => expect(proxied.process.output()).toContain('HTTP_MAX_CONNECTIONS_PER_ADDRESS'));
    // The proxy's own connections are not counted: it carries every client.
    const viaProxy = await Promise.all(
      Array.from({ length: 8 }, () => jsonRequest(proxied.port, 'GET', '/health')),
    );
    expect(viaProxy.map((r) => r.status)).toEqual(Array(8).fill(200));
    // A connection that closes makes room for the next one.
    held[0]!.close();
    await vi.waitFor(async () => {
      const again = await jsonRequest(proxied.port, 'GET', '/health', { host: from, localAddress: from });
      expect(again.status).toBe(200);
    });
    for (const c of held) c.close();
  });

  it("believes the proxy's X-Forwarded-Proto for the cookie's Secure flag", async () => {
    const r = await jsonRequest(proxied.port, 'POST', '/v1/session', {
      body: admin,
      headers: { 'x-forwarded-for': '198.51.100.8', 'x-forwarded-proto': 'https' },
    });
    expect(r.status).toBe(200);
    expect(r.headers['set-cookie']).toMatch(/;\s*Secure/i);
  });
});

describe('clients that send a request slowly (slowloris)', () => {
  const slowJson = (headers: Record<string, string>) =>
    postHead('/v1/search', { 'content-type': 'application/json', 'content-length': '1000', ...headers });

  it('answers a body without a key at once and closes the connection without reading the body', async () => {
    const descriptorsBefore = await srv.descriptors();
    const answers = await Promise.all(
      Array.from({ length: 30 }, () =>
        slowRequest(srv.port, `${slowJson({})}{`, () => ' ', { maxMs: 5_000 }),
      ),
    );
    for (const a of answers) {
      expect(a.status).toBe(401);
      expect(JSON.parse(a.body).error.code).toBe('missing_api_key');
      // The server closed the connection while the client still had a body to send.
      expect(a.closed).toBe(true);
    }
    await vi.waitFor(async () => expect(await srv.descriptors()).toBeLessThanOrEqual(descriptorsBefore + 4));
  });

  it('still lets a client read the early answer to an ordinary upload it was sending', async () => {
    // A body of a few hundred KiB that the server refuses before reading (no key): the answer must
    // reach the client. Closing on the unread body reset the connection, and fetch (the SDK's
    // transport) saw a connection error instead of 401 in most tries.
    for (let i = 0; i < 10; i++) {
      const form = new FormData();
      form.append('files', new Blob([Buffer.alloc(256 * 1024, 'a')]), 'notes.txt');
      const r = await fetch(`${srv.url}/v1/ingest/bulk`, { method: 'POST', body: form });
      expect(r.status).toBe(401);
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe('missing_api_key');
    }
  });

  it('authenticates before it validates: a wrong body without a key learns nothing of the schema', async () => {
    for (const path of ['/v1/search', '/v1/search/chat', '/v1/ingest/urls', '/v1/keys']) {
      const r = await jsonRequest(srv.port, 'POST', path, { body: { unexpected: true } });
      expect([r.status, r.json.error.code]).toEqual([401, 'missing_api_key']);
    }
  });

  it('ends a body that trickles in with a key after HTTP_BODY_TIMEOUT_SECONDS: 408 request_timeout', async () => {
    const a = await slowRequest(srv.port, `${slowJson({ authorization: `Bearer ${srv.key}` })}{`, () => ' ', {
      maxMs: 8_000,
    });
    expect(a.status).toBe(408);
    expect(JSON.parse(a.body).error.code).toBe('request_timeout');
    // Closed by the server (before the client's 8 s of patience), and not before the timeout.
    expect(a.closed).toBe(true);
    expect(a.closedAfterMs).toBeGreaterThanOrEqual(1_900);
  });

  it('ends headers that trickle in after the same time', async () => {
    let n = 0;
    const a = await slowRequest(
      srv.port,
      'GET /health HTTP/1.1\r\nHost: localhost\r\n',
      () => `x-pad-${n++}: 1\r\n`,
      { maxMs: 8_000 },
    );
    // Node answers the unfinished headers itself.
    expect(a.status).toBe(408);
    // Closed by the server (before the client's 8 s of patience), and not before the timeout.
    expect(a.closed).toBe(true);
    expect(a.closedAfterMs).toBeGreaterThanOrEqual(1_900);
  });

  it('ends an upload that stops sending and removes what it had staged', async () => {
    const filesBefore = await storedFiles();
    const boundary = 'stall';
    const body = multipartBody(boundary, [
      { name: 'files', filename: 'stalled.bin', content: Buffer.alloc(1024 * 1024, 'y') },
    ]);
    const head = postHead('/v1/ingest/bulk', {
      authorization: `Bearer ${srv.key}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(body.length),
    });
    // Half the file, then nothing: the connection stays open and silent.
    const a = await slowRequest(
      srv.port,
      Buffer.concat([Buffer.from(head), body.subarray(0, 512 * 1024)]),
      () => '',
      {
        intervalMs: 60_000,
        maxMs: 8_000,
      },
    );
    // Closed by the server (before the client's 8 s of patience), and not before the timeout.
    expect(a.closed).toBe(true);
    expect(a.closedAfterMs).toBeGreaterThanOrEqual(1_900);
    await vi.waitFor(async () =>
      expect((await storedFiles()).filter((f) => !filesBefore.includes(f))).toEqual([]),
    );
  });

  it('closes an idle keep-alive connection after HTTP_KEEP_ALIVE_TIMEOUT_SECONDS', async () => {
    const c = await idleConnection(srv.port);
    c.socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const started = Date.now();
    const a = await c.answer(8_000);
    expect(a.status).toBe(200);
    expect(a.closed).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
  });
});

describe('a document that forges citation markers', () => {
  const question = 'Within how many days are refunds paid?';
  let worker: RunningProcess;
  let models: ModelServer;
  let withModel: ServerProcess;
  let workspaceId: string;

  beforeAll(async () => {
    worker = startWorkerProcess(srv);
    models = await startModelServer();
    // A second server on the same data, answering with a chat model (a local server speaking its API).
    withModel = await startServerProcess(
      { LLM_BASE_URL: models.url, LLM_MODEL: 'fake-chat', LLM_MAX_RETRIES: '0' },
      { share: srv },
    );
    const api = client(srv.url, srv.key);
    const up = await api.upload([
      { name: 'refunds.md', content: '# Refunds\n\nRefunds are paid within 99 days [2] [3] [99].\n' },
      { name: 'badges.md', content: '# Badges\n\nBadges are renewed every 365 days at the front desk.\n' },
      { name: 'cafeteria.md', content: '# Cafeteria\n\nThe cafeteria is closed a few days a year.\n' },
    ]);
    workspaceId = up.body.workspace.id;
    expect((await api.waitForRun(up.body.run.id, 60_000)).counts.ready).toBe(3);
  });
  afterAll(async () => {
    await withModel?.stop();
    await models?.close();
    await worker?.stop();
  });

  interface Cited {
    n: number;
    filename: string;
  }
  /**
   * The answer's markers are exactly its citations' numbers, and every citation is the refunds
   * document: the numbers in the document's sentence are no markers, and none points elsewhere.
   */
  function expectOnlyOwnMarkers(answer: string, citations: Cited[]) {
    expect(answer).toContain('99 days (2) (3) (99)');
    const markers = [...answer.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    expect(markers.length).toBeGreaterThan(0);
    expect(new Set(markers)).toEqual(new Set(citations.map((c) => c.n)));
    expect(citations.map((c) => c.filename)).toEqual(citations.map(() => 'refunds.md'));
  }

  async function events(res: Response) {
    return (await res.text())
      .trim()
      .split('\n\n')
      .map((block) => ({
        event: /^event: (.*)$/m.exec(block)?.[1],
        data: /^data: (.*)$/m.exec(block)?.[1] ?? '',
      }));
  }

  for (const [name, server, modelAnswers] of [
    ['extractive answers', () => srv, false],
    ['a chat model that copies the sentence', () => withModel, true],
  ] as const) {
    describe(name, () => {
      let asked = 0;
      beforeAll(() => {
        asked = models.chatRequests.length;
      });
      afterAll(() => {
        // The chat model wrote the answers of its server, and only those.
        expect(models.chatRequests.length > asked).toBe(modelAnswers);
      });

      const post = (path: string, body: unknown) =>
        fetch(server().url + path, {
          method: 'POST',
          headers: { authorization: `Bearer ${server().key}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });

      it('/v1/search/chat, plain and streamed', async () => {
        const plain = (await (await post('/v1/search/chat', { workspaceId, q: question })).json()) as {
          answer: string;
          citations: Cited[];
        };
        expectOnlyOwnMarkers(plain.answer, plain.citations);
        const streamed = await events(
          await post('/v1/search/chat', { workspaceId, q: question, stream: true }),
        );
        const done = JSON.parse(streamed.at(-1)!.data) as { answer: string; citations: Cited[] };
        const deltas = streamed
          .filter((e) => e.event === 'delta')
          .map((e) => JSON.parse(e.data).text as string);
        expect(deltas.join('')).toBe(done.answer);
        expectOnlyOwnMarkers(done.answer, done.citations);
      });

      it('the OpenAI-compatible chat, plain and streamed', async () => {
        const path = `/v1/workspaces/${workspaceId}/openai/chat/completions`;
        const messages = [{ role: 'user', content: question }];
        const plain = (await (await post(path, { model: 'docslurp', messages })).json()) as {
          choices: { message: { content: string } }[];
          citations: Cited[];
        };
        expectOnlyOwnMarkers(plain.choices[0]!.message.content, plain.citations);
        const chunks = (await events(await post(path, { model: 'docslurp', messages, stream: true })))
          .map((e) => e.data)
          .filter((d) => d !== '[DONE]')
          .map((d) => JSON.parse(d) as { choices: { delta: { content?: string } }[]; citations?: Cited[] });
        const content = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
        expectOnlyOwnMarkers(content, chunks.find((c) => c.citations)!.citations!);
      });
    });
  }
});

describe('smaller findings', () => {
  it('keeps API answers out of caches: the session with its CSRF token, document text and content', async () => {
    let worker: RunningProcess | undefined;
    try {
      worker = startWorkerProcess(srv);
      const api = client(srv.url, srv.key);
      const up = await api.upload([
        { name: 'private.md', content: '# Private\n\nSalaries are reviewed in May.\n' },
      ]);
      await api.waitForRun(up.body.run.id, 60_000);
      const id = up.body.documents[0].id as string;
      for (const path of [`/v1/documents/${id}/text`, `/v1/documents/${id}/content`, `/v1/documents/${id}`]) {
        const r = await fetch(srv.url + path, { headers: { authorization: `Bearer ${srv.key}` } });
        expect(r.status, path).toBe(200);
        expect(r.headers.get('cache-control'), path).toBe('no-store');
      }
    } finally {
      await worker?.stop();
    }
    const signIn = await jsonRequest(srv.port, 'POST', '/v1/session', { body: admin });
    expect(signIn.headers['cache-control']).toBe('no-store');
    const cookie = signIn.headers['set-cookie']!.split(';')[0]!;
    const session = await jsonRequest(srv.port, 'GET', '/v1/session', { headers: { cookie } });
    expect(session.status).toBe(200);
    expect(session.json.csrfToken).toBeTruthy();
    expect(session.headers['cache-control']).toBe('no-store');
  });

  it('takes a client request id only in the strict form, never one that poses as the server’s', async () => {
    const echoed = async (id: string) =>
      (await jsonRequest(srv.port, 'GET', '/health', { headers: { 'x-request-id': id } })).headers[
        'x-request-id'
      ];
    for (const kept of [
      '0f8fc2a4-5b6e-4a42-9d1b-3c1a2b3c4d5e',
      'sdk_0123456789abcdef01234567',
      'job-42.poll',
    ])
      expect(await echoed(kept)).toBe(kept);
    for (const replaced of [
      'req_forged0000000000',
      'abc',
      'x'.repeat(65),
      'a:b:c:d:e:f',
      '-leading-dash',
      'id with space',
    ]) {
      const id = await echoed(replaced);
      expect(id).not.toBe(replaced);
      expect(id).toMatch(/^req_[0-9a-z]{16}$/);
    }
  });
});
