import { createHash } from 'node:crypto';
import { keyPrincipal } from '../access/principals.js';
import { errors } from '../errors.js';
import { newId, randomToken } from '../ids.js';
import type { AccountStore, UserStore } from './stores.js';
import { type ApiKeyRecord, type Principal, SCOPES, type Scope } from './types.js';

/** Every generated key starts with this, so a leaked key is recognisable (and scannable) as ours. */
export const KEY_PREFIX = 'dsk_';
export const DEFAULT_ACCOUNT = 'default';

export function hashApiKey(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** The part of a key that is safe to show in listings: enough to tell keys apart, useless to an attacker. */
export function displayPrefix(secret: string): string {
  return secret.slice(0, secret.startsWith(KEY_PREFIX) ? 12 : 8);
}

export function parseScopes(value: string): Scope[] {
  const scopes = value
    .split(/[,\s]+/)
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length)
    throw new Error(`unknown scope(s): ${unknown.join(', ')}; valid scopes are ${SCOPES.join(', ')}`);
  if (scopes.length === 0) throw new Error(`give at least one scope: ${SCOPES.join(', ')}`);
  return [...new Set(scopes)] as Scope[];
}

/** Creates a key and returns its secret: the only time the secret exists outside the caller's hands. */
export async function createApiKey(
  store: Pick<AccountStore, 'insertApiKey'>,
  input: { accountId: string; scopes: Scope[]; name: string | null; userId?: string | null | undefined },
): Promise<{ key: ApiKeyRecord; secret: string }> {
  const secret = `${KEY_PREFIX}${randomToken(20)}`;
  const key = await store.insertApiKey({
    id: newId('key'),
    accountId: input.accountId,
    name: input.name,
    prefix: displayPrefix(secret),
    hash: hashApiKey(secret),
    scopes: input.scopes,
    userId: input.userId ?? null,
  });
  return { key, secret };
}

/** Makes sure `secret` is a valid key of the default account with every scope (SERVICE_BOOTSTRAP_API_KEY). */
export async function ensureBootstrapKey(store: AccountStore, secret: string): Promise<ApiKeyRecord> {
  if (secret.length < 16) throw new Error('SERVICE_BOOTSTRAP_API_KEY must be at least 16 characters');
  const existing = await store.findApiKeyByHash(hashApiKey(secret));
  if (existing && !existing.revokedAt) return existing;
  if (existing?.revokedAt) throw new Error('SERVICE_BOOTSTRAP_API_KEY names a revoked key; set a new one');
  const account = await store.ensureAccount(DEFAULT_ACCOUNT);
  return store.insertApiKey({
    id: newId('key'),
    accountId: account.id,
    name: 'bootstrap',
    prefix: displayPrefix(secret),
    hash: hashApiKey(secret),
    scopes: [...SCOPES],
  });
}

/**
 * Resolves a bearer token to a principal. Lookup is by the SHA-256 of the token: an attacker cannot
 * choose what the hash of a guess looks like, so the index lookup's timing leaks nothing useful.
 */
export class Authenticator {
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly store: AccountStore,
    /** The users keys may be bound to: read at every request, so a role change applies at once. */
    private readonly users: Pick<UserStore, 'getUser'>,
    private readonly now: () => number = Date.now,
  ) {}

  async authenticate(authorization: string | undefined): Promise<Principal> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!match) throw authorization ? errors.invalidApiKey() : errors.missingApiKey();
    const secret = match[1]!;
    const hash = hashApiKey(secret);
    const key = await this.store.findApiKeyByHash(hash);
    if (!key || key.revokedAt) throw errors.invalidApiKey();
    const user = key.userId ? await this.users.getUser(key.accountId, key.userId) : undefined;
    // A key whose user is gone is gone with it (ON DELETE CASCADE); this covers the moment between.
    if (key.userId && !user) throw errors.invalidApiKey();
    this.touch(key.id);
    return keyPrincipal(key, user);
  }

  /** Records last use at most once a minute per key, off the request path. */
  private touch(id: string): void {
    const now = this.now();
    if ((this.touched.get(id) ?? 0) > now - 60_000) return;
    this.touched.set(id, now);
    this.store.touchApiKey(id).catch(() => {});
  }
}

export function requireScope(principal: Principal, scope: Scope): void {
  if (!principal.scopes.has(scope)) throw errors.insufficientScope(scope);
}

/** For what any one of several scopes opens (the MCP endpoint: its search tools or its document tools). */
export function requireAnyScope(principal: Principal, scopes: readonly Scope[]): void {
  if (!scopes.some((s) => principal.scopes.has(s))) throw errors.insufficientScope(scopes.join('" or "'));
}
