-- Which embedding model built a workspace's vectors. Search compares a query only with vectors of the
-- model (and dimension) recorded here; a different configured model re-embeds in the background and
-- takes over when every chunk has its vector (`complete`).
CREATE TABLE IF NOT EXISTS workspace_embeddings (
  workspace_id  text PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
  model         text NOT NULL,
  dimension     integer NOT NULL CHECK (dimension > 0),
  complete      boolean NOT NULL,
  updated_at    timestamptz NOT NULL DEFAULT now()
);
