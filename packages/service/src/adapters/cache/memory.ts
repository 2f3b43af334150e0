import type { RateLimiter } from '../../domain/ports.js';

/**
 * Token bucket per key, in process memory (embedded mode: one process serves every request).
 * `perMinute` of 0 disables limiting.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  async consume(key: string): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }> {
    if (this.perMinute <= 0) return { allowed: true };
    const now = this.now();
    const ratePerMs = this.perMinute / 60_000;
    const b = this.buckets.get(key) ?? { tokens: this.perMinute, at: now };
    b.tokens = Math.min(this.perMinute, b.tokens + (now - b.at) * ratePerMs);
    b.at = now;
    this.buckets.set(key, b);
    if (this.buckets.size > 100_000) this.evictFull(now, ratePerMs);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { allowed: true };
    }
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / ratePerMs / 1000)) };
  }

  async reward(key: string): Promise<void> {
    const b = this.buckets.get(key);
    if (b) b.tokens = Math.min(this.perMinute, b.tokens + 1);
  }

  /** Buckets that have refilled completely carry no information; drop them to bound memory. */
  private evictFull(now: number, ratePerMs: number): void {
    for (const [k, b] of this.buckets) {
      if (b.tokens + (now - b.at) * ratePerMs >= this.perMinute) this.buckets.delete(k);
    }
  }

  async check(): Promise<void> {}
  async close(): Promise<void> {}
}
