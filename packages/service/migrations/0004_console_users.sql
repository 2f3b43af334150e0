-- People who sign in to the web console. A user belongs to one account and acts with every scope.
CREATE TABLE users (
  id             text PRIMARY KEY,
  account_id     text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  email          text NOT NULL,
  password_hash  text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  last_login_at  timestamptz
);
CREATE UNIQUE INDEX users_email ON users (lower(email));

-- Sessions are stored server-side: signing out deletes the row, whatever the browser keeps.
-- The cookie carries a random token; only its SHA-256 is stored.
CREATE TABLE sessions (
  id            text PRIMARY KEY,
  user_id       text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  token_hash    text NOT NULL UNIQUE,
  csrf_token    text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz NOT NULL,
  last_seen_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sessions_user ON sessions (user_id);
CREATE INDEX sessions_expiry ON sessions (expires_at);
