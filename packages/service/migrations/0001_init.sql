-- Accounts own API keys and workspaces; every read is scoped to an account.
CREATE TABLE accounts (
  id          text PRIMARY KEY,
  name        text NOT NULL UNIQUE,
  created_at  timestamptz NOT NULL DEFAULT now()
);

INSERT INTO accounts (id, name) VALUES ('acc_default', 'default');

-- Keys are stored as SHA-256 of the secret: they are random 160-bit tokens, so a slow hash adds nothing.
CREATE TABLE api_keys (
  id            text PRIMARY KEY,
  account_id    text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name          text,
  key_prefix    text NOT NULL,
  key_hash      text NOT NULL UNIQUE,
  scopes        text[] NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_used_at  timestamptz,
  revoked_at    timestamptz
);
CREATE INDEX api_keys_account ON api_keys (account_id);

CREATE TABLE workspaces (
  id          text PRIMARY KEY,
  account_id  text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name        text,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX workspaces_account ON workspaces (account_id, created_at DESC);

CREATE TABLE runs (
  id            text PRIMARY KEY,
  account_id    text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  workspace_id  text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  status        text NOT NULL CHECK (status IN ('processing', 'completed', 'failed', 'paused', 'cancelled')),
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  finished_at   timestamptz
);
CREATE INDEX runs_workspace ON runs (workspace_id, created_at DESC);
CREATE INDEX runs_processing ON runs (id) WHERE status = 'processing';

CREATE TABLE documents (
  id                   text PRIMARY KEY,
  account_id           text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  workspace_id         text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  run_id               text NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  filename             text NOT NULL,
  source_url           text,
  declared_media_type  text,
  media_type           text,
  size_bytes           bigint NOT NULL,
  sha256               text NOT NULL,
  storage_key          text NOT NULL,
  status               text NOT NULL CHECK (status IN ('queued', 'processing', 'ready', 'needs_ocr', 'failed', 'cancelled', 'deleted')),
  stage                text NOT NULL DEFAULT 'queued',
  error_code           text,
  error_message        text,
  page_count           integer,
  chunk_count          integer,
  metadata             jsonb NOT NULL DEFAULT '{}'::jsonb,
  attempts             integer NOT NULL DEFAULT 0,
  lease_owner          text,
  lease_expires_at     timestamptz,
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now(),
  started_at           timestamptz,
  finished_at          timestamptz
);
CREATE INDEX documents_workspace ON documents (workspace_id, created_at);
CREATE INDEX documents_run ON documents (run_id);
-- The reconciler scans only unfinished documents.
CREATE INDEX documents_unfinished ON documents (run_id) WHERE status IN ('queued', 'processing');

-- An idempotency key names one upload per account; the hash tells a replay from a different payload.
CREATE TABLE idempotency_keys (
  account_id    text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  key           text NOT NULL,
  request_hash  text NOT NULL,
  run_id        text NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, key)
);
