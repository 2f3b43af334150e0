import type {
  NewUser,
  PendingSignInRecord,
  StoredSession,
  UserChanges,
  UserStore,
} from '../../domain/stores.js';
import type { User } from '../../domain/types.js';
import { removeFromAccessLists } from './access-lists.js';
import { inTransaction, type Pool, type Queryable } from './db.js';
import { toUser, USER_COLUMNS, type UserRow } from './rows.js';

interface SessionUserRow extends UserRow {
  session_id: string;
  csrf_token: string;
  expires_at: Date;
  last_seen_at: Date;
  id_token: string | null;
  sliding: boolean;
}

async function userById(q: Queryable, accountId: string, userId: string): Promise<User | undefined> {
  const r = await q.query<UserRow>(
    `SELECT ${USER_COLUMNS} FROM users u WHERE u.id = $1 AND u.account_id = $2`,
    [userId, accountId],
  );
  return r.rows[0] && toUser(r.rows[0]);
}

/** Replaces the user's groups with `groupIds` (those of its account only). */
async function setGroups(q: Queryable, accountId: string, userId: string, groupIds: readonly string[]) {
  await q.query('DELETE FROM group_members WHERE user_id = $1', [userId]);
  await q.query(
    `INSERT INTO group_members (group_id, user_id)
     SELECT g.id, $1 FROM groups g WHERE g.account_id = $2 AND g.id = ANY($3::text[]) ON CONFLICT DO NOTHING`,
    [userId, accountId, [...groupIds]],
  );
}

/** The people of an account (console users, those a key acts as) and their server-side sessions. */
export class PgUserRepository implements UserStore {
  constructor(private readonly pool: Pool) {}

  insertUser(user: NewUser): Promise<User> {
    return inTransaction(this.pool, async (c) => {
      await c.query(
        `INSERT INTO users (id, account_id, email, name, role, password_hash, oidc_issuer, oidc_subject)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          user.id,
          user.accountId,
          user.email,
          user.name ?? null,
          user.role,
          user.passwordHash,
          user.oidc?.issuer ?? null,
          user.oidc?.subject ?? null,
        ],
      );
      if (user.groupIds?.length) await setGroups(c, user.accountId, user.id, user.groupIds);
      return (await userById(c, user.accountId, user.id))!;
    });
  }

  async findUserByEmail(email: string): Promise<{ user: User; passwordHash: string | null } | undefined> {
    const r = await this.pool.query<UserRow>(
      `SELECT ${USER_COLUMNS} FROM users u WHERE lower(u.email) = lower($1)`,
      [email],
    );
    const row = r.rows[0];
    return row && { user: toUser(row), passwordHash: row.password_hash };
  }

  async findUserBySubject(issuer: string, subject: string): Promise<User | undefined> {
    const r = await this.pool.query<UserRow>(
      `SELECT ${USER_COLUMNS} FROM users u WHERE u.oidc_issuer = $1 AND u.oidc_subject = $2`,
      [issuer, subject],
    );
    return r.rows[0] && toUser(r.rows[0]);
  }

  getUser(accountId: string, userId: string): Promise<User | undefined> {
    return userById(this.pool, accountId, userId);
  }

  async listUsers(accountId: string | undefined): Promise<User[]> {
    const r = await this.pool.query<UserRow>(
      `SELECT ${USER_COLUMNS} FROM users u WHERE ($1::text IS NULL OR u.account_id = $1) ORDER BY u.created_at, u.id`,
      [accountId ?? null],
    );
    return r.rows.map(toUser);
  }

  updateUser(accountId: string, userId: string, changes: UserChanges): Promise<User | undefined> {
    return inTransaction(this.pool, async (c) => {
      const r = await c.query(
        `UPDATE users SET role = coalesce($3, role),
                          name = CASE WHEN $4 THEN $5 ELSE name END,
                          password_hash = coalesce($6, password_hash),
                          oidc_issuer = coalesce($7, oidc_issuer),
                          oidc_subject = coalesce($8, oidc_subject)
          WHERE id = $1 AND account_id = $2`,
        [
          userId,
          accountId,
          changes.role ?? null,
          changes.name !== undefined,
          changes.name ?? null,
          changes.passwordHash ?? null,
          changes.oidc?.issuer ?? null,
          changes.oidc?.subject ?? null,
        ],
      );
      if (!r.rowCount) return undefined;
      if (changes.groupIds) await setGroups(c, accountId, userId, changes.groupIds);
      return userById(c, accountId, userId);
    });
  }

  deleteUser(accountId: string, userId: string): Promise<User | undefined> {
    return inTransaction(this.pool, async (c) => {
      const user = await userById(c, accountId, userId);
      if (!user) return undefined;
      await removeFromAccessLists(c, 'users', userId, accountId);
      // Its sessions, memberships, keys and webhook endpoints go with it (ON DELETE CASCADE).
      await c.query('DELETE FROM users WHERE id = $1', [userId]);
      return user;
    });
  }

  async deleteSessionsOf(userId: string): Promise<void> {
    await this.pool.query('DELETE FROM sessions WHERE user_id = $1', [userId]);
  }

  async insertSession(s: {
    id: string;
    userId: string;
    tokenHash: string;
    csrfToken: string;
    expiresAt: Date;
    idToken?: string | undefined;
    sliding?: boolean | undefined;
  }): Promise<void> {
    await this.pool.query(
      `INSERT INTO sessions (id, user_id, token_hash, csrf_token, expires_at, id_token, sliding)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [s.id, s.userId, s.tokenHash, s.csrfToken, s.expiresAt, s.idToken ?? null, s.sliding ?? true],
    );
    await this.pool.query('UPDATE users SET last_login_at = now() WHERE id = $1', [s.userId]);
    // Expired sessions are useless; sweep them on the (rare) sign-in path.
    await this.pool.query('DELETE FROM sessions WHERE expires_at < now()');
  }

  async findSessionByTokenHash(tokenHash: string): Promise<StoredSession | undefined> {
    // The user's role and groups as they are now: a change applies to the session's next request.
    const r = await this.pool.query<SessionUserRow>(
      `SELECT s.id AS session_id, s.csrf_token, s.expires_at, s.last_seen_at, s.id_token, s.sliding, ${USER_COLUMNS}
       FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = $1`,
      [tokenHash],
    );
    const row = r.rows[0];
    if (!row) return undefined;
    return {
      sessionId: row.session_id,
      csrfToken: row.csrf_token,
      expiresAt: row.expires_at,
      lastSeenAt: row.last_seen_at,
      user: toUser(row),
      idToken: row.id_token,
      sliding: row.sliding,
    };
  }

  async savePendingSignIn(p: PendingSignInRecord): Promise<void> {
    await this.pool.query(
      'INSERT INTO oidc_sign_ins (state, nonce, code_verifier, return_to) VALUES ($1, $2, $3, $4)',
      [p.state, p.nonce, p.codeVerifier, p.returnTo],
    );
    // Sign-ins never finished are useless after a few minutes; swept on this (rare) path.
    await this.pool.query("DELETE FROM oidc_sign_ins WHERE created_at < now() - interval '1 hour'");
  }

  async takePendingSignIn(state: string, maxAgeSeconds: number): Promise<PendingSignInRecord | undefined> {
    const r = await this.pool.query<{
      state: string;
      nonce: string;
      code_verifier: string;
      return_to: string;
    }>(
      `DELETE FROM oidc_sign_ins WHERE state = $1 AND created_at > now() - make_interval(secs => $2)
       RETURNING state, nonce, code_verifier, return_to`,
      [state, maxAgeSeconds],
    );
    const row = r.rows[0];
    return (
      row && { state: row.state, nonce: row.nonce, codeVerifier: row.code_verifier, returnTo: row.return_to }
    );
  }

  async touchSession(sessionId: string, expiresAt: Date): Promise<void> {
    await this.pool.query('UPDATE sessions SET last_seen_at = now(), expires_at = $2 WHERE id = $1', [
      sessionId,
      expiresAt,
    ]);
  }

  async deleteSessionByTokenHash(tokenHash: string): Promise<void> {
    await this.pool.query('DELETE FROM sessions WHERE token_hash = $1', [tokenHash]);
  }
}
