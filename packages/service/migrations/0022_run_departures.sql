-- Documents a run handed on to a later run that processed them again (POST /v1/runs/{id}/reprocess,
-- POST /v1/documents/{id}/reprocess), with the state and error they left in (issue 43). A document
-- belongs to one run at a time (documents.run_id), so without this a cancelled run whose documents
-- were processed again counted none of them: "Upload of 0 files", "0 of 0". The run still counts
-- them as they were, and names the runs that took them.
CREATE TABLE run_departures (
  run_id         text NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  document_id    text NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  status         text NOT NULL CHECK (status IN ('cancelled', 'failed')),
  error_code     text,
  error_message  text,
  next_run_id    text NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  departed_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, document_id)
);
CREATE INDEX run_departures_document ON run_departures (document_id);
CREATE INDEX run_departures_next_run ON run_departures (next_run_id);
