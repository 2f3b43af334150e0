-- What a run was, so that people can tell runs apart ("upload of 3 files", "sync of the handbook
-- folder") without reading their documents: an upload, a list of URLs, a source's sync, or documents
-- processed again (POST /v1/documents/{id}/reprocess). Runs recorded before this are classified by
-- what they hold: a source, documents fetched from URLs, or else uploaded files.
ALTER TABLE runs ADD COLUMN kind text;
UPDATE runs SET kind = CASE
  WHEN source_id IS NOT NULL THEN 'sync'
  WHEN EXISTS (SELECT 1 FROM documents d WHERE d.run_id = runs.id AND d.source_id IS NOT NULL) THEN 'sync'
  WHEN EXISTS (SELECT 1 FROM documents d WHERE d.run_id = runs.id AND d.source_url IS NOT NULL) THEN 'urls'
  ELSE 'upload'
END;
ALTER TABLE runs ALTER COLUMN kind SET NOT NULL;
ALTER TABLE runs ADD CONSTRAINT runs_kind CHECK (kind IN ('upload', 'urls', 'sync', 'reprocess'));

-- When a paused run was last resumed: its pace (and so the time it still needs) is measured from then,
-- not over a minute that was mostly the pause.
ALTER TABLE runs ADD COLUMN resumed_at timestamptz;
