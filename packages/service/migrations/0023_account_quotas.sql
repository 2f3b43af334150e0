-- Quotas per account (issue 43). The server's defaults come from ACCOUNT_MAX_*; an operator may give
-- an account its own limit for any quota (CLI or admin API). A row overrides the default: its
-- `limit_value` is the limit, or null for unlimited. No row: the default applies.
CREATE TABLE account_quota_overrides (
  account_id   text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  quota        text NOT NULL CHECK (quota IN ('documents', 'storedBytes', 'uploadsPerDay', 'questionsPerDay')),
  limit_value  bigint CHECK (limit_value >= 0),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, quota)
);

-- What an account holds: its documents that are not deleted and the bytes of their originals, kept
-- by the triggers below so that a check reads one row instead of counting the account's documents.
-- An upload locks the row while it checks and records, so two uploads at the limit cannot both pass.
CREATE TABLE account_usage (
  account_id    text PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
  documents     bigint NOT NULL DEFAULT 0,
  stored_bytes  bigint NOT NULL DEFAULT 0
);

INSERT INTO account_usage (account_id, documents, stored_bytes)
SELECT a.id, count(d.id), coalesce(sum(d.size_bytes), 0)
FROM accounts a LEFT JOIN documents d ON d.account_id = a.id AND d.status <> 'deleted'
GROUP BY a.id;

-- Inserts and deletes per statement, with the rows they changed: a 1000-file upload or a deleted
-- workspace updates the account's row once.
CREATE FUNCTION account_usage_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO account_usage AS u (account_id, documents, stored_bytes)
  SELECT account_id, count(*), coalesce(sum(size_bytes), 0) FROM new_rows
  WHERE status <> 'deleted' GROUP BY account_id
  ON CONFLICT (account_id) DO UPDATE
    SET documents = u.documents + EXCLUDED.documents, stored_bytes = u.stored_bytes + EXCLUDED.stored_bytes;
  RETURN NULL;
END $$;

CREATE FUNCTION account_usage_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE account_usage u
     SET documents = greatest(u.documents - d.n, 0), stored_bytes = greatest(u.stored_bytes - d.b, 0)
    FROM (SELECT account_id, count(*) AS n, coalesce(sum(size_bytes), 0) AS b FROM old_rows
          WHERE status <> 'deleted' GROUP BY account_id) d
   WHERE u.account_id = d.account_id;
  RETURN NULL;
END $$;

-- Updates row by row, and only those that change what counts (a document deleted, a fetched page's
-- size known): the worker's many updates of stages and leases never call it.
CREATE FUNCTION account_usage_updated() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  n bigint := 0;
  b bigint := 0;
BEGIN
  IF NEW.status <> 'deleted' THEN n := n + 1; b := b + coalesce(NEW.size_bytes, 0); END IF;
  IF OLD.status <> 'deleted' THEN n := n - 1; b := b - coalesce(OLD.size_bytes, 0); END IF;
  INSERT INTO account_usage AS u (account_id, documents, stored_bytes)
  VALUES (NEW.account_id, greatest(n, 0), greatest(b, 0))
  ON CONFLICT (account_id) DO UPDATE
    SET documents = greatest(u.documents + n, 0), stored_bytes = greatest(u.stored_bytes + b, 0);
  RETURN NULL;
END $$;

CREATE TRIGGER documents_usage_inserted AFTER INSERT ON documents
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION account_usage_inserted();
CREATE TRIGGER documents_usage_deleted AFTER DELETE ON documents
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION account_usage_deleted();
CREATE TRIGGER documents_usage_updated AFTER UPDATE OF status, size_bytes ON documents FOR EACH ROW
  WHEN ((OLD.status = 'deleted') IS DISTINCT FROM (NEW.status = 'deleted')
        OR OLD.size_bytes IS DISTINCT FROM NEW.size_bytes)
  EXECUTE FUNCTION account_usage_updated();

-- Per-day counts (UTC days) of the quotas that reset daily. A question takes one conditional upsert:
-- the count rises only while it is under the limit, so processes racing at the limit cannot pass it.
CREATE TABLE account_daily_use (
  account_id  text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  quota       text NOT NULL CHECK (quota IN ('uploadsPerDay', 'questionsPerDay')),
  day         date NOT NULL,
  used        bigint NOT NULL,
  PRIMARY KEY (account_id, quota, day)
);
