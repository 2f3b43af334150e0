import { describe, expect, it } from 'vitest';
import {
  admitQuestion,
  effectiveLimits,
  nextUtcMidnight,
  quotaError,
  secondsUntilTomorrow,
  syncRoom,
  UNLIMITED,
  uploadRefusal,
} from '../../src/accounts/quotas.js';
import type { AccountUse, QuotaStore } from '../../src/accounts/store.js';
import { parseByteSize } from '../../src/config/quotas.js';
import { loadConfig } from '../../src/config.js';
import type { Principal } from '../../src/domain/types.js';

const use = (over: Partial<AccountUse> = {}): AccountUse => ({
  documents: 0,
  storedBytes: 0,
  uploadsPerDay: 0,
  questionsPerDay: 0,
  ...over,
});

describe('effectiveLimits', () => {
  it("takes the account's own limit where one is set (null: unlimited), the default elsewhere", () => {
    const defaults = { ...UNLIMITED, documents: 100, questionsPerDay: 50 };
    expect(effectiveLimits(defaults, { documents: null, storedBytes: 10 })).toEqual({
      documents: null,
      storedBytes: 10,
      uploadsPerDay: null,
      questionsPerDay: 50,
    });
  });
});

describe('uploadRefusal', () => {
  const limits = { ...UNLIMITED, documents: 10, storedBytes: 1000, uploadsPerDay: 5 };
  it('lets an upload reach a limit exactly, and refuses one file more', () => {
    expect(
      uploadRefusal(limits, use({ documents: 8 }), { documents: 2, bytes: 0, bytesLater: false }),
    ).toBeUndefined();
    expect(
      uploadRefusal(limits, use({ documents: 8 }), { documents: 3, bytes: 0, bytesLater: false }),
    ).toEqual({
      quota: 'documents',
      limit: 10,
      used: 8,
    });
  });

  it('counts bytes, and needs room left for pages whose size comes later', () => {
    const at = use({ storedBytes: 1000 });
    expect(
      uploadRefusal(limits, use({ storedBytes: 900 }), { documents: 1, bytes: 101, bytesLater: false }),
    ).toMatchObject({
      quota: 'storedBytes',
      used: 900,
    });
    expect(
      uploadRefusal(limits, use({ storedBytes: 999 }), { documents: 1, bytes: 0, bytesLater: true }),
    ).toBeUndefined();
    expect(uploadRefusal(limits, at, { documents: 1, bytes: 0, bytesLater: true })?.quota).toBe(
      'storedBytes',
    );
  });

  it('counts every file of a request as an upload of the day', () => {
    expect(
      uploadRefusal(limits, use({ uploadsPerDay: 4 }), { documents: 2, bytes: 0, bytesLater: false }),
    ).toEqual({
      quota: 'uploadsPerDay',
      limit: 5,
      used: 4,
    });
  });

  it('refuses nothing when every quota is unlimited', () => {
    const huge = use({ documents: 1e9, storedBytes: 1e15, uploadsPerDay: 1e9 });
    expect(uploadRefusal(UNLIMITED, huge, { documents: 1e6, bytes: 1e12, bytesLater: true })).toBeUndefined();
  });
});

describe('syncRoom', () => {
  it('fits the first items of the listing within both quotas, unknown sizes counting 0', () => {
    const limits = { ...UNLIMITED, documents: 5, storedBytes: 100 };
    expect(syncRoom(limits, use({ documents: 2, storedBytes: 10 }), [10, null, 10, 10])).toEqual({
      fits: 3,
      refusal: { quota: 'documents', limit: 5, used: 2 },
    });
    expect(syncRoom(limits, use({ storedBytes: 60 }), [20, 30])).toEqual({
      fits: 1,
      refusal: { quota: 'storedBytes', limit: 100, used: 60 },
    });
    expect(syncRoom(UNLIMITED, use(), [1, 2, 3])).toEqual({ fits: 3, refusal: undefined });
  });
});

describe('quotaError', () => {
  const now = new Date('2026-12-03T23:59:30.250Z');
  it('is 403 for a stock quota, with the quota, its limit and what is used in the body', () => {
    const e = quotaError({ quota: 'documents', limit: 1000, used: 1000 }, now);
    expect(e.status).toBe(403);
    expect(e.code).toBe('quota_exceeded');
    expect(e.details).toEqual({ quota: 'documents', limit: 1000, used: 1000 });
    expect(e.headers).toEqual({});
    expect(e.message).toContain('may hold 1000 documents and holds 1000');
  });

  it('is 429 for a daily quota, retried after midnight UTC', () => {
    const e = quotaError({ quota: 'questionsPerDay', limit: 50, used: 50 }, now);
    expect(e.status).toBe(429);
    expect(e.headers).toEqual({ 'retry-after': '30' });
    expect(e.message).toContain('may ask 50 questions a day and has asked 50 today');
  });

  it('counts to the next UTC midnight, at least one second', () => {
    expect(nextUtcMidnight(now).toISOString()).toBe('2026-12-04T00:00:00.000Z');
    expect(secondsUntilTomorrow(new Date('2026-12-03T00:00:00.000Z'))).toBe(86_400);
    expect(secondsUntilTomorrow(new Date('2026-12-03T23:59:59.999Z'))).toBe(1);
  });
});

describe('admitQuestion', () => {
  const principal = { accountId: 'acc_1' } as Principal;
  const store = (answer: Awaited<ReturnType<QuotaStore['countQuestion']>>) => {
    const calls: [string, number | null][] = [];
    const quotas = {
      countQuestion: async (accountId: string, fallback: number | null) => {
        calls.push([accountId, fallback]);
        return answer;
      },
    } as QuotaStore;
    return { quotas, calls };
  };

  it("counts the question with the server's default as the fallback limit", async () => {
    const { quotas, calls } = store({ counted: true });
    await admitQuestion({ quotas, quotaDefaults: { ...UNLIMITED, questionsPerDay: 7 } }, principal);
    expect(calls).toEqual([['acc_1', 7]]);
  });

  it('refuses with 429 when the store did not count it', async () => {
    const { quotas } = store({ counted: false, limit: 7, used: 7 });
    await expect(admitQuestion({ quotas, quotaDefaults: UNLIMITED }, principal)).rejects.toMatchObject({
      status: 429,
      details: { quota: 'questionsPerDay', limit: 7, used: 7 },
    });
  });
});

describe('ACCOUNT_MAX_* settings', () => {
  it('reads sizes in bytes, decimal and binary units', () => {
    expect(parseByteSize('1048576')).toBe(1048576);
    expect(parseByteSize('10GB')).toBe(10_000_000_000);
    expect(parseByteSize('1.5 kb')).toBe(1500);
    expect(parseByteSize('512MiB')).toBe(512 * 2 ** 20);
    expect(parseByteSize('10 parsecs')).toBeUndefined();
    expect(parseByteSize('-1')).toBeUndefined();
  });

  it('leaves every quota unlimited when unset, and names a wrong value', () => {
    expect(loadConfig({}).quotas).toEqual(UNLIMITED);
    expect(
      loadConfig({
        ACCOUNT_MAX_DOCUMENTS: '1000',
        ACCOUNT_MAX_STORED_BYTES: '10GB',
        ACCOUNT_MAX_QUESTIONS_PER_DAY: '0',
      }).quotas,
    ).toEqual({ documents: 1000, storedBytes: 1e10, uploadsPerDay: null, questionsPerDay: 0 });
    expect(() => loadConfig({ ACCOUNT_MAX_DOCUMENTS: 'many' })).toThrow(
      /ACCOUNT_MAX_DOCUMENTS must be a whole number/,
    );
    expect(() => loadConfig({ ACCOUNT_MAX_STORED_BYTES: '10 GBs' })).toThrow(
      /ACCOUNT_MAX_STORED_BYTES must be bytes/,
    );
  });
});
