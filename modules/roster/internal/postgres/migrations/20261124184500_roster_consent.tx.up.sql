-- The consent record (issue 18, item 4). Each member keeps how and when they
-- agreed to receive texts; members added before this migration keep NULLs
-- (consent not recorded: teamtext does not invent evidence it never saw).
ALTER TABLE roster_members ADD COLUMN IF NOT EXISTS consent_source text;
ALTER TABLE roster_members ADD COLUMN IF NOT EXISTS consent_at timestamptz;
ALTER TABLE roster_members ADD COLUMN IF NOT EXISTS consent_evidence text;

-- Every consent fact about a team's number, in the order it happened:
-- consent given when a member is added, every STOP, START and HELP text,
-- every opt-out recorded through the API or by support. Written in the same
-- transaction as the change it records; never updated or deleted.
CREATE TABLE IF NOT EXISTS roster_consent_events (
    seq         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id          text NOT NULL UNIQUE,
    team_id     text NOT NULL,
    phone       text NOT NULL,
    member_id   text,
    kind        text NOT NULL,
    channel     text NOT NULL,
    changed     boolean NOT NULL,
    source      text,
    evidence    text,
    message_id  text,
    at          timestamptz NOT NULL,
    recorded_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS roster_consent_events_team_phone ON roster_consent_events (team_id, phone, at, seq);
