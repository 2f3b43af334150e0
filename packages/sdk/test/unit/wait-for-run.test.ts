import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createDocSlurpClient,
  NotFoundError,
  RunCancelledError,
  RunFailedError,
  RunPausedError,
  RunTimeoutError,
  RunWaitError,
} from '../../src/index.js';
import { apiError, hang, json, type Reply, run, scriptedFetch, settle } from '../support/fake-fetch.js';

function clientWith(replies: Reply[]) {
  const fake = scriptedFetch(...replies);
  const client = createDocSlurpClient({ apiUrl: 'http://svc.test', apiKey: 'dsk_test', fetch: fake.fetch });
  return { client, requests: fake.requests };
}

const processing = (progress: number) => json(200, run('processing', { progress }));

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('waitForRun', () => {
  it('polls the progress endpoint until the run completes and resolves with the last record', async () => {
    const { client, requests } = clientWith([
      processing(0),
      processing(0.5),
      json(200, run('completed', { progress: 1, done: true })),
    ]);
    const seen: number[] = [];
    const result = settle(client.waitForRun('run_1', { onProgress: (p) => seen.push(p.progress) }));
    await vi.runAllTimersAsync();
    expect((await result).value).toMatchObject({ id: 'run_1', status: 'completed', progress: 1 });
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual(
      Array(3).fill('GET http://svc.test/v1/runs/run_1/progress'),
    );
    expect(seen).toEqual([0, 0.5, 1]);
  });

  it('backs off between polls: 0.5 s, then 1.5 times longer each time, at most 5 s', async () => {
    const replies = [...Array.from({ length: 9 }, () => processing(0)), json(200, run('completed'))];
    const { client, requests } = clientWith(replies);
    const result = settle(client.waitForRun('run_1'));
    await vi.runAllTimersAsync();
    expect((await result).value).toMatchObject({ status: 'completed' });
    const gaps = requests.slice(1).map((r, i) => r.at - requests[i]!.at);
    expect(gaps).toEqual([500, 750, 1125, 1688, 2532, 3798, 5000, 5000, 5000]);
  });

  it.each([
    ['failed', RunFailedError, 'run_failed'],
    ['paused', RunPausedError, 'run_paused'],
    ['cancelled', RunCancelledError, 'run_cancelled'],
  ] as const)('rejects when the run is %s, with the run record', async (status, ErrorClass, code) => {
    const failures =
      status === 'failed'
        ? [{ documentId: 'doc_1', filename: 'a.pdf', code: 'corrupt_document', message: 'broken' }]
        : [];
    const { client, requests } = clientWith([processing(0), json(200, run(status, { failures }))]);
    const result = settle(client.waitForRun('run_1'));
    await vi.runAllTimersAsync();
    const { error } = await result;
    expect(error).toBeInstanceOf(ErrorClass);
    expect(error).toBeInstanceOf(RunWaitError);
    expect(error).toMatchObject({ code, runId: 'run_1', run: { id: 'run_1', status, failures } });
    expect(requests).toHaveLength(2);
    if (status === 'failed') expect((error as Error).message).toContain('a.pdf: corrupt_document');
  });

  it('rejects with RunTimeoutError after timeoutMs, carrying the last record seen', async () => {
    const { client, requests } = clientWith(Array.from({ length: 50 }, (_, i) => processing(i / 100)));
    const result = settle(client.waitForRun('run_1', { timeoutMs: 4000 }));
    await vi.advanceTimersByTimeAsync(3999);
    expect(requests.length).toBeGreaterThan(1);
    const polled = requests.length;
    await vi.advanceTimersByTimeAsync(1);
    const { error } = await result;
    expect(error).toBeInstanceOf(RunTimeoutError);
    expect(error).toMatchObject({
      code: 'run_wait_timeout',
      timeoutMs: 4000,
      run: { status: 'processing', progress: (polled - 1) / 100 },
    });
    await vi.runAllTimersAsync();
    expect(requests).toHaveLength(polled);
  });

  it('waits 5 minutes by default', async () => {
    const { client } = clientWith(Array.from({ length: 200 }, () => processing(0)));
    let settled = false;
    const result = settle(client.waitForRun('run_1')).finally(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(5 * 60_000 - 1);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect((await result).error).toBeInstanceOf(RunTimeoutError);
  });

  it('times out even while a poll hangs, and aborts that poll', async () => {
    const { client, requests } = clientWith([processing(0.25), hang()]);
    const result = settle(client.waitForRun('run_1', { timeoutMs: 2000 }));
    await vi.advanceTimersByTimeAsync(2000);
    const { error } = await result;
    expect(error).toBeInstanceOf(RunTimeoutError);
    expect((error as RunTimeoutError).run).toMatchObject({ progress: 0.25 });
    expect(requests[1]!.signal.aborted).toBe(true);
  });

  it('has no run record on a timeout before the first answer', async () => {
    const { client } = clientWith([hang()]);
    const result = settle(client.waitForRun('run_1', { timeoutMs: 100 }));
    await vi.advanceTimersByTimeAsync(100);
    expect((await result).error).toMatchObject({ code: 'run_wait_timeout', run: undefined });
  });

  it('retries a transient poll failure and carries on', async () => {
    const { client, requests } = clientWith([
      processing(0),
      apiError(503, 'service_unavailable'),
      json(200, run('completed')),
    ]);
    const result = settle(client.waitForRun('run_1'));
    await vi.runAllTimersAsync();
    expect((await result).value).toMatchObject({ status: 'completed' });
    expect(requests).toHaveLength(3);
  });

  it('rejects with the API error when the run does not exist', async () => {
    const { client, requests } = clientWith([apiError(404, 'run_not_found')]);
    const result = settle(client.waitForRun('run_nope'));
    await vi.runAllTimersAsync();
    expect((await result).error).toBeInstanceOf(NotFoundError);
    expect(requests).toHaveLength(1);
  });

  it('stops when the caller aborts, with the caller’s reason', async () => {
    const { client, requests } = clientWith(Array.from({ length: 20 }, () => processing(0)));
    const controller = new AbortController();
    const result = settle(client.waitForRun('run_1', { signal: controller.signal }));
    await vi.advanceTimersByTimeAsync(600);
    controller.abort(new Error('page closed'));
    const { error } = await result;
    expect(error).toMatchObject({ message: 'page closed' });
    expect(error).not.toBeInstanceOf(RunTimeoutError);
    await vi.runAllTimersAsync();
    expect(requests).toHaveLength(2);
  });
});
