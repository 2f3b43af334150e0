-- Workspaces are created, renamed and deleted by people: a name they choose (the column existed but
-- nothing set it), a description and metadata of their own, and when they last changed.
ALTER TABLE workspaces ADD COLUMN description text;
ALTER TABLE workspaces ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}'::jsonb;
ALTER TABLE workspaces ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();
UPDATE workspaces SET updated_at = created_at;

-- Deleting a workspace removes its rows at once (every table that names a workspace, run or document
-- references it with ON DELETE CASCADE). What lives outside the database (search index tables, stored
-- originals and extracted text) is recorded here in the same transaction and removed afterwards, so a
-- crash between the two leaves a record to finish from instead of files nobody knows about. No foreign
-- key to workspaces: these rows outlive the workspace. The request that deletes removes the rest at
-- once; workers' reconcilers take over a record once `retry_after` has passed (the request failed or
-- died), and a worker that wrote for a deleted workspace hands its writes over with `retry_after` now
-- and a new `generation`, so that a removal already under way does not forget them.
CREATE TABLE workspace_deletions (
  workspace_id  text PRIMARY KEY,
  deleted_at    timestamptz NOT NULL DEFAULT now(),
  retry_after   timestamptz NOT NULL,
  generation    integer NOT NULL DEFAULT 0
);
CREATE INDEX workspace_deletions_due ON workspace_deletions (retry_after);

CREATE TABLE object_deletions (
  workspace_id  text NOT NULL REFERENCES workspace_deletions(workspace_id) ON DELETE CASCADE,
  key           text NOT NULL,
  PRIMARY KEY (workspace_id, key)
);
