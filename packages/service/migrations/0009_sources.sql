-- Sources that a workspace stays in sync with (an S3-compatible prefix, a website, a folder on the
-- server; docs/decisions/0012-sources-sync.md). A source belongs to one workspace and goes with it.
-- `sync_run_id` is the run of the sync requested or under way: set when a sync is asked for, cleared
-- in the transaction that applies the listing (or fails the sync). A worker holds the sync with a
-- lease (`sync_owner`, `sync_lease_until`), so one sync of a source runs at a time across workers and
-- a worker killed mid-listing leaves it to the next one once the lease lapses.
CREATE TABLE sources (
  id                 text PRIMARY KEY,
  account_id         text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  workspace_id       text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  type               text NOT NULL CHECK (type IN ('s3', 'website', 'folder')),
  name               text,
  settings           jsonb NOT NULL,
  -- Encrypted (AES-256-GCM, src/domain/secrets.ts, context sources.credentials:<id>); never returned.
  credentials        text,
  interval_seconds   integer CHECK (interval_seconds IS NULL OR interval_seconds >= 60),
  max_delete_share   double precision NOT NULL DEFAULT 0.5 CHECK (max_delete_share BETWEEN 0 AND 1),
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  next_sync_at       timestamptz,
  last_run_id        text REFERENCES runs(id) ON DELETE SET NULL,
  last_sync_at       timestamptz,
  sync_run_id        text REFERENCES runs(id) ON DELETE SET NULL,
  sync_force         boolean NOT NULL DEFAULT false,
  sync_owner         text,
  sync_lease_until   timestamptz
);
CREATE INDEX sources_workspace ON sources (workspace_id, created_at);
CREATE INDEX sources_due ON sources (next_sync_at) WHERE next_sync_at IS NOT NULL;
-- Settling a run asks whether it is a sync still listing its source.
CREATE INDEX sources_syncing ON sources (sync_run_id) WHERE sync_run_id IS NOT NULL;

-- What the last applied sync saw of each item of a source, and the document it became. The
-- fingerprint columns are those each type compares (S3: etag and size; website: etag, last_modified
-- and content hash; folder: size, mtime and hash); `links` keeps a page's links so that a page that
-- did not change (304) still leads the crawl on.
CREATE TABLE source_items (
  source_id      text NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
  item_key       text NOT NULL,
  document_id    text NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  etag           text,
  size_bytes     bigint,
  mtime_ms       double precision,
  last_modified  text,
  content_hash   text,
  links          jsonb,
  version        integer NOT NULL DEFAULT 1,
  synced_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (source_id, item_key)
);
CREATE UNIQUE INDEX source_items_document ON source_items (document_id);

-- Where a document came from and which version of it is (re)processed: a changed item keeps its
-- document id and gets version + 1. A sync's run names its source and, when the sync itself failed
-- (credentials refused, unreachable, too many deletions), why.
ALTER TABLE documents ADD COLUMN source_id text REFERENCES sources(id) ON DELETE SET NULL;
ALTER TABLE documents ADD COLUMN source_item text;
ALTER TABLE documents ADD COLUMN version integer NOT NULL DEFAULT 1;
CREATE INDEX documents_source ON documents (source_id) WHERE source_id IS NOT NULL;
ALTER TABLE runs ADD COLUMN source_id text REFERENCES sources(id) ON DELETE SET NULL;
ALTER TABLE runs ADD COLUMN error_code text;
ALTER TABLE runs ADD COLUMN error_message text;
