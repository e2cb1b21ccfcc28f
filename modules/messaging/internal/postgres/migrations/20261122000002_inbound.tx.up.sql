-- Texts people send to a team's number (spec §2 "Inbound text"). The member
-- columns are a snapshot of the roster entry chosen when the text arrived,
-- so the list shows what the message.received event said. A text received
-- while the team's renewal is overdue is held: stored and acted on (STOP,
-- START, HELP), but neither listed nor announced until payment succeeds.
CREATE TABLE messaging_inbound (
    id                  text PRIMARY KEY,
    team_id             text NOT NULL,
    provider_message_id text NOT NULL,
    from_phone          text NOT NULL,
    to_phone            text NOT NULL,
    body                text NOT NULL,
    keyword             text,
    group_id            text,
    member_id           text,
    member_name         text,
    member_role         text,
    received_at         timestamptz NOT NULL,
    held                boolean NOT NULL DEFAULT false,
    released_at         timestamptz,
    read_at             timestamptz,
    replied_at          timestamptz,
    reply_body          text,
    reply_member_id     text,
    reply_sent_at       timestamptz,
    created_at          timestamptz NOT NULL
);
-- A carrier retrying its callback must not create a second text.
CREATE UNIQUE INDEX messaging_inbound_provider ON messaging_inbound (provider_message_id);
-- GET /inbound-messages: visible texts, newest first.
CREATE INDEX messaging_inbound_team_received ON messaging_inbound (team_id, received_at DESC, id DESC) WHERE NOT held;
-- GET /inbox: visible texts that are not keywords.
CREATE INDEX messaging_inbound_inbox ON messaging_inbound (team_id, received_at DESC, id DESC) WHERE NOT held AND keyword IS NULL;
CREATE INDEX messaging_inbound_unread ON messaging_inbound (team_id) WHERE NOT held AND keyword IS NULL AND read_at IS NULL;
-- Held texts, released in arrival order.
CREATE INDEX messaging_inbound_held ON messaging_inbound (team_id, received_at, id) WHERE held;

-- Texts sent to one person in answer to an inbound text: the HELP reply
-- (kind help) and staff replies from the dashboard (kind staff). They are
-- not broadcasts; the reply job hands them to the carrier with the reply id
-- as the idempotency key.
CREATE TABLE messaging_replies (
    id                  text PRIMARY KEY,
    team_id             text NOT NULL,
    inbound_id          text NOT NULL REFERENCES messaging_inbound (id),
    kind                text NOT NULL,
    member_id           text,
    to_phone            text NOT NULL,
    body                text NOT NULL,
    segments            integer NOT NULL,
    status              text NOT NULL,
    provider_message_id text NOT NULL DEFAULT '',
    error_code          text NOT NULL DEFAULT '',
    created_at          timestamptz NOT NULL,
    sent_at             timestamptz
);
CREATE INDEX messaging_replies_inbound ON messaging_replies (inbound_id, created_at);

-- Per-team messaging settings from the dashboard. help_text NULL means the
-- default HELP reply built from the team name.
CREATE TABLE messaging_settings (
    team_id    text PRIMARY KEY,
    help_text  text,
    updated_at timestamptz NOT NULL
);

-- Analytics, pre-aggregated per team per UTC day in the transactions that
-- write the facts (dispatch, delivery status ingestion, inbound ingestion).
-- Each fact adds to one of a few shard rows (chosen by a hash of the fact's
-- id) so that concurrent writers of one team and day rarely wait on the
-- same row lock; readers sum the shards.
CREATE TABLE messaging_daily_stats (
    team_id        text NOT NULL,
    day            date NOT NULL,
    shard          smallint NOT NULL,
    broadcasts     bigint NOT NULL DEFAULT 0,
    deliveries     bigint NOT NULL DEFAULT 0,
    delivered      bigint NOT NULL DEFAULT 0,
    texts_received bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (team_id, day, shard)
);

-- message.received's group_id: the group of the latest broadcast the sender's
-- number was sent (delivery ids are UUIDv7, so they sort by creation).
CREATE INDEX messaging_deliveries_team_phone ON messaging_deliveries (team_id, phone, id DESC);
