-- What a sync skipped because no worker can read it (an archive, binary content, a file over the
-- size limit, an image without an OCR worker): counted with the reasons on the sync's run instead of
-- becoming failed documents (issue 28). {"total": n, "reasons": [{"reason", "count", "examples"}]}.
ALTER TABLE runs ADD COLUMN skipped jsonb;
