-- Drip campaigns. generation goes up on every pause, resume and cancel:
-- a step job carries the generation it was scheduled under and does nothing
-- once it no longer matches, so jobs never need deleting.
CREATE TABLE campaigns (
    id           text PRIMARY KEY,
    team_id      text NOT NULL,
    name         text NOT NULL,
    audience     text NOT NULL,
    group_id     text NOT NULL DEFAULT '',
    status       text NOT NULL,
    generation   integer NOT NULL DEFAULT 1,
    created_by   text NOT NULL,
    created_at   timestamptz NOT NULL,
    started_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    paused_at    timestamptz,
    cancelled_at timestamptz,
    completed_at timestamptz,
    CHECK (status IN ('scheduled', 'paused', 'cancelled', 'completed'))
);
CREATE INDEX campaigns_team_created ON campaigns (team_id, created_at DESC, id DESC);

-- A campaign's steps. due_at is fixed at creation: send_at, or the
-- campaign's start plus delay_seconds.
CREATE TABLE campaign_steps (
    id            text PRIMARY KEY,
    team_id       text NOT NULL,
    campaign_id   text NOT NULL REFERENCES campaigns (id),
    position      integer NOT NULL,
    send_at       timestamptz,
    delay_seconds bigint,
    due_at        timestamptz NOT NULL,
    text          text NOT NULL DEFAULT '',
    template_id   text NOT NULL DEFAULT '',
    urgent        boolean NOT NULL DEFAULT false,
    status        text NOT NULL,
    message_id    text NOT NULL DEFAULT '',
    error_code    text NOT NULL DEFAULT '',
    error_message text NOT NULL DEFAULT '',
    sent_at       timestamptz,
    updated_at    timestamptz NOT NULL,
    UNIQUE (campaign_id, position),
    CHECK (status IN ('pending', 'sent', 'failed', 'skipped', 'cancelled')),
    CHECK ((send_at IS NULL) <> (delay_seconds IS NULL))
);
