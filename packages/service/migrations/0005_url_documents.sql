-- Documents ingested from a URL are created before their bytes are fetched (by the worker), so their
-- size and hash are unknown until then.
ALTER TABLE documents ALTER COLUMN size_bytes DROP NOT NULL;
ALTER TABLE documents ALTER COLUMN sha256 DROP NOT NULL;
