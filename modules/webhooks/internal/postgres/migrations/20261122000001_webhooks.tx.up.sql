-- The event log: every published event, stored once, exactly as it will be
-- sent (json keeps the bytes). skipped: the team was below Team Plus when it
-- happened, so it is never sent.
CREATE TABLE webhook_events (
    id         text PRIMARY KEY,
    team_id    text NOT NULL,
    type       text NOT NULL,
    created_at timestamptz NOT NULL,
    body       json NOT NULL,
    skipped    boolean NOT NULL
);
CREATE INDEX webhook_events_team_created ON webhook_events (team_id, created_at);
