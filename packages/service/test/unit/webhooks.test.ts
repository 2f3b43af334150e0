import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../../sdk/src/webhooks.js';
import { AllowList } from '../../src/adapters/web/address-policy.js';
import { AddressGuard, type Resolve } from '../../src/adapters/web/guard.js';
import { GuardedWebhookSender, retryAfterSeconds } from '../../src/adapters/web/webhook-sender.js';
import { MAX_RETRY_DELAY_SECONDS, nextAfter, retryDelaySeconds } from '../../src/webhooks/dispatch.js';
import { newWebhookSecret, signWebhook } from '../../src/webhooks/signing.js';

describe('signing', () => {
  it("reproduces the Standard Webhooks specification's example signature", () => {
    expect(
      signWebhook(
        'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        'msg_p5jXN8AQM9LWM0D4loKWxJek',
        1614265330,
        '{"test": 2432232314}',
      ),
    ).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('makes secrets of 32 random bytes that the SDK verifies signatures with', async () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(secret);
    const body = '{"id":"evt_1","type":"run.completed"}';
    const ts = Math.floor(Date.now() / 1000);
    const headers = { 'webhook-id': 'evt_1', 'webhook-timestamp': String(ts) };
    const signature = signWebhook(secret, 'evt_1', ts, body);
    expect(await verifyWebhook(secret, { ...headers, 'webhook-signature': signature }, body)).toEqual(
      JSON.parse(body),
    );
    await expect(
      verifyWebhook(newWebhookSecret(), { ...headers, 'webhook-signature': signature }, body),
    ).rejects.toThrow(/No signature/);
  });
});

describe('the retry schedule', () => {
  const settings = { retryBaseSeconds: 30, retryHours: 24 };

  it('doubles from the base, with ±20 % jitter, capped at six hours, at least what Retry-After asks', () => {
    const mid = () => 0.5;
    expect([1, 2, 3, 4].map((n) => retryDelaySeconds(n, 30, undefined, mid))).toEqual([30, 60, 120, 240]);
    expect(retryDelaySeconds(1, 30, undefined, () => 0)).toBeCloseTo(24);
    expect(retryDelaySeconds(1, 30, undefined, () => 0.999_999)).toBeCloseTo(36);
    expect(retryDelaySeconds(30, 30, undefined, () => 0.999_999)).toBe(MAX_RETRY_DELAY_SECONDS);
    expect(retryDelaySeconds(1, 30, 600, mid)).toBe(600);
    expect(retryDelaySeconds(1, 30, 10 * 24 * 3600, mid)).toBe(MAX_RETRY_DELAY_SECONDS);
  });

  it('succeeds on a 2xx only, and keeps retrying a failing endpoint for at least a day', () => {
    const at = (attempt: number, retryingForSeconds: number) => ({ attempt, retryingForSeconds });
    const failure = { statusCode: 500, error: 'Answered HTTP 500.', response: null };
    expect(nextAfter(at(1, 0), { ...failure, statusCode: 204, error: null }, 0.1, settings)).toEqual({
      status: 'succeeded',
    });
    for (const statusCode of [null, 301, 404, 410, 500]) {
      expect(nextAfter(at(1, 0), { ...failure, statusCode }, 0.1, settings).status).toBe('pending');
    }
    // Play a receiver that never answers 2xx through the default schedule, with the jitter's mean.
    const mid = () => 0.5;
    let elapsed = 0;
    let attempts = 0;
    for (;;) {
      attempts++;
      const next = nextAfter(at(attempts, elapsed), failure, 0, settings, mid);
      if (next.status !== 'pending') {
        expect(next.status).toBe('failed');
        break;
      }
      elapsed += next.retryInSeconds;
      expect(attempts).toBeLessThan(100);
    }
    expect(elapsed).toBeGreaterThanOrEqual(24 * 3600);
    expect(elapsed).toBeLessThan(24 * 3600 + MAX_RETRY_DELAY_SECONDS * 1.2);
    expect(attempts).toBe(14);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterSeconds('120', now)).toBe(120);
    expect(retryAfterSeconds('Thu, 01 Jan 2026 00:02:00 GMT', now)).toBe(120);
    expect(retryAfterSeconds('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(retryAfterSeconds('soon', now)).toBeUndefined();
    expect(retryAfterSeconds(undefined, now)).toBeUndefined();
  });
});

describe('GuardedWebhookSender', () => {
  let server: http.Server;
  let port: number;
  const received: { url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString('utf8');
      });
      req.on('end', () => {
        received.push({ url: req.url ?? '', headers: req.headers, body });
        if (req.url === '/redirect') res.writeHead(302, { location: '/elsewhere' }).end();
        else if (req.url === '/busy') res.writeHead(503, { 'retry-after': '90' }).end('busy');
        else if (req.url === '/silent')
          return; // never answers
        else if (req.url === '/endless') {
          res.writeHead(200);
          const more = () => res.write('x'.repeat(1024), () => setImmediate(more));
          more();
        } else res.writeHead(202).end(`got it\u0000 ${'y'.repeat(100)}`);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });

  const sender = (resolve: Resolve, allow: string[] = [], timeoutMs = 5000) =>
    new GuardedWebhookSender({
      guard: new AddressGuard(new AllowList(allow), resolve),
      timeoutMs,
      maxResponseBytes: 32,
      userAgent: 'test',
    });
  const loopback: Resolve = async () => [{ address: '127.0.0.1', family: 4 }];
  const send = (s: GuardedWebhookSender, path: string) =>
    s.send({
      url: `http://hooks.test:${port}${path}`,
      headers: { 'content-type': 'application/json', 'webhook-id': 'evt_1' },
      body: '{"a":1}',
      signal: new AbortController().signal,
    });

  it('posts the body and headers, and keeps the start of the answer (no NUL)', async () => {
    received.length = 0;
    const r = await send(sender(loopback, ['hooks.test']), '/in');
    expect(r).toEqual({
      statusCode: 202,
      error: null,
      response: `got it\ufffd ${'y'.repeat(24)}`,
      retryAfterSeconds: undefined,
    });
    expect(received).toHaveLength(1);
    expect(received[0]!.body).toBe('{"a":1}');
    expect(received[0]!.headers).toMatchObject({
      host: `hooks.test:${port}`,
      'content-type': 'application/json',
      'webhook-id': 'evt_1',
      'user-agent': 'test',
    });
  });

  it('refuses a name that resolves to loopback, and one with any internal address, without connecting', async () => {
    received.length = 0;
    for (const resolve of [
      loopback,
      async () => [
        { address: '93.184.216.34', family: 4 },
        { address: '169.254.169.254', family: 4 },
      ],
    ]) {
      const r = await send(sender(resolve), '/in');
      expect(r.statusCode).toBeNull();
      expect(r.error).toMatch(
        /^Refused to send: hooks.test resolves to a private, local or reserved address/,
      );
      expect(r.error).not.toMatch(/127\.0\.0\.1|169\.254/);
    }
    expect(received).toHaveLength(0);
  });

  it('connects to the address it checked, whatever DNS answers afterwards', async () => {
    received.length = 0;
    const answers: string[] = [];
    const rebinding: Resolve = async () => {
      const address = answers.length === 0 ? '127.0.0.1' : '10.0.0.1';
      answers.push(address);
      return [{ address, family: 4 }];
    };
    expect((await send(sender(rebinding, ['127.0.0.1/32']), '/in')).statusCode).toBe(202);
    expect(answers).toEqual(['127.0.0.1']);
    expect(received).toHaveLength(1);
  });

  it('does not follow redirects, reads Retry-After, and ends a silent or endless answer', async () => {
    received.length = 0;
    const s = sender(loopback, ['hooks.test'], 1000);
    const redirect = await send(s, '/redirect');
    expect(redirect.statusCode).toBe(302);
    expect(redirect.error).toMatch(/redirects are not followed/);
    expect(received.map((r) => r.url)).toEqual(['/redirect']);
    const busy = await send(s, '/busy');
    expect([busy.statusCode, busy.error, busy.retryAfterSeconds]).toEqual([503, 'Answered HTTP 503.', 90]);
    const t0 = performance.now();
    const silent = await send(s, '/silent');
    expect([silent.statusCode, silent.error]).toEqual([null, 'No answer within 1000 ms.']);
    expect(performance.now() - t0).toBeLessThan(3000);
    const endless = await send(s, '/endless');
    expect(endless.statusCode).toBe(200);
    expect(endless.response).toBe('x'.repeat(32));
  });

  it('tells at registration why a URL is refused', async () => {
    const s = sender(loopback);
    expect(await s.refusal(new URL('http://hooks.test/'))).toMatch(
      /^hooks.test resolves to a private, local or reserved address; a self-hoster can allow internal hosts with URL_FETCH_ALLOW_HOSTS$/,
    );
    for (const url of ['http://127.0.0.1:9/', 'http://169.254.169.254/', 'http://[::1]/', 'http://10.1.2.3/'])
      expect(await s.refusal(new URL(url)), url).toMatch(/private, local or reserved/);
    const unresolvable = sender(async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.test'), { code: 'ENOTFOUND' });
    });
    expect(await unresolvable.refusal(new URL('http://nowhere.test/'))).toBe(
      'nowhere.test cannot be reached: the host name does not resolve',
    );
    expect(await sender(loopback, ['hooks.test']).refusal(new URL('http://hooks.test/'))).toBeUndefined();
  });
});
