import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../src/adapters/cache/memory.js';
import { Authenticator, createApiKey, hashApiKey, KEY_PREFIX, parseScopes } from '../../src/domain/keys.js';
import type { AccountStore, NewApiKey } from '../../src/domain/stores.js';
import type { ApiKeyRecord } from '../../src/domain/types.js';
import { AppError } from '../../src/errors.js';
import { newId } from '../../src/ids.js';

/** An in-memory AccountStore: enough for the key logic, which is what is under test here. */
function memoryStore(): AccountStore & { rows: Map<string, ApiKeyRecord & { hash: string }> } {
  const rows = new Map<string, ApiKeyRecord & { hash: string }>();
  return {
    rows,
    ensureAccount: async (name) => ({ id: `acc_${name}`, name }),
    findAccount: async (n) => ({ id: `acc_${n}`, name: n }),
    insertApiKey: async (k: NewApiKey) => {
      const rec = {
        ...k,
        userId: k.userId ?? null,
        createdAt: new Date(),
        lastUsedAt: null,
        revokedAt: null,
      };
      rows.set(k.id, rec);
      return rec;
    },
    findApiKeyByHash: async (hash) => [...rows.values()].find((r) => r.hash === hash),
    listApiKeys: async () => [...rows.values()],
    revokeApiKey: async (id) => {
      const r = rows.get(id);
      if (r) r.revokedAt = new Date();
      return r;
    },
    touchApiKey: async () => {},
  };
}

async function status(p: Promise<unknown>): Promise<[number, string]> {
  try {
    await p;
    return [200, ''];
  } catch (err) {
    if (err instanceof AppError) return [err.status, err.code];
    throw err;
  }
}

describe('API keys', () => {
  it('are prefixed, shown once and stored only as a hash', async () => {
    const store = memoryStore();
    const { key, secret } = await createApiKey(store, { accountId: 'acc_a', scopes: ['search'], name: null });
    expect(secret.startsWith(KEY_PREFIX)).toBe(true);
    expect(secret.length).toBeGreaterThanOrEqual(36);
    expect(key.prefix).toBe(secret.slice(0, 12));
    const stored = store.rows.get(key.id)!;
    expect(stored.hash).toBe(hashApiKey(secret));
    expect(JSON.stringify(stored)).not.toContain(secret);
  });

  it('authenticate: 401 when missing, unknown or revoked; scopes come from the key', async () => {
    const store = memoryStore();
    const auth = new Authenticator(store, { getUser: async () => undefined });
    const { key, secret } = await createApiKey(store, {
      accountId: 'acc_a',
      scopes: ['ingest', 'search'],
      name: null,
    });
    expect(await status(auth.authenticate(undefined))).toEqual([401, 'missing_api_key']);
    expect(await status(auth.authenticate('Bearer dsk_wrong'))).toEqual([401, 'invalid_api_key']);
    expect(await status(auth.authenticate(`Basic ${secret}`))).toEqual([401, 'invalid_api_key']);
    const p = await auth.authenticate(`Bearer ${secret}`);
    expect(p.accountId).toBe('acc_a');
    expect([...p.scopes].sort()).toEqual(['ingest', 'search']);
    await store.revokeApiKey(key.id, undefined);
    expect(await status(auth.authenticate(`Bearer ${secret}`))).toEqual([401, 'invalid_api_key']);
  });

  it('parseScopes accepts the five scopes and rejects anything else', () => {
    expect(parseScopes('ingest, search,artifacts')).toEqual(['ingest', 'search', 'artifacts']);
    expect(parseScopes('admin act-as')).toEqual(['admin', 'act-as']);
    expect(() => parseScopes('ingest,owner')).toThrow(/unknown scope\(s\): owner/);
    expect(() => parseScopes('')).toThrow(/at least one scope/);
  });
});

describe('newId', () => {
  it('sorts by creation time and never repeats', () => {
    const ids = Array.from({ length: 1000 }, () => newId('doc'));
    expect(new Set(ids).size).toBe(1000);
    expect(ids.every((id) => /^doc_[0-9a-hjkmnp-tv-z]{26}$/.test(id))).toBe(true);
    // Many in one millisecond: still in the order they were made.
    expect(ids.every((id, i) => i === 0 || ids[i - 1]! < id)).toBe(true);
    const early = newId('x');
    const later = (() => {
      const t = Date.now();
      while (Date.now() === t);
      return newId('x');
    })();
    expect(early < later).toBe(true);
  });

  it('draws a new random part in each millisecond, past the end of its pool of random bytes', () => {
    const parts = new Set<string>();
    for (let i = 0; i < 450; i++) {
      const t = Date.now();
      while (Date.now() === t);
      parts.add(newId('x').slice(-16));
    }
    expect(parts.size).toBe(450);
  });
});

describe('MemoryRateLimiter', () => {
  it('allows the configured rate, then asks to retry after the refill time', async () => {
    let now = 0;
    const limiter = new MemoryRateLimiter(60, () => now);
    for (let i = 0; i < 60; i++) expect((await limiter.consume('k')).allowed).toBe(true);
    expect(await limiter.consume('k')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect((await limiter.consume('other')).allowed).toBe(true);
    now += 1000;
    expect((await limiter.consume('k')).allowed).toBe(true);
    expect((await limiter.consume('k')).allowed).toBe(false);
  });

  it('does not limit when the rate is 0', async () => {
    const limiter = new MemoryRateLimiter(0);
    for (let i = 0; i < 1000; i++) expect((await limiter.consume('k')).allowed).toBe(true);
  });
});
