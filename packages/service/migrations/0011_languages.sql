-- Languages (issue 24): a workspace may fix the language its documents are read in ('auto': each
-- document's own, detected), keeps the languages its documents were indexed in (so a question is
-- read in each of them), and each document records the language it was indexed in.
ALTER TABLE workspaces ADD COLUMN IF NOT EXISTS language text NOT NULL DEFAULT 'auto';
ALTER TABLE workspaces ADD COLUMN IF NOT EXISTS languages text[] NOT NULL DEFAULT '{}';
ALTER TABLE documents ADD COLUMN IF NOT EXISTS language text;
