-- Templates. Deleted templates are kept (deleted_at) so reusing the name restores them.
CREATE TABLE messaging_templates (
    id           text PRIMARY KEY,
    team_id      text NOT NULL,
    name         text NOT NULL,
    body         text NOT NULL,
    message_type text NOT NULL,
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    deleted_at   timestamptz
);
CREATE UNIQUE INDEX messaging_templates_team_name ON messaging_templates (team_id, lower(name));

-- Broadcasts. text is what the sender wrote; rendered is what each recipient gets.
CREATE TABLE messaging_messages (
    id             text PRIMARY KEY,
    team_id        text NOT NULL,
    key_id         text NOT NULL DEFAULT '',
    member_id      text NOT NULL DEFAULT '',
    source         text NOT NULL,
    audience       text NOT NULL,
    group_id       text NOT NULL DEFAULT '',
    template_id    text NOT NULL DEFAULT '',
    scheduled_id   text NOT NULL DEFAULT '',
    text           text NOT NULL,
    rendered       text NOT NULL,
    encoding       text NOT NULL,
    segments       integer NOT NULL,
    recipients     integer NOT NULL,
    status         text NOT NULL,
    urgent         boolean NOT NULL DEFAULT false,
    created_at     timestamptz NOT NULL,
    decided_at     timestamptz,
    decided_by     text NOT NULL DEFAULT '',
    sent_at        timestamptz
);
CREATE INDEX messaging_messages_team_created ON messaging_messages (team_id, created_at DESC, id DESC);
CREATE INDEX messaging_messages_team_status ON messaging_messages (team_id, status) WHERE status = 'pending_approval';

-- One row per recipient phone of a message.
CREATE TABLE messaging_deliveries (
    id                  text PRIMARY KEY,
    team_id             text NOT NULL,
    message_id          text NOT NULL REFERENCES messaging_messages (id),
    phone               text NOT NULL,
    member_ids          text[] NOT NULL,
    status              text NOT NULL,
    provider_message_id text NOT NULL DEFAULT '',
    carrier_status      text NOT NULL DEFAULT '',
    error_code          text NOT NULL DEFAULT '',
    error_message       text NOT NULL DEFAULT '',
    sent_at             timestamptz,
    updated_at          timestamptz NOT NULL,
    UNIQUE (message_id, phone)
);
CREATE INDEX messaging_deliveries_message ON messaging_deliveries (message_id, id);
CREATE INDEX messaging_deliveries_message_status ON messaging_deliveries (message_id, status);

-- Scheduled sends; a weekly series is one row whose scheduled_for moves on each week.
CREATE TABLE messaging_scheduled (
    id            text PRIMARY KEY,
    team_id       text NOT NULL,
    key_id        text NOT NULL DEFAULT '',
    member_id     text NOT NULL DEFAULT '',
    request       jsonb NOT NULL,
    scheduled_for timestamptz NOT NULL,
    repeat_every  text NOT NULL DEFAULT '',
    repeat_until  date,
    status        text NOT NULL,
    status_reason text NOT NULL DEFAULT '',
    runs          integer NOT NULL DEFAULT 0,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL
);
CREATE INDEX messaging_scheduled_team_pending ON messaging_scheduled (team_id, scheduled_for) WHERE status = 'pending';
CREATE INDEX messaging_scheduled_key ON messaging_scheduled (key_id) WHERE status = 'pending';

-- Idempotency-Key records of POST /messages, kept 24 hours.
CREATE TABLE messaging_idempotency (
    key_id       text NOT NULL,
    idem_key     text NOT NULL,
    request_hash bytea NOT NULL,
    status       integer NOT NULL,
    response     jsonb NOT NULL,
    created_at   timestamptz NOT NULL,
    PRIMARY KEY (key_id, idem_key)
);

-- The carrier simulator: what was handed to it (deduplicated on the
-- delivery's idempotency key) and the outcomes the admin set.
CREATE TABLE messaging_sim_outbox (
    id                  bigserial PRIMARY KEY,
    idempotency_key     text NOT NULL UNIQUE,
    team_id             text NOT NULL,
    to_phone            text NOT NULL,
    from_phone          text NOT NULL,
    body                text NOT NULL,
    provider_message_id text NOT NULL,
    created_at          timestamptz NOT NULL
);
CREATE INDEX messaging_sim_outbox_team ON messaging_sim_outbox (team_id, id);

CREATE TABLE messaging_sim_outcomes (
    id         int PRIMARY KEY CHECK (id = 1),
    default_outcome text NOT NULL,
    numbers    jsonb NOT NULL,
    error_code text NOT NULL
);
INSERT INTO messaging_sim_outcomes VALUES (1, 'delivered', '{}', '30003');
