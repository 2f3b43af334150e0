-- People, groups and who may see what (issue 39, decision 0017). With nothing configured, behaviour
-- is exactly as before: the users there are become owners, every workspace and document stays open
-- to the whole account, and keys act for the account.

-- Users: a role each; those of the identity provider may have no password, and are found again by
-- the provider's subject.
ALTER TABLE users ADD COLUMN role text NOT NULL DEFAULT 'owner'
  CHECK (role IN ('owner', 'admin', 'editor', 'reader'));
ALTER TABLE users ALTER COLUMN role DROP DEFAULT;
ALTER TABLE users ALTER COLUMN password_hash DROP NOT NULL;
ALTER TABLE users ADD COLUMN name text, ADD COLUMN oidc_issuer text, ADD COLUMN oidc_subject text;
CREATE UNIQUE INDEX users_oidc ON users (oidc_issuer, oidc_subject) WHERE oidc_subject IS NOT NULL;

CREATE TABLE groups (
  id          text PRIMARY KEY,
  account_id  text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX groups_name ON groups (account_id, lower(name));

CREATE TABLE group_members (
  group_id  text NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
  user_id   text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  PRIMARY KEY (group_id, user_id)
);
CREATE INDEX group_members_user ON group_members (user_id);

-- Access lists are kept on the rows they guard, as arrays of user and group ids: the visibility
-- predicate then needs no join (adapters/postgres/visibility.ts). NULL is open: a workspace to the
-- whole account, a document to its workspace's readers. A user or group deleted is removed from
-- every list in the same transaction (adapters/postgres/people.ts).
ALTER TABLE workspaces
  ADD COLUMN read_users text[], ADD COLUMN read_groups text[],
  ADD COLUMN edit_users text[], ADD COLUMN edit_groups text[],
  ADD CONSTRAINT workspaces_access_whole CHECK (
    (read_users IS NULL) = (read_groups IS NULL) AND (read_users IS NULL) = (edit_users IS NULL)
    AND (read_users IS NULL) = (edit_groups IS NULL));
ALTER TABLE documents
  ADD COLUMN access_users text[], ADD COLUMN access_groups text[],
  ADD CONSTRAINT documents_access_whole CHECK ((access_users IS NULL) = (access_groups IS NULL));
-- The search prefilter looks up a workspace's narrowed documents only.
CREATE INDEX documents_restricted ON documents (workspace_id) WHERE access_users IS NOT NULL;

-- A source's documents get its access when they are made or changed.
ALTER TABLE sources ADD COLUMN access_users text[], ADD COLUMN access_groups text[];

-- A key bound to a user acts exactly as that user; it goes when the user does.
ALTER TABLE api_keys ADD COLUMN user_id text REFERENCES users(id) ON DELETE CASCADE;

-- A webhook endpoint belongs to its creator and carries only what that creator may see.
ALTER TABLE webhook_endpoints ADD COLUMN owner_user_id text REFERENCES users(id) ON DELETE CASCADE;

-- Who did what, append-only: the service inserts and, past AUDIT_RETENTION_DAYS, deletes the oldest;
-- nothing changes an event.
CREATE TABLE audit_events (
  id              bigserial PRIMARY KEY,
  account_id      text NOT NULL,
  at              timestamptz NOT NULL DEFAULT now(),
  actor           text NOT NULL,
  actor_user_id   text,
  actor_key_id    text,
  client_address  text,
  action          text NOT NULL,
  target_type     text,
  target_id       text,
  outcome         text NOT NULL CHECK (outcome IN ('success', 'failure', 'denied')),
  details         jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_events_account_at ON audit_events (account_id, at DESC, id DESC);
-- Retention removes the oldest events of every account at once.
CREATE INDEX audit_events_at ON audit_events (at);
CREATE FUNCTION audit_events_unchanged() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit events cannot be changed';
END $$;
CREATE TRIGGER audit_events_append_only BEFORE UPDATE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION audit_events_unchanged();

-- Sign-in with the identity provider: the sign-ins under way (one use each: the callback takes the
-- row), and on the session the ID token that ends the provider's session at sign-out. Such a session
-- does not slide: it ends SESSION_TTL_HOURS after sign-in, when the provider's groups are read again.
CREATE TABLE oidc_sign_ins (
  state          text PRIMARY KEY,
  nonce          text NOT NULL,
  code_verifier  text NOT NULL,
  return_to      text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE sessions ADD COLUMN id_token text, ADD COLUMN sliding boolean NOT NULL DEFAULT true;
