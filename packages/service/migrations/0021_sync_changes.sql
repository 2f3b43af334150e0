-- What a sync found when it listed its source (issue 43): items added, changed, deleted and unchanged,
-- recorded when it applies them, so that a sync that found nothing new can say so even after its
-- documents moved on to later runs. {"added": n, "changed": n, "deleted": n, "unchanged": n}; null
-- for other runs, and for a sync that was cancelled or failed before it applied anything.
ALTER TABLE runs ADD COLUMN changes jsonb;
