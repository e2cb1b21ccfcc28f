-- The staff dashboard's sign-in (DASHBOARD.md): one-time codes, kept as a
-- salted hash, and sessions, kept as a hash of the cookie's token.
CREATE TABLE roster_signin_codes (
    id         text PRIMARY KEY,
    identity   text NOT NULL,          -- E.164 phone or lower-case e-mail
    salt       bytea NOT NULL,
    hash       bytea NOT NULL,
    attempts   integer NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX roster_signin_codes_identity ON roster_signin_codes (identity, created_at DESC);

CREATE TABLE roster_sessions (
    id         text PRIMARY KEY,
    token_hash bytea NOT NULL UNIQUE,
    identity   text NOT NULL,
    member_id  text NOT NULL REFERENCES roster_members (id) ON DELETE CASCADE,
    picked     boolean NOT NULL DEFAULT false,
    csrf       text NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
);
CREATE INDEX roster_sessions_member ON roster_sessions (member_id);

-- Every dashboard write: who, what, which object, when, from where.
CREATE TABLE roster_activity (
    id         text PRIMARY KEY,
    team_id    text NOT NULL REFERENCES roster_teams (id),
    member_id  text NOT NULL,
    action     text NOT NULL,
    object     text NOT NULL DEFAULT '',
    client_ip  text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL
);
CREATE INDEX roster_activity_team ON roster_activity (team_id, created_at DESC, id DESC);
