-- Headers (for example Authorization) that the worker sends when fetching a protected URL. Stored
-- encrypted (AES-256-GCM, see src/domain/secrets.ts) and erased once the URL has been fetched.
ALTER TABLE documents ADD COLUMN fetch_headers text;
