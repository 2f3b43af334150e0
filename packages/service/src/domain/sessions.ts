import { createHash, randomBytes } from 'node:crypto';
import { errors } from '../errors.js';
import { newId } from '../ids.js';
import { decoyHash, hashPassword, verifyPassword } from './passwords.js';
import type { UserStore } from './stores.js';
import { type Principal, SCOPES, type User } from './types.js';

export const SESSION_COOKIE = 'docslurp_session';
export const CSRF_HEADER = 'x-csrf-token';
const MIN_PASSWORD_LENGTH = 10;

export interface SessionInfo {
  sessionId: string;
  csrfToken: string;
  expiresAt: Date;
  user: User;
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export function validateNewUser(email: string, password: string): void {
  // The domain's labels cannot hold dots: one way to split the address, so no backtracking.
  if (!/^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/.test(email)) throw new Error(`"${email}" is not an email address`);
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new Error(`the password must have at least ${MIN_PASSWORD_LENGTH} characters`);
  }
}

export async function createUser(
  store: UserStore,
  input: { accountId: string; email: string; password: string },
): Promise<User> {
  validateNewUser(input.email, input.password);
  if (await store.findUserByEmail(input.email))
    throw new Error(`a user with the email ${input.email} exists already`);
  return store.insertUser({
    id: newId('usr'),
    accountId: input.accountId,
    email: input.email.trim(),
    passwordHash: await hashPassword(input.password),
  });
}

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
  const ok = await verifyPassword(input.password, found?.passwordHash ?? (await decoyHash()));
  if (!found || !ok) throw errors.invalidCredentials();
  const token = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(24).toString('base64url');
  const expiresAt = new Date(Date.now() + ttlHours * 3600_000);
  const sessionId = newId('ses');
  await store.insertSession({
    id: sessionId,
    userId: found.user.id,
    tokenHash: hashToken(token),
    csrfToken,
    expiresAt,
  });
  return { token, session: { sessionId, csrfToken, expiresAt, user: found.user } };
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
  if (Date.now() - s.lastSeenAt.getTime() > 60_000) {
    s.expiresAt = new Date(Date.now() + ttlHours * 3600_000);
    await store.touchSession(s.sessionId, s.expiresAt);
  }
  return {
    principal: { accountId: s.user.accountId, scopes: new Set(SCOPES), keyId: undefined, userId: s.user.id },
    session: { sessionId: s.sessionId, csrfToken: s.csrfToken, expiresAt: s.expiresAt, user: s.user },
  };
}

export async function signOut(store: UserStore, token: string): Promise<void> {
  await store.deleteSessionByTokenHash(hashToken(token));
}
