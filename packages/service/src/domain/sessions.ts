import { createHash, randomBytes } from 'node:crypto';
import { sessionPrincipal } from '../access/principals.js';
import { errors } from '../errors.js';
import { newId } from '../ids.js';
import { decoyHash, verifyPassword } from './passwords.js';
import type { UserStore } from './stores.js';
import type { Principal, User } from './types.js';

export const SESSION_COOKIE = 'docslurp_session';
export const CSRF_HEADER = 'x-csrf-token';

export interface SessionInfo {
  sessionId: string;
  csrfToken: string;
  expiresAt: Date;
  user: User;
  /** Signed in through the identity provider: its ID token; null after a password sign-in. */
  idToken: string | null;
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Signs a user in: a new server-side session with a random token (for the cookie) and a CSRF token
 * (for the page). Unknown emails cost as much time as wrong passwords and get the same answer.
 */
export async function signIn(
  store: UserStore,
  input: { email: string; password: string },
  ttlHours: number,
): Promise<{ token: string; session: SessionInfo }> {
  const found = await store.findUserByEmail(input.email.trim());
  // A user of the identity provider alone has no password: as wrong as a wrong one, and as slow.
  const ok = await verifyPassword(input.password, found?.passwordHash ?? (await decoyHash()));
  if (!found?.passwordHash || !ok) throw errors.invalidCredentials();
  return openSession(store, found.user, ttlHours);
}

/**
 * A new server-side session for a user who proved who they are (a password, or the identity provider:
 * `idToken`, and then the session does not slide, so that the provider's groups are read again at
 * least every `ttlHours`).
 */
export async function openSession(
  store: Pick<UserStore, 'insertSession'>,
  user: User,
  ttlHours: number,
  idToken?: string,
): Promise<{ token: string; session: SessionInfo }> {
  const token = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(24).toString('base64url');
  const expiresAt = new Date(Date.now() + ttlHours * 3600_000);
  const sessionId = newId('ses');
  await store.insertSession({
    id: sessionId,
    userId: user.id,
    tokenHash: hashToken(token),
    csrfToken,
    expiresAt,
    idToken,
    sliding: idToken === undefined,
  });
  return { token, session: { sessionId, csrfToken, expiresAt, user, idToken: idToken ?? null } };
}

/** The session behind a cookie token, extended while in use; undefined when unknown or expired. */
export async function resumeSession(
  store: UserStore,
  token: string,
  ttlHours: number,
): Promise<{ principal: Principal; session: SessionInfo } | undefined> {
  const s = await store.findSessionByTokenHash(hashToken(token));
  if (!s || s.expiresAt.getTime() <= Date.now()) return undefined;
  // Sliding expiry, written at most once a minute per session.
  if (s.sliding && Date.now() - s.lastSeenAt.getTime() > 60_000) {
    s.expiresAt = new Date(Date.now() + ttlHours * 3600_000);
    await store.touchSession(s.sessionId, s.expiresAt);
  }
  return {
    principal: sessionPrincipal(s.user),
    session: {
      sessionId: s.sessionId,
      csrfToken: s.csrfToken,
      expiresAt: s.expiresAt,
      user: s.user,
      idToken: s.idToken,
    },
  };
}

export async function signOut(store: UserStore, token: string): Promise<void> {
  await store.deleteSessionByTokenHash(hashToken(token));
}
