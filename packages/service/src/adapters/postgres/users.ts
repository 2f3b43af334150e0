import type { StoredSession, UserStore } from '../../domain/stores.js';
import type { User } from '../../domain/types.js';
import type { Pool } from './db.js';
import { toUser, type UserRow } from './rows.js';

interface SessionUserRow extends UserRow {
  session_id: string;
  csrf_token: string;
  expires_at: Date;
  last_seen_at: Date;
}

/** Console users and their server-side sessions. */
export class PgUserRepository implements UserStore {
  constructor(private readonly pool: Pool) {}

  async insertUser(user: {
    id: string;
    accountId: string;
    email: string;
    passwordHash: string;
  }): Promise<User> {
    const r = await this.pool.query<UserRow>(
      'INSERT INTO users (id, account_id, email, password_hash) VALUES ($1, $2, $3, $4) RETURNING *',
      [user.id, user.accountId, user.email, user.passwordHash],
    );
    return toUser(r.rows[0]!);
  }

  async findUserByEmail(email: string): Promise<{ user: User; passwordHash: string } | undefined> {
    const r = await this.pool.query<UserRow>('SELECT * FROM users WHERE lower(email) = lower($1)', [email]);
    const row = r.rows[0];
    return row && { user: toUser(row), passwordHash: row.password_hash };
  }

  async listUsers(accountId: string | undefined): Promise<User[]> {
    const r = await this.pool.query<UserRow>(
      'SELECT * FROM users WHERE ($1::text IS NULL OR account_id = $1) ORDER BY created_at',
      [accountId ?? null],
    );
    return r.rows.map(toUser);
  }

  async insertSession(s: {
    id: string;
    userId: string;
    tokenHash: string;
    csrfToken: string;
    expiresAt: Date;
  }): Promise<void> {
    await this.pool.query(
      'INSERT INTO sessions (id, user_id, token_hash, csrf_token, expires_at) VALUES ($1, $2, $3, $4, $5)',
      [s.id, s.userId, s.tokenHash, s.csrfToken, s.expiresAt],
    );
    await this.pool.query('UPDATE users SET last_login_at = now() WHERE id = $1', [s.userId]);
    // Expired sessions are useless; sweep them on the (rare) sign-in path.
    await this.pool.query('DELETE FROM sessions WHERE expires_at < now()');
  }

  async findSessionByTokenHash(tokenHash: string): Promise<StoredSession | undefined> {
    const r = await this.pool.query<SessionUserRow>(
      `SELECT s.id AS session_id, s.csrf_token, s.expires_at, s.last_seen_at, u.*
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
    };
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
