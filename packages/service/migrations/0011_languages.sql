-- Languages (issue 24): a workspace may fix the language its documents are read in ('auto': each
-- document's own, detected), keeps the languages its documents were indexed in (so a question is
-- read in each of them), and each document records the language it was indexed in.
ALTER TABLE workspaces ADD COLUMN IF NOT EXISTS language text NOT NULL DEFAULT 'auto';
ALTER TABLE workspaces ADD COLUMN IF NOT EXISTS languages text[] NOT NULL DEFAULT '{}';
ALTER TABLE documents ADD COLUMN IF NOT EXISTS language text;

-- The same answer whenever asked (issue 24): a run whose documents are done completes once the
-- index maintenance has folded their rows into the full-text index; until then it waits, marked here.
ALTER TABLE runs ADD COLUMN IF NOT EXISTS awaiting_index_since timestamptz;
CREATE INDEX IF NOT EXISTS runs_awaiting_index ON runs (workspace_id) WHERE awaiting_index_since IS NOT NULL AND status = 'processing';
