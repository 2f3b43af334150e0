-- A sync that fails the same way on the same input is not retried forever (issue 26).
-- `sync_attempts` counts the workers that took up the sync under way: a listing whose worker dies
-- each time (killed, or out of memory on what the source serves) is failed after the worker's
-- DOCUMENT_MAX_ATTEMPTS instead of being handed to the next worker after every restart.
-- `failure_code` and `failure_streak` count the syncs in a row that failed with the same code: a
-- scheduled source waits twice as long after each, and its schedule stops after five; a sync on
-- request or a change of its settings starts it again.
ALTER TABLE sources ADD COLUMN sync_attempts integer NOT NULL DEFAULT 0;
ALTER TABLE sources ADD COLUMN failure_code text;
ALTER TABLE sources ADD COLUMN failure_streak integer NOT NULL DEFAULT 0;
