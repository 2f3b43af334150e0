-- Webhook deliveries shared among accounts and endpoints (issue 26): a worker takes due deliveries
-- round-robin across accounts and their endpoints, at most WEBHOOK_ENDPOINT_CONCURRENCY in flight
-- per endpoint, and an endpoint whose last attempt went unanswered for most of the time limit waits
-- (`paused_until`, longer after each such attempt in a row: `slow_attempts`) before it may hold a
-- worker's slot again.
ALTER TABLE webhook_endpoints ADD COLUMN paused_until timestamptz;
ALTER TABLE webhook_endpoints ADD COLUMN slow_attempts integer NOT NULL DEFAULT 0;
CREATE INDEX webhook_deliveries_endpoint_due ON webhook_deliveries (endpoint_id, next_attempt_at)
  WHERE status = 'pending';
