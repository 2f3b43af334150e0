import { describe, expect, it } from 'vitest';
import {
  createDocSlurpClient,
  PermissionDeniedError,
  QuotaExceededError,
  RateLimitError,
} from '../../src/index.js';
import { json, scriptedFetch } from '../support/fake-fetch.js';

const quotaBody = (quota: string, limit: number, used: number) => ({
  error: { code: 'quota_exceeded', message: 'over', requestId: 'req_q', quota, limit, used },
});

describe('quotas', () => {
  it('throws QuotaExceededError naming the quota for a stock quota (403)', async () => {
    const fake = scriptedFetch(json(403, quotaBody('documents', 1000, 1000)));
    const client = createDocSlurpClient({ apiUrl: 'http://svc.test', apiKey: 'k', fetch: fake.fetch });
    const error = await client.upload({ files: [{ filename: 'a.txt', data: 'a' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QuotaExceededError);
    expect(error).not.toBeInstanceOf(PermissionDeniedError);
    expect(error).toMatchObject({
      status: 403,
      quota: 'documents',
      limit: 1000,
      used: 1000,
      retryAfterMs: undefined,
    });
  });

  it('does not retry a daily quota (429 with a Retry-After of hours), and says when it resets', async () => {
    const fake = scriptedFetch(json(429, quotaBody('questionsPerDay', 50, 50), { 'retry-after': '7200' }));
    const client = createDocSlurpClient({
      apiUrl: 'http://svc.test',
      apiKey: 'k',
      fetch: fake.fetch,
      maxRetries: 2,
    });
    // getRun is retried on 429 as a rule: not when the server asks to wait for hours.
    const error = await client.getRun('run_1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QuotaExceededError);
    expect(error).not.toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({
      status: 429,
      quota: 'questionsPerDay',
      limit: 50,
      used: 50,
      retryAfterMs: 7_200_000,
    });
    expect(fake.requests).toHaveLength(1);
  });

  it('reads and sets quotas on their routes', async () => {
    const quotas = {
      documents: { limit: 10, used: 1 },
      storedBytes: { limit: null, used: 5 },
      uploadsPerDay: { limit: null, used: 1 },
      questionsPerDay: { limit: 3, used: 0 },
      resetsAt: '2026-12-04T00:00:00.000Z',
    };
    const fake = scriptedFetch(json(200, quotas), json(200, quotas), json(200, quotas));
    const client = createDocSlurpClient({ apiUrl: 'http://svc.test', apiKey: 'k', fetch: fake.fetch });
    expect(await client.quotas.get()).toEqual(quotas);
    await client.quotas.getAccount('team b');
    await client.quotas.set('team-b', { documents: 10, questionsPerDay: 'unlimited', storedBytes: null });
    expect(fake.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET http://svc.test/v1/quotas',
      'GET http://svc.test/v1/accounts/team%20b/quotas',
      'PATCH http://svc.test/v1/accounts/team-b/quotas',
    ]);
    expect(JSON.parse(String(fake.requests[2]!.body))).toEqual({
      documents: 10,
      questionsPerDay: 'unlimited',
      storedBytes: null,
    });
  });
});
