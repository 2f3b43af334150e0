-- A folder sync lists a file whose size or time moved without reading it (issue 27): its document is
-- queued as a new version, and the worker that reads it compares its bytes with the version still
-- indexed. The same bytes (a touched file) put the document back as it was, in the run it came from.
ALTER TABLE documents ADD COLUMN indexed_sha256 text, ADD COLUMN indexed_run_id text;
