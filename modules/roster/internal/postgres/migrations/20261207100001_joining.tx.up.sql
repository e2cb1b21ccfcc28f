-- Joining by text and on the web (issue 28). Expand only: the previous
-- build never reads these.

-- Whether a new joiner waits for a coach's approval (pending) or is active
-- at once. Existing teams keep the safe default: approval required.
ALTER TABLE roster_teams ADD COLUMN IF NOT EXISTS join_approval_required boolean NOT NULL DEFAULT true;

-- Sign-up-by-text conversations: a join keyword from a number not on the
-- roster opens one (awaiting_name); the next text is the name. At most one
-- open conversation per team and number. Each step keys on the inbound
-- text that made it (keyword_message_id, name_message_id), so a text is
-- acted on once. The retention job deletes conversations 30 days after
-- they started (the member's consent row keeps the evidence).
CREATE TABLE IF NOT EXISTS roster_join_conversations (
    id                 text PRIMARY KEY,
    team_id            text NOT NULL REFERENCES roster_teams (id),
    phone              text NOT NULL,
    role               text NOT NULL,
    state              text NOT NULL,
    keyword            text NOT NULL,
    keyword_message_id text NOT NULL UNIQUE,
    name_message_id    text UNIQUE,
    member_id          text,
    started_at         timestamptz NOT NULL,
    expires_at         timestamptz NOT NULL,
    updated_at         timestamptz NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS roster_join_conversations_open ON roster_join_conversations (team_id, phone) WHERE state = 'awaiting_name';
CREATE INDEX IF NOT EXISTS roster_join_conversations_updated ON roster_join_conversations (updated_at) WHERE state <> 'awaiting_name';

-- Web sign-up codes (GET /join/{team_code}): the 6-digit code texted to
-- the phone, kept as a salted hash with what the form said, until it is
-- confirmed, dies of wrong tries or expires.
CREATE TABLE IF NOT EXISTS roster_join_codes (
    id                 text PRIMARY KEY,
    team_id            text NOT NULL REFERENCES roster_teams (id),
    phone              text NOT NULL,
    name               text NOT NULL,
    role               text NOT NULL,
    disclosure_version text NOT NULL,
    client_ip          text NOT NULL DEFAULT '',
    salt               bytea NOT NULL,
    hash               bytea NOT NULL,
    attempts           integer NOT NULL DEFAULT 0,
    created_at         timestamptz NOT NULL,
    expires_at         timestamptz NOT NULL,
    used_at            timestamptz
);
CREATE INDEX IF NOT EXISTS roster_join_codes_phone ON roster_join_codes (team_id, phone, created_at DESC);
CREATE INDEX IF NOT EXISTS roster_join_codes_expires ON roster_join_codes (expires_at);
