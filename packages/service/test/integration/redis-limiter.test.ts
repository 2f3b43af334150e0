import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisRateLimiter } from '../../src/adapters/cache/redis.js';
import { baseEnv, freePort, type RunningProcess, spawnProcess } from '../support/processes.js';

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

  it('keeps limiting in memory while Redis goes down, and counts in Redis again once it is back', async () => {
    // A private Redis, so that stopping it disturbs nothing else.
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const startRedis = async () => {
      const p = spawnProcess('redis', 'redis-server', redisArgs(port), baseEnv());
      await p.waitFor(/Ready to accept connections/, 15_000);
      return p;
    };
    let redis: RunningProcess | undefined = await startRedis();
    try {
      const l = limiter(3, url);
      await l.check();
      expect((await l.consume('key:a')).allowed).toBe(true);
      const peek = new Redis(url);
      expect((await peek.keys(`${prefix}*`)).length).toBe(1);
      peek.disconnect();

      await redis.stop(100);
      redis = undefined;
      await expect(l.check()).rejects.toThrow();
      // The in-memory insurance limiter takes over with the full budget for this process.
      const during = [];
      for (let i = 0; i < 4; i++) during.push((await l.consume('key:b')).allowed);
      expect(during).toEqual([true, true, true, false]);

      redis = await startRedis();
      await l.check();
      expect((await l.consume('key:c')).allowed).toBe(true);
      const again = new Redis(url);
      expect(await again.keys(`${prefix}*`)).toEqual([expect.stringContaining('key:c')]);
      again.disconnect();
    } finally {
      await redis?.stop(100);
    }
  });

  it('does not limit when the limit is 0', async () => {
    const off = limiter(0);
    for (let i = 0; i < 5; i++) expect((await off.consume('key:off')).allowed).toBe(true);
  });
});

function redisArgs(port: number): string[] {
  return ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', '/tmp'];
}
