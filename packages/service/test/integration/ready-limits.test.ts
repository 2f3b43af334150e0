import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/fault-stack.js';
import { jsonRequest, type RawAnswer } from '../support/raw-http.js';
import { startS3Server, type TestS3 } from '../support/s3.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * Issue 44, finding 9: `/ready` needs no key, and each of its checks cost the object store requests
 * (on S3 the conditional-write probe writes a key twice and deletes it). A burst of calls must cost
 * about one round of checks a second, and one address gets a budget of calls.
 */

const PER_MINUTE = 60;
let s3: TestS3;
let s3Closed = false;
let svc: TestService;
let port: number;

beforeAll(async () => {
  s3 = await startS3Server();
  svc = await startTestService({
    env: { ...s3.env, READY_RATE_LIMIT_PER_MINUTE: String(PER_MINUTE) },
    worker: false,
  });
  port = Number(new URL(svc.url).port);
});
afterAll(async () => {
  await svc?.close();
  if (!s3Closed) await s3?.close();
});

const ready = (from: string) => jsonRequest(port, 'GET', '/ready', { localAddress: from });

/** `count` calls from each address, `perWave` of every address at once. */
async function burst(addresses: string[], count: number, perWave = 1): Promise<RawAnswer[]> {
  const answers: RawAnswer[] = [];
  for (let sent = 0; sent < count; sent += perWave)
    answers.push(
      ...(await Promise.all(addresses.flatMap((a) => Array.from({ length: perWave }, () => ready(a))))),
    );
  return answers;
}

describe('/ready under a flood', () => {
  it('costs one round of checks a second, however many calls come', async () => {
    // The first call connects the search index; the count starts after it.
    expect((await ready('127.0.0.9')).status).toBe(200);
    const before = s3.requests.length;
    const t0 = performance.now();
    // 1,000 calls, 20 at a time, from 20 addresses that each stay within their budget.
    const addresses = Array.from({ length: 20 }, (_, i) => `127.0.0.${10 + i}`);
    const answers = await burst(addresses, 50);
    const seconds = (performance.now() - t0) / 1000;
    expect(answers).toHaveLength(1000);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1000);
    const writes = s3.requests.slice(before).filter((r) => r.method !== 'GET' && r.method !== 'HEAD');
    // A round of checks writes three times (two create-only PUTs of the probe's key, its DELETE);
    // one round per second at most, and one that was running when the count started (none at all
    // when the burst is over within the second the first call's answer is shared for).
    expect(writes.length).toBeLessThanOrEqual(3 * (Math.ceil(seconds) + 1));
  });

  it('refuses a flood from one address with 429 and Retry-After, and answers the others', async () => {
    const answers = await burst(['127.0.0.2'], PER_MINUTE + 20, 5);
    // The budget refills one call a second meanwhile.
    expect(answers.slice(0, PER_MINUTE).map((a) => a.status)).toEqual(Array(PER_MINUTE).fill(200));
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(10);
    expect(answers.filter((a) => a.status !== 200 && a.status !== 429)).toEqual([]);
    const first = refused[0]!;
    expect(Number(first.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(first.headers['content-type']).toMatch(/^application\/json/);
    const body = JSON.parse(first.body);
    expect(body.error.code).toBe('rate_limited');
    expect(body.error.requestId).toBe(first.headers['x-request-id']);
    const other = await ready('127.0.0.3');
    expect(other.status).toBe(200);
    expect(JSON.parse(other.body).status).toBe('ready');
  });

  it('still answers 503 when a critical dependency fails', async () => {
    await s3.close();
    s3Closed = true;
    const failed = await eventually(
      '/ready to report object storage down',
      async () => {
        const r = await ready('127.0.0.4');
        return r.status === 503 ? JSON.parse(r.body) : undefined;
      },
      15_000,
      500,
    );
    expect(failed.status).toBe('unavailable');
    expect(failed.checks.objectStore.ok).toBe(false);
  });
});
