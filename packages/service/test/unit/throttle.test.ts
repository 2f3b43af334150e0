import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../src/adapters/cache/memory.js';
import { addressBucket } from '../../src/http/connections.js';
import { FailureThrottle } from '../../src/http/throttle.js';

describe('per-address budgets (addressBucket)', () => {
  it('counts an IPv4 address as itself, also when a dual-stack socket maps it', () => {
    expect(addressBucket('203.0.113.9')).toBe('203.0.113.9');
    expect(addressBucket('::ffff:203.0.113.9')).toBe('203.0.113.9');
  });

  it('counts every address of one IPv6 /64 as one, however it is written', () => {
    const one = [
      '2001:db8:1:2::5',
      '2001:db8:1:2:ffff:ffff:ffff:ffff',
      '2001:0DB8:0001:0002:0000:0000:0000:0001',
      '2001:db8:1:2::1.2.3.4',
      '2001:db8:1:2::1%eth0',
    ].map(addressBucket);
    expect(new Set(one)).toEqual(new Set(['2001:db8:1:2::/64']));
    expect(addressBucket('2001:db8:1:3::5')).toBe('2001:db8:1:3::/64');
    expect(addressBucket('::1')).toBe('0:0:0:0::/64');
    expect(addressBucket('2001:db8::')).toBe('2001:db8:0:0::/64');
  });
});

describe('failed authentications (FailureThrottle)', () => {
  it('blocks an address once its failures are used up, until the budget refills, and says so once', () => {
    let now = 0;
    const blocked: string[] = [];
    const throttle = new FailureThrottle(
      new MemoryRateLimiter(3, () => now),
      (key) => blocked.push(key),
      () => now,
    );
    return (async () => {
      for (let i = 0; i < 3; i++) await throttle.failed('auth:a');
      expect(throttle.retryAfter('auth:a')).toBe(0);
      await throttle.failed('auth:a');
      await throttle.failed('auth:a');
      expect(throttle.retryAfter('auth:a')).toBeGreaterThan(0);
      expect(throttle.retryAfter('auth:b')).toBe(0);
      expect(blocked).toEqual(['auth:a']);
      now += 60_000;
      expect(throttle.retryAfter('auth:a')).toBe(0);
    })();
  });
});
