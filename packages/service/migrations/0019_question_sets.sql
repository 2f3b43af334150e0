-- Question sets (issue 40, docs/evaluation.md): the questions an evaluation asks of a workspace,
-- checked before they are stored. A set belongs to its workspace and goes with it. The questions are
-- one JSON document: a set is written once and read whole by the evaluation that asks it.
CREATE TABLE question_sets (
  id              text PRIMARY KEY,
  account_id      text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  workspace_id    text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name            text NOT NULL,
  questions       jsonb NOT NULL,
  question_count  integer NOT NULL,
  created_by      text NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX question_sets_workspace ON question_sets (workspace_id, created_at DESC);
