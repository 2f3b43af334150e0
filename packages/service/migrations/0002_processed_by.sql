-- Which worker process finished a document: shows how work spreads over scaled worker containers.
ALTER TABLE documents ADD COLUMN processed_by text;
