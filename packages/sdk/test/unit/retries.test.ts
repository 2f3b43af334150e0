import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ConnectionError,
  createDocSlurpClient,
  type DocSlurpClient,
  RateLimitError,
  ServerError,
  TimeoutError,
} from '../../src/index.js';
import {
  apiError,
  hang,
  json,
  networkError,
  type Reply,
  run,
  scriptedFetch,
  settle,
} from '../support/fake-fetch.js';

const ok = () => json(200, run('processing'));
const upload = { workspace: { id: 'ws_1' }, run: run('processing'), documents: [] };
const file = { filename: 'a.txt', data: 'hello' };

function clientWith(replies: Reply[], options: { maxRetries?: number; timeoutMs?: number } = {}) {
  const fake = scriptedFetch(...replies);
  const client = createDocSlurpClient({
    apiUrl: 'http://svc.test',
    apiKey: 'dsk_test',
    fetch: fake.fetch,
    ...options,
  });
  return { client, requests: fake.requests };
}

/** Runs a call to its end under fake timers, so back-off waits take no real time. */
async function outcome<T>(call: Promise<T>) {
  const settled = settle(call);
  await vi.runAllTimersAsync();
  return settled;
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

type Call = [name: string, (c: DocSlurpClient) => Promise<unknown>, success: () => Response];
const reads: Call[] = [
  ['getRun', (c) => c.getRun('run_1'), ok],
  ['getRunProgress', (c) => c.getRunProgress('run_1'), ok],
  ['listWorkspaces', (c) => c.listWorkspaces(), () => json(200, { workspaces: [] })],
  ['getWorkspace', (c) => c.getWorkspace('ws_1'), () => json(200, { id: 'ws_1' })],
  ['getAvailability', (c) => c.getAvailability('ws_1'), () => json(200, { complete: true })],
  ['listDocuments', (c) => c.listDocuments('ws_1'), () => json(200, { documents: [] })],
  ['getDocument', (c) => c.getDocument('doc_1'), () => json(200, { id: 'doc_1' })],
  ['getDocumentText', (c) => c.getDocumentText('doc_1'), () => new Response('# text')],
  ['getDocumentContent', (c) => c.getDocumentContent('doc_1'), () => new Response('bytes')],
  ['listWebhooks', (c) => c.listWebhooks(), () => json(200, { webhooks: [] })],
  ['getWebhook', (c) => c.getWebhook('whk_1'), () => json(200, { id: 'whk_1' })],
  [
    'listWebhookDeliveries',
    (c) => c.listWebhookDeliveries('whk_1'),
    () => json(200, { deliveries: [], next: null }),
  ],
  [
    'upload with an idempotencyKey',
    (c) => c.upload({ files: [file], idempotencyKey: 'k1' }),
    () => json(202, upload),
  ],
  [
    'ingestUrls with an idempotencyKey',
    (c) => c.ingestUrls({ urls: ['https://example.com/'], idempotencyKey: 'k1' }),
    () => json(202, upload),
  ],
];
const neverRetried: Call[] = [
  ['search', (c) => c.search({ workspaceId: 'ws_1', q: 'x' }), () => json(200, { results: [] })],
  ['chat', (c) => c.chat({ workspaceId: 'ws_1', q: 'x' }), () => json(200, { answer: '', citations: [] })],
  [
    'streaming chat',
    (c) => c.chat({ workspaceId: 'ws_1', q: 'x', stream: true }),
    () => new Response('event: done\ndata: {}\n\n'),
  ],
  ['upload without an idempotencyKey', (c) => c.upload({ files: [file] }), () => json(202, upload)],
  [
    'ingestUrls without an idempotencyKey',
    (c) => c.ingestUrls({ urls: ['https://example.com/'] }),
    () => json(202, upload),
  ],
  ['pauseRun', (c) => c.pauseRun('run_1'), ok],
  ['resumeRun', (c) => c.resumeRun('run_1'), ok],
  ['cancelRun', (c) => c.cancelRun('run_1'), ok],
  ['deleteDocument', (c) => c.deleteDocument('doc_1'), () => json(200, { id: 'doc_1' })],
  [
    'createWebhook',
    (c) => c.createWebhook({ url: 'https://hooks.test/', events: ['run.completed'] }),
    () => json(201, { webhook: { id: 'whk_1' }, secret: 'whsec_x' }),
  ],
  ['deleteWebhook', (c) => c.deleteWebhook('whk_1'), () => json(200, { id: 'whk_1' })],
  [
    'syncSource',
    (c) => c.syncSource('ws_1', 'src_1'),
    () => json(202, { run: { id: 'run_1' }, created: true }),
  ],
  ['redeliverWebhook', (c) => c.redeliverWebhook('whk_1', 'dlv_1'), () => json(202, { id: 'dlv_1' })],
];

describe('calls that retry: reads and keyed uploads', () => {
  it.each(reads)('%s succeeds after two transient failures (3 attempts)', async (_, call, success) => {
    const { client, requests } = clientWith([
      apiError(503, 'service_unavailable'),
      networkError(),
      success(),
    ]);
    const result = await outcome(call(client));
    expect(result.error).toBeUndefined();
    expect(requests).toHaveLength(3);
  });

  it.each(reads)('%s gives up after 2 retries and throws the last failure', async (_, call) => {
    const { client, requests } = clientWith([
      apiError(500, 'internal_error'),
      apiError(502, 'bad_gateway'),
      apiError(503, 'service_unavailable'),
    ]);
    const { error } = await outcome(call(client));
    expect(requests).toHaveLength(3);
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ status: 503, code: 'service_unavailable' });
  });
});

describe('calls that never retry', () => {
  it.each(neverRetried)('%s makes one attempt on a 503', async (_, call) => {
    const { client, requests } = clientWith([apiError(503, 'service_unavailable')]);
    const { error } = await outcome(call(client));
    expect(error).toBeInstanceOf(ServerError);
    expect(requests).toHaveLength(1);
  });

  it.each(neverRetried)('%s makes one attempt on a 429, even with Retry-After', async (_, call) => {
    const { client, requests } = clientWith([apiError(429, 'rate_limited', { 'retry-after': '1' })]);
    const { error } = await outcome(call(client));
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterMs).toBe(1000);
    expect(requests).toHaveLength(1);
  });

  it.each(neverRetried)('%s makes one attempt on a network error', async (_, call) => {
    const { client, requests } = clientWith([networkError()]);
    const { error } = await outcome(call(client));
    expect(error).toBeInstanceOf(ConnectionError);
    expect(requests).toHaveLength(1);
  });

  it.each(neverRetried)('%s succeeds normally', async (_, call, success) => {
    const { client, requests } = clientWith([success()]);
    const { error } = await outcome(call(client));
    expect(error).toBeUndefined();
    expect(requests).toHaveLength(1);
  });
});

describe('which failures are transient', () => {
  it.each([408, 429, 500, 502, 503, 504])('retries status %i', async (status) => {
    const { client, requests } = clientWith([apiError(status, 'x'), ok()]);
    expect((await outcome(client.getRun('run_1'))).error).toBeUndefined();
    expect(requests).toHaveLength(2);
  });

  it.each([400, 401, 403, 404, 409, 413, 415, 507])('does not retry status %i', async (status) => {
    const { client, requests } = clientWith([apiError(status, 'x')]);
    const { error } = await outcome(client.getRun('run_1'));
    expect(error).toMatchObject({ status, code: 'x' });
    expect(requests).toHaveLength(1);
  });

  it('retries an attempt that timed out, then reports a TimeoutError', async () => {
    const { client, requests } = clientWith([hang(), hang(), hang()], { timeoutMs: 1000 });
    const { error } = await outcome(client.getRun('run_1'));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ code: 'timeout', status: undefined });
    expect(requests).toHaveLength(3);
    expect(requests.every((r) => r.signal.aborted)).toBe(true);
  });

  it('does not retry a search that timed out', async () => {
    const { client, requests } = clientWith([hang()], { timeoutMs: 1000 });
    const { error } = await outcome(client.search({ workspaceId: 'ws_1', q: 'x' }));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(requests).toHaveLength(1);
  });

  it('retries a connection that drops while the body is read', async () => {
    const broken = new Response(
      new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode('{"id":'));
          c.error(new TypeError('terminated'));
        },
      }),
      { status: 200, headers: { 'content-type': 'application/json' } },
    );
    const { client, requests } = clientWith([broken, ok()]);
    expect((await outcome(client.getRun('run_1'))).value).toMatchObject({ id: 'run_1' });
    expect(requests).toHaveLength(2);
  });
});

describe('maxRetries', () => {
  it.each([
    [0, 1],
    [1, 2],
    [2, 3],
  ])('maxRetries %i on the client makes %i attempts', async (maxRetries, attempts) => {
    const failures = Array.from({ length: 3 }, () => apiError(503, 'service_unavailable'));
    const { client, requests } = clientWith(failures, { maxRetries });
    expect((await outcome(client.getRun('run_1'))).error).toBeInstanceOf(ServerError);
    expect(requests).toHaveLength(attempts);
  });

  it('can be lowered for one call', async () => {
    const { client, requests } = clientWith([apiError(503, 'x'), apiError(503, 'x')]);
    expect((await outcome(client.getRun('run_1', { maxRetries: 1 }))).error).toBeInstanceOf(ServerError);
    expect(requests).toHaveLength(2);
  });

  it('cannot exceed the 2 retries the service allows', async () => {
    expect(() => createDocSlurpClient({ apiUrl: 'http://svc.test', apiKey: 'k', maxRetries: 3 })).toThrow(
      /maxRetries must be 0, 1 or 2/,
    );
    const { client } = clientWith([]);
    await expect(client.getRun('run_1', { maxRetries: 5 })).rejects.toThrow(/maxRetries must be 0, 1 or 2/);
  });
});

describe('back-off and Retry-After', () => {
  it('waits about 0.5 s, then about 1 s, without Retry-After', async () => {
    const { client, requests } = clientWith([apiError(503, 'x'), apiError(503, 'x'), ok()]);
    await outcome(client.getRun('run_1'));
    const [a, b, c] = requests.map((r) => r.at);
    expect(b! - a!).toBeGreaterThanOrEqual(375);
    expect(b! - a!).toBeLessThanOrEqual(500);
    expect(c! - b!).toBeGreaterThanOrEqual(750);
    expect(c! - b!).toBeLessThanOrEqual(1000);
  });

  it('honours Retry-After in seconds: not a millisecond earlier', async () => {
    const { client, requests } = clientWith([apiError(429, 'rate_limited', { 'retry-after': '3' }), ok()]);
    const result = settle(client.getRun('run_1'));
    await vi.advanceTimersByTimeAsync(2999);
    expect(requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(requests).toHaveLength(2);
    expect((await result).value).toMatchObject({ status: 'processing' });
  });

  it('honours Retry-After as an HTTP date', async () => {
    vi.setSystemTime(new Date('2026-03-01T10:00:00.000Z'));
    const { client, requests } = clientWith([
      apiError(503, 'service_unavailable', { 'retry-after': 'Sun, 01 Mar 2026 10:00:07 GMT' }),
      ok(),
    ]);
    await outcome(client.getRun('run_1'));
    expect(requests).toHaveLength(2);
    expect(requests[1]!.at - requests[0]!.at).toBe(7000);
  });

  it('retries at once when Retry-After is 0 or a date in the past', async () => {
    vi.setSystemTime(new Date('2026-03-01T10:00:00.000Z'));
    const { client, requests } = clientWith([
      apiError(429, 'rate_limited', { 'retry-after': '0' }),
      apiError(503, 'x', { 'retry-after': 'Sun, 01 Mar 2026 09:00:00 GMT' }),
      ok(),
    ]);
    await outcome(client.getRun('run_1'));
    expect(requests.map((r) => r.at - requests[0]!.at)).toEqual([0, 0, 0]);
  });

  it('does not wait out a Retry-After over 60 s: the error carries it instead', async () => {
    const { client, requests } = clientWith([apiError(429, 'rate_limited', { 'retry-after': '120' })]);
    const { error } = await outcome(client.getRun('run_1'));
    expect(requests).toHaveLength(1);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterMs).toBe(120_000);
  });

  it('an abort during the back-off stops the retries', async () => {
    const { client, requests } = clientWith([apiError(503, 'x', { 'retry-after': '10' }), ok()]);
    const controller = new AbortController();
    const result = settle(client.getRun('run_1', { signal: controller.signal }));
    await vi.advanceTimersByTimeAsync(1000);
    controller.abort(new Error('user gave up'));
    await vi.runAllTimersAsync();
    expect((await result).error).toMatchObject({ message: 'user gave up' });
    expect(requests).toHaveLength(1);
  });
});

describe('request ids', () => {
  it('sends one x-request-id for all attempts of a call, and a new one per call', async () => {
    const { client, requests } = clientWith([apiError(503, 'x'), ok(), ok()]);
    await outcome(client.getRun('run_1'));
    await outcome(client.getRun('run_1'));
    const ids = requests.map((r) => r.headers.get('x-request-id'));
    expect(ids[0]).toMatch(/^sdk_[0-9a-f]{24}$/);
    expect(ids[1]).toBe(ids[0]);
    expect(ids[2]).not.toBe(ids[0]);
  });

  it('uses the caller’s request id, and puts the sent id on a connection error', async () => {
    const { client, requests } = clientWith([networkError(), networkError(), networkError()]);
    const { error } = await outcome(client.getRun('run_1', { requestId: 'job-42.poll' }));
    expect(requests.map((r) => r.headers.get('x-request-id'))).toEqual(Array(3).fill('job-42.poll'));
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ requestId: 'job-42.poll', code: 'connection_error' });
    expect((error as Error).cause).toBeInstanceOf(TypeError);
  });
});
