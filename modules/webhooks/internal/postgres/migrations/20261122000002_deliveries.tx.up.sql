-- Every statement is idempotent (IF NOT EXISTS), so that the module's
-- history can be applied again after its bookkeeping rows were removed.

-- Subscriptions. The secret is kept as given to the integrator: every
-- delivery is signed with it. owner_id is the member a dashboard-made
-- webhook acts for (its creator until another key owner turns it back on);
-- key_id is the API key an API-made webhook was created with.
CREATE TABLE IF NOT EXISTS webhooks (
    id                   text PRIMARY KEY,
    team_id              text NOT NULL,
    url                  text NOT NULL,
    events               text[] NOT NULL,
    secret               text NOT NULL,
    source               text NOT NULL CHECK (source IN ('api', 'dashboard')),
    created_by           text NOT NULL,
    owner_id             text NOT NULL,
    key_id               text,
    enabled              boolean NOT NULL DEFAULT true,
    disabled_reason      text,
    consecutive_failures integer NOT NULL DEFAULT 0,
    created_at           timestamptz NOT NULL,
    updated_at           timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS webhooks_team_created ON webhooks (team_id, created_at, id);
CREATE INDEX IF NOT EXISTS webhooks_team_key ON webhooks (team_id, key_id) WHERE key_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS webhooks_team_owner ON webhooks (team_id, owner_id) WHERE source = 'dashboard';

-- A webhook.test event names the one webhook it is for.
ALTER TABLE webhook_events ADD COLUMN IF NOT EXISTS webhook_id text;

-- One delivery per (event, webhook): its id is X-Service-Delivery and stays
-- the same across retries. state: pending, succeeded, abandoned (every
-- attempt failed) or cancelled (the webhook was turned off). attempts counts
-- the recorded attempts; a worker records attempt n only while it is n-1.
-- event_id names a webhook_events row; it has no foreign key so that the
-- event log's table can be rebuilt on its own.
CREATE TABLE IF NOT EXISTS webhook_deliveries (
    id              text PRIMARY KEY,
    team_id         text NOT NULL,
    event_id        text NOT NULL,
    webhook_id      text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    state           text NOT NULL CHECK (state IN ('pending', 'succeeded', 'abandoned', 'cancelled')),
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    UNIQUE (event_id, webhook_id)
);
CREATE INDEX IF NOT EXISTS webhook_deliveries_webhook ON webhook_deliveries (webhook_id);

-- Every attempt, as the dashboard's attempts log shows it.
CREATE TABLE IF NOT EXISTS webhook_attempts (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    team_id         text NOT NULL,
    webhook_id      text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    delivery_id     text NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    event_id        text NOT NULL,
    attempt         integer NOT NULL,
    attempted_at    timestamptz NOT NULL,
    duration_us     bigint NOT NULL,
    status_code     integer,
    error           text,
    success         boolean NOT NULL,
    next_attempt_at timestamptz,
    UNIQUE (delivery_id, attempt)
);
CREATE INDEX IF NOT EXISTS webhook_attempts_webhook ON webhook_attempts (team_id, webhook_id, attempted_at DESC, id DESC);

-- E-mail the service sent or meant to send (the notifications log).
-- status: recorded (no SMTP relay configured), queued, sent, failed,
-- no_address (the member has no e-mail address).
CREATE TABLE IF NOT EXISTS webhook_notifications (
    id         text PRIMARY KEY,
    team_id    text NOT NULL,
    member_id  text NOT NULL DEFAULT '',
    to_address text NOT NULL,
    subject    text NOT NULL,
    body       text NOT NULL,
    status     text NOT NULL,
    error      text,
    created_at timestamptz NOT NULL,
    sent_at    timestamptz
);
CREATE INDEX IF NOT EXISTS webhook_notifications_team ON webhook_notifications (team_id, created_at DESC, id DESC);
