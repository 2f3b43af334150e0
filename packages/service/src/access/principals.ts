import type { UserStore } from '../domain/stores.js';
import type { ApiKeyRecord, Principal, Scope, User } from '../domain/types.js';
import { SCOPES } from '../domain/types.js';
import { errors } from '../errors.js';
import { memberView, ROLE_SCOPES } from './policy.js';

/**
 * How a credential becomes a principal (decision 0017): what it may do is what the credential allows
 * narrowed by the role of the user it acts as, and what it sees is that user's view (everything for
 * an owner or admin). The user's role and groups are read at each request, so a change applies to
 * the next one.
 */

const narrowed = (scopes: Iterable<Scope>, user: User): Set<Scope> => {
  const allowed = new Set<Scope>(ROLE_SCOPES[user.role]);
  return new Set([...scopes].filter((s) => allowed.has(s)));
};

/** A console session: everything the user's role allows (never `act-as`, which is for keys). */
export function sessionPrincipal(user: User): Principal {
  return {
    accountId: user.accountId,
    scopes: narrowed(SCOPES, user),
    keyId: undefined,
    userId: user.id,
    role: user.role,
    member: memberView(user.id, user.role, user.groupIds),
    actor: user.email,
  };
}

/** A key: for the account as a whole, or exactly as the user it is bound to (`user`). */
export function keyPrincipal(key: ApiKeyRecord, user: User | undefined): Principal {
  if (!user)
    return {
      accountId: key.accountId,
      scopes: new Set(key.scopes),
      keyId: key.id,
      userId: undefined,
      role: undefined,
      member: undefined,
      actor: key.prefix,
    };
  return {
    accountId: key.accountId,
    scopes: narrowed(key.scopes, user),
    keyId: key.id,
    userId: user.id,
    role: user.role,
    member: memberView(user.id, user.role, user.groupIds),
    actor: `${key.prefix} (${user.email})`,
  };
}

/**
 * A key with `act-as` serving a request for `user` (DocSlurp-On-Behalf-Of): it sees what the user
 * sees and does at most what the user's role allows; `act-as` itself is not passed on.
 */
export function onBehalfOf(principal: Principal, user: User | undefined, named: string): Principal {
  if (!principal.keyId || !principal.scopes.has('act-as'))
    throw errors.onBehalfOfDenied(
      'DocSlurp-On-Behalf-Of needs an API key with the "act-as" scope; leave the header out otherwise.',
    );
  if (!user || user.accountId !== principal.accountId)
    throw errors.onBehalfOfDenied(`No user "${named}" in this account to act on behalf of.`);
  const scopes = narrowed(principal.scopes, user);
  scopes.delete('act-as');
  return {
    ...principal,
    scopes,
    userId: user.id,
    role: user.role,
    member: memberView(user.id, user.role, user.groupIds),
    actor: `${principal.actor} on behalf of ${user.email}`,
  };
}

/** A user of the principal's account named by id or e-mail; undefined when there is none. */
export async function findMember(
  users: Pick<UserStore, 'getUser' | 'findUserByEmail'>,
  accountId: string,
  idOrEmail: string,
): Promise<User | undefined> {
  const named = idOrEmail.trim();
  const user = named.includes('@')
    ? (await users.findUserByEmail(named))?.user
    : await users.getUser(accountId, named);
  return user?.accountId === accountId ? user : undefined;
}

/** The principal a request with DocSlurp-On-Behalf-Of is served as. */
export async function actOnBehalfOf(
  users: Pick<UserStore, 'getUser' | 'findUserByEmail'>,
  principal: Principal,
  named: string,
): Promise<Principal> {
  // Checked before the look-up: a key without the scope learns nothing of which users exist.
  if (!principal.keyId || !principal.scopes.has('act-as')) return onBehalfOf(principal, undefined, named);
  return onBehalfOf(principal, await findMember(users, principal.accountId, named), named);
}
