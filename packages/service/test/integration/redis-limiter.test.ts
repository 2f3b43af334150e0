import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisRateLimiter } from '../../src/adapters/cache/redis.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `docslurp-test:${randomBytes(6).toString('hex')}`;
const limiters: RedisRateLimiter[] = [];
const limiter = (perMinute: number, url = REDIS_URL) => {
  const l = new RedisRateLimiter({ url, perMinute, keyPrefix: prefix });
  limiters.push(l);
  return l;
};

afterAll(async () => {
  for (const l of limiters) await l.close();
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

describe('Redis rate limiter', () => {
  it('shares one count between processes (two limiter instances, one Redis)', async () => {
    const a = limiter(5);
    const b = limiter(5);
    // Until its connection is up a limiter counts in memory (see the Redis-down test).
    await Promise.all([a.check(), b.check()]);
    const key = 'key:shared';
    const outcomes = [];
    for (const l of [a, a, a, b, b]) outcomes.push(await l.consume(key));
    expect(outcomes.every((o) => o.allowed)).toBe(true);
    const sixth = await b.consume(key);
    expect(sixth.allowed).toBe(false);
    if (!sixth.allowed) {
      expect(sixth.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(sixth.retryAfterSeconds).toBeLessThanOrEqual(60);
    }
    expect((await a.consume(key)).allowed).toBe(false);
    // Another key has its own budget.
    expect((await a.consume('key:other')).allowed).toBe(true);
  });

  it('answers PING in its check', async () => {
    await expect(limiter(10).check()).resolves.toBeUndefined();
  });

  it('fails its check when Redis is unreachable, yet keeps limiting in process memory', async () => {
    const down = limiter(2, 'redis://127.0.0.1:1');
    await expect(down.check()).rejects.toThrow();
    expect((await down.consume('key:x')).allowed).toBe(true);
    expect((await down.consume('key:x')).allowed).toBe(true);
    expect((await down.consume('key:x')).allowed).toBe(false);
  });

  it('does not limit when the limit is 0', async () => {
    const off = limiter(0);
    for (let i = 0; i < 5; i++) expect((await off.consume('key:off')).allowed).toBe(true);
  });
});
