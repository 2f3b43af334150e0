-- Batches of documents are taken in turns across accounts, and across workspaces within an account
-- (issue 44): a claim serves the waiting workspace whose account was served least recently, then the
-- account's workspace served least recently. `served_at` is when a batch of the workspace was last
-- claimed ('-infinity' for one not served yet). The account is copied here so that an account's last
-- turn is one index range.
CREATE TABLE workspace_turns (
  workspace_id  text PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
  account_id    text NOT NULL,
  served_at     timestamptz NOT NULL
);
CREATE INDEX workspace_turns_account ON workspace_turns (account_id, served_at);
-- Which workspaces have documents waiting, and their oldest ones, in a few index probes each.
CREATE INDEX documents_queued ON documents (run_id, id) WHERE status = 'queued';
CREATE INDEX runs_processing_workspace ON runs (workspace_id, id) WHERE status = 'processing';
