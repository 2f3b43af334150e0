-- Webhook endpoints an account registered, with the events each wants. The signing secret is stored
-- encrypted (AES-256-GCM, src/domain/secrets.ts) and shown to its owner once, when it is created.
CREATE TABLE webhook_endpoints (
  id           text PRIMARY KEY,
  account_id   text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  url          text NOT NULL,
  events       text[] NOT NULL,
  description  text,
  secret       text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id, created_at);

-- The outbox: an event is written in the transaction that changes the state it announces, so a
-- committed change always has its event, and a rolled-back one never. `body` is the exact JSON that
-- is signed and sent, the same bytes on every attempt.
CREATE TABLE webhook_events (
  id          text PRIMARY KEY,
  account_id  text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  type        text NOT NULL,
  body        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_events_created ON webhook_events (created_at);

-- One event to one endpoint. A worker claims a due delivery by moving `next_attempt_at` past the
-- attempt's time limit under a claim token: a worker that dies mid-attempt leaves it due again.
CREATE TABLE webhook_deliveries (
  id               text PRIMARY KEY,
  event_id         text NOT NULL REFERENCES webhook_events(id) ON DELETE CASCADE,
  endpoint_id      text NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  status           text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz,
  -- Retries go on for WEBHOOK_RETRY_HOURS from here (the event, or the last manual redelivery).
  retry_from       timestamptz NOT NULL DEFAULT now(),
  manual           boolean NOT NULL DEFAULT false,
  claim            text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  finished_at      timestamptz,
  UNIQUE (event_id, endpoint_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, id DESC);

-- Every attempt, as its owner sees it under GET /v1/webhooks/{id}/deliveries. An attempt whose worker
-- stopped before it finished is closed with an error when the delivery is next claimed.
CREATE TABLE webhook_attempts (
  delivery_id  text NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  number       integer NOT NULL,
  manual       boolean NOT NULL,
  started_at   timestamptz NOT NULL DEFAULT now(),
  finished_at  timestamptz,
  status_code  integer,
  error        text,
  response     text,
  PRIMARY KEY (delivery_id, number)
);
