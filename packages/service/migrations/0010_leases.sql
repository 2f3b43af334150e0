-- Work that one worker at a time does for the whole stack, held with a lease (issue 25): `reconcile`
-- (the reconciler's pass) and `maintain:<workspace id>` (a workspace's index maintenance). Rows, not
-- advisory locks, so that they hold through PgBouncer in transaction mode. A holder that dies lets
-- its lease lapse; another takes it then.
CREATE TABLE worker_leases (
  name        text PRIMARY KEY,
  holder      text NOT NULL,
  expires_at  timestamptz NOT NULL
);

-- When the reconciler last handed a document to the job engine because its job may have been lost:
-- it looks at a waiting document again only once a bound has passed since then (or since it was
-- queued), and at one whose lease lapsed once per lapse, however many workers run and however long
-- the queue is.
ALTER TABLE documents ADD COLUMN requeued_at timestamptz;
CREATE INDEX documents_waiting ON documents ((coalesce(requeued_at, updated_at))) WHERE status = 'queued';
CREATE INDEX documents_leased ON documents (lease_expires_at) WHERE status = 'processing';
