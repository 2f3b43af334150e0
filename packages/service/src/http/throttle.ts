import type { RateLimiter } from '../domain/ports.js';

/** Addresses blocked at once in one process; beyond it the oldest blocks are let go (memory stays bounded). */
const MAX_BLOCKED = 100_000;

/**
 * Failed authentications per client address (AUTH_FAILURES_PER_MINUTE, finding 14): a wrong API key
 * or session token costs a database lookup, so a guesser is refused before the lookup once its
 * address has used up its failures. Only failures are counted, in the shared limiter (Redis with
 * several servers); whether an address is blocked is kept in this process, so a request with a good
 * key costs no round trip to the limiter at all.
 */
export class FailureThrottle {
  private readonly blockedUntil = new Map<string, number>();

  constructor(
    private readonly limiter: RateLimiter,
    private readonly onBlocked: (key: string, seconds: number) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds until `key` may try again; 0 when it may now. */
  retryAfter(key: string): number {
    const until = this.blockedUntil.get(key);
    if (until === undefined) return 0;
    const left = until - this.now();
    if (left > 0) return Math.ceil(left / 1000);
    this.blockedUntil.delete(key);
    return 0;
  }

  /** Counts one failure of `key`; the failure that uses up its budget blocks it. */
  async failed(key: string): Promise<void> {
    const result = await this.limiter.consume(key);
    if (result.allowed) return;
    if (!this.blockedUntil.has(key)) this.onBlocked(key, result.retryAfterSeconds);
    this.blockedUntil.delete(key);
    this.blockedUntil.set(key, this.now() + result.retryAfterSeconds * 1000);
    if (this.blockedUntil.size > MAX_BLOCKED) {
      const oldest = this.blockedUntil.keys().next().value;
      if (oldest !== undefined) this.blockedUntil.delete(oldest);
    }
  }
}
