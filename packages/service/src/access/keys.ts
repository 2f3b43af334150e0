import { createApiKey } from '../domain/keys.js';
import type { AccountStore, AuditStore, UserStore } from '../domain/stores.js';
import type { ApiKeyRecord, Principal, Scope } from '../domain/types.js';
import { errors } from '../errors.js';
import { audit } from './audit.js';
import { mayManageOwners, requireManager } from './checks.js';
import { findMember } from './principals.js';

/** API keys as the console manages them: by the account's owners and admins, every change audited. */

export interface KeyDeps {
  accounts: Pick<AccountStore, 'insertApiKey' | 'listApiKeys' | 'revokeApiKey'>;
  users: Pick<UserStore, 'getUser' | 'findUserByEmail'>;
  audit: Pick<AuditStore, 'append'>;
}

export function listApiKeys(deps: Pick<KeyDeps, 'accounts'>, principal: Principal): Promise<ApiKeyRecord[]> {
  requireManager(principal, 'manage API keys');
  return deps.accounts.listApiKeys(principal.accountId);
}

/** A key for the account, or bound to one of its users (`user`: id or e-mail), which it then acts as. */
export async function issueApiKey(
  deps: KeyDeps,
  principal: Principal,
  input: { scopes: Scope[]; name: string | null; user?: string | undefined },
): Promise<{ key: ApiKeyRecord; secret: string }> {
  requireManager(principal, 'manage API keys');
  const user = input.user ? await findMember(deps.users, principal.accountId, input.user) : undefined;
  if (input.user && !user) throw errors.userNotFound(input.user);
  // A key bound to an owner has an owner's powers: only owners make one.
  if (user?.role === 'owner' && !mayManageOwners(principal))
    throw errors.permissionDenied('Only owners create keys that act as an owner.');
  const made = await createApiKey(deps.accounts, {
    accountId: principal.accountId,
    scopes: input.scopes,
    name: input.name,
    userId: user?.id ?? null,
  });
  await audit(deps.audit, principal, {
    action: 'key.created',
    targetType: 'key',
    targetId: made.key.id,
    details: {
      prefix: made.key.prefix,
      scopes: made.key.scopes,
      userId: made.key.userId,
      name: made.key.name,
    },
  });
  return made;
}

/** Revokes one of the account's keys by id or shown prefix; key_not_found for any other. */
export async function revokeApiKey(
  deps: Pick<KeyDeps, 'accounts' | 'audit'>,
  principal: Principal,
  idOrPrefix: string,
): Promise<ApiKeyRecord> {
  requireManager(principal, 'manage API keys');
  const key = await deps.accounts.revokeApiKey(idOrPrefix, principal.accountId);
  if (!key) throw errors.keyNotFound(idOrPrefix);
  await audit(deps.audit, principal, {
    action: 'key.revoked',
    targetType: 'key',
    targetId: key.id,
    details: { prefix: key.prefix },
  });
  return key;
}
