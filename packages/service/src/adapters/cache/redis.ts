import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimiter } from '../../domain/ports.js';

export interface RedisRateLimiterOptions {
  url: string;
  perMinute: number;
  /** Separates deployments (or test runs) sharing one Redis. */
  keyPrefix?: string;
}

/**
 * Requests per key and minute counted in Redis, so every server process shares one count. The
 * cache is ephemeral: when Redis is away, each process counts in its own memory until it is back
 * (the limit then applies per process), and `/ready` reports the cache as degraded.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;
  private readonly limiter: RateLimiterRedis;

  constructor(private readonly options: RedisRateLimiterOptions) {
    // Without the offline queue a command fails at once while Redis is down, instead of holding
    // the HTTP request until a reconnect; the in-memory insurance limiter answers instead.
    this.redis = new Redis(options.url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 3000,
    });
    // Connection errors are reported by check() through /ready; an unhandled 'error' event would
    // only print noise on every reconnect attempt.
    this.redis.on('error', () => {});
    const limits = { points: Math.max(1, options.perMinute), duration: 60 };
    this.limiter = new RateLimiterRedis({
      storeClient: this.redis,
      keyPrefix: options.keyPrefix ?? 'docslurp:rl',
      ...limits,
      insuranceLimiter: new RateLimiterMemory(limits),
    });
  }

  async consume(key: string): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }> {
    if (this.options.perMinute <= 0) return { allowed: true };
    try {
      await this.limiter.consume(key);
      return { allowed: true };
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) };
      }
      throw rejection;
    }
  }

  async reward(key: string): Promise<void> {
    if (this.options.perMinute <= 0) return;
    await this.limiter.reward(key, 1);
  }

  /** PING, after waiting (bounded by the readiness timeout) for a connection still being made. */
  async check(): Promise<void> {
    if (this.redis.status !== 'ready') await this.untilReady(2500);
    const pong = await this.redis.ping();
    if (pong !== 'PONG') throw new Error(`redis answered PING with ${pong}`);
  }

  private untilReady(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.redis.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.redis.on('ready', done);
    });
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
