-- Evaluations (issue 40, docs/evaluation.md): a question set asked under one or more configurations,
-- as a job of the worker. The row is the job's state (the job engine's message is only a hint): its
-- status, progress, the worker holding it and until when, and, once completed, each configuration's
-- metrics. What each question got is kept a row per question and configuration, written as it is
-- asked, so a worker that takes over a lapsed evaluation asks only what is left.
CREATE TABLE evaluations (
  id               text PRIMARY KEY,
  account_id       text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  workspace_id     text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  -- Kept when the set is deleted: the evaluation's results stay readable.
  question_set_id  text,
  question_set_name text NOT NULL,
  name             text NOT NULL,
  configurations   jsonb NOT NULL,
  status           text NOT NULL DEFAULT 'queued'
                   CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
  -- Whose view the questions are asked with: a user's (their role and groups as they are when it
  -- runs), or the whole account's (null).
  owner_user_id    text REFERENCES users(id) ON DELETE SET NULL,
  owner_is_user    boolean NOT NULL DEFAULT false,
  created_by       text NOT NULL,
  questions_total  integer NOT NULL,
  questions_done   integer NOT NULL DEFAULT 0,
  lease_holder     text,
  lease_until      timestamptz,
  error_code       text,
  error_message    text,
  results          jsonb,
  created_at       timestamptz NOT NULL DEFAULT now(),
  started_at       timestamptz,
  finished_at      timestamptz,
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX evaluations_workspace ON evaluations (workspace_id, created_at DESC);
CREATE INDEX evaluations_unfinished ON evaluations (updated_at) WHERE status IN ('queued', 'running');

CREATE TABLE evaluation_outcomes (
  evaluation_id  text NOT NULL REFERENCES evaluations(id) ON DELETE CASCADE,
  configuration  integer NOT NULL,
  ordinal        integer NOT NULL,
  outcome        jsonb NOT NULL,
  PRIMARY KEY (evaluation_id, configuration, ordinal)
);
