import type { Log } from '../domain/log.js';
import type { IdentityProvider, ProvidedIdentity } from '../domain/ports.js';
import { openSession, type SessionInfo } from '../domain/sessions.js';
import type { AccountStore, AuditStore, GroupStore, UserStore } from '../domain/stores.js';
import type { Role, User } from '../domain/types.js';
import { ROLES } from '../domain/types.js';
import { SignInRefused } from '../errors.js';
import { audit } from './audit.js';
import { insertUser } from './people.js';
import { sessionPrincipal } from './principals.js';

/**
 * Sign-in with the organisation's identity provider (OpenID Connect): the flow's two halves, and
 * who the verified identity is in DocSlurp. A user is made at their first sign-in (role `reader`, or
 * the role their groups map to); their groups are replaced from the provider's claim at every
 * sign-in, matched by name (a group named there that does not exist yet is made); with
 * OIDC_ROLE_GROUPS, their role follows the claim too (an owner is never demoted by it: owners are
 * managed in DocSlurp, so that the provider cannot lock the account out).
 */

/** What of the provider's configuration (OIDC_*) decides who a verified identity is here. */
export interface SsoSettings {
  /** The account (name or id) its users join. */
  account: string;
  /** Only e-mail addresses of these domains (lower case) may sign in; empty: any. */
  allowedDomains: string[];
  /** Roles that membership of a provider's group gives. */
  roleGroups: { role: Role; group: string }[];
}

export interface SsoDeps {
  provider: IdentityProvider;
  users: UserStore;
  groups: GroupStore;
  accounts: Pick<AccountStore, 'ensureAccount'>;
  audit: Pick<AuditStore, 'append'>;
  log: Pick<Log, 'info' | 'warn'>;
}

/** A sign-in begun this long ago is not finished any more (the person took too long, or replays it). */
export const SIGN_IN_MAX_AGE_SECONDS = 600;

/** Where a sign-in may return to: a path of this site only, never another origin. */
export function localPath(raw: string | undefined): string {
  if (!raw?.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\') || /[\r\n]/.test(raw))
    return '/';
  return raw;
}

/** Starts a sign-in: the provider's URL to send the browser to, and the state to bind to it. */
export async function beginSignIn(
  deps: Pick<SsoDeps, 'provider' | 'users'>,
  returnTo: string | undefined,
): Promise<{ url: URL; state: string }> {
  const { url, pending } = await deps.provider.begin();
  await deps.users.savePendingSignIn({ ...pending, returnTo: localPath(returnTo) });
  return { url, state: pending.state };
}

/**
 * Finishes a sign-in from the provider's callback: the state it carries must be the one this browser
 * began (`browserState`, its cookie) and one not used before; the provider's answer must verify; the
 * e-mail must be of an allowed domain. Then the user is found or made, their groups (and role) synced,
 * and a session opened. Every refusal is a SignInRefused, audited when it names a known user.
 */
export async function finishSignIn(
  deps: SsoDeps,
  settings: SsoSettings,
  request: { callbackUrl: URL; browserState: string | undefined; address: string },
  ttlHours: number,
): Promise<{ token: string; session: SessionInfo; returnTo: string }> {
  const state = request.callbackUrl.searchParams.get('state');
  if (!state || !request.browserState || state !== request.browserState)
    throw new SignInRefused(
      'unknown_state',
      'This sign-in was not begun in this browser, or it was finished already. Sign in again.',
    );
  const pending = await deps.users.takePendingSignIn(state, SIGN_IN_MAX_AGE_SECONDS);
  if (!pending)
    throw new SignInRefused('unknown_state', 'This sign-in has expired or was used already. Sign in again.');
  const identity = await deps.provider.verify(request.callbackUrl, pending);
  const user = await userFor(deps, settings, identity, request.address);
  const { token, session } = await openSession(deps.users, user, ttlHours, identity.idToken);
  await audit(
    deps.audit,
    { ...sessionPrincipal(user), address: request.address },
    {
      action: 'session.signed_in',
      targetType: 'user',
      targetId: user.id,
      details: { method: 'oidc', issuer: identity.issuer, groups: identity.groups },
    },
  );
  return { token, session, returnTo: pending.returnTo };
}

/** The highest role the provider's groups give, by OIDC_ROLE_GROUPS; undefined when none maps. */
function mappedRole(settings: SsoSettings, groups: string[]): Role | undefined {
  const named = new Set(groups.map((g) => g.toLowerCase()));
  const given = settings.roleGroups.filter((r) => named.has(r.group.toLowerCase())).map((r) => r.role);
  return ROLES.find((role) => given.includes(role));
}

async function userFor(
  deps: SsoDeps,
  settings: SsoSettings,
  identity: ProvidedIdentity,
  address: string,
): Promise<User> {
  if (!identity.email)
    throw new SignInRefused(
      'no_email',
      `${deps.provider.displayName} did not say who you are by e-mail: ask your administrator to release the "email" claim to DocSlurp.`,
      403,
    );
  const email = identity.email.trim();
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  if (settings.allowedDomains.length > 0 && !settings.allowedDomains.includes(domain)) {
    deps.log.warn({ email, issuer: identity.issuer }, 'sign-in refused: e-mail domain not allowed');
    throw new SignInRefused(
      'domain_not_allowed',
      `Addresses of ${domain} may not sign in here (OIDC_ALLOWED_DOMAINS allows ${settings.allowedDomains.join(', ')}).`,
      403,
    );
  }
  const account = await deps.accounts.ensureAccount(settings.account);
  const groupIds = (await deps.groups.resolveGroups(account.id, identity.groups, true)).map((g) => g.id);
  const role =
    settings.roleGroups.length > 0 ? (mappedRole(settings, identity.groups) ?? 'reader') : undefined;
  const oidc = { issuer: identity.issuer, subject: identity.subject };
  const known =
    (await deps.users.findUserBySubject(identity.issuer, identity.subject)) ??
    (await deps.users.findUserByEmail(email))?.user;
  if (known && known.accountId !== account.id)
    throw new SignInRefused(
      'domain_not_allowed',
      `${email} belongs to another account of this service; ask its administrator.`,
      403,
    );
  if (!known) {
    const user = await insertUser(deps, account.id, {
      email,
      name: identity.name,
      role: role ?? mappedRole(settings, identity.groups) ?? 'reader',
      groups: groupIds,
      oidc,
    });
    deps.log.info(
      { userId: user.id, email, role: user.role },
      'user made at first sign-in through the provider',
    );
    await audit(
      deps.audit,
      { ...sessionPrincipal(user), address },
      {
        action: 'user.created',
        targetType: 'user',
        targetId: user.id,
        details: { email, role: user.role, groups: user.groupIds, by: 'oidc' },
      },
    );
    return user;
  }
  const newRole = role && known.role !== 'owner' && role !== known.role ? role : undefined;
  const updated = await deps.users.updateUser(account.id, known.id, {
    groupIds,
    role: newRole,
    // The first sign-in through the provider links an existing user (made by an admin) to its subject.
    oidc,
  });
  if (!updated) throw new SignInRefused('unknown_state', 'Your user was removed meanwhile. Sign in again.');
  if (newRole || known.groupIds.join() !== updated.groupIds.join())
    await audit(
      deps.audit,
      { ...sessionPrincipal(updated), address },
      {
        action: newRole ? 'user.role_changed' : 'user.updated',
        targetType: 'user',
        targetId: known.id,
        details: {
          by: 'oidc',
          groups: { from: known.groupIds, to: updated.groupIds },
          ...(newRole ? { role: { from: known.role, to: newRole } } : {}),
        },
      },
    );
  return updated;
}
