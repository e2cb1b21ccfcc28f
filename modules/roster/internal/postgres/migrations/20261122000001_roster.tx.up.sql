-- Teams' identity and dashboard policies.
CREATE TABLE roster_teams (
    id                text PRIMARY KEY,
    name              text NOT NULL,
    code              text NOT NULL UNIQUE,
    number            text NOT NULL DEFAULT '',
    time_zone         text NOT NULL,
    approval_required boolean NOT NULL DEFAULT false,
    disabled          boolean NOT NULL DEFAULT false,
    locked            boolean NOT NULL DEFAULT false,
    created_at        timestamptz NOT NULL
);
-- Inbound texts find their team by number.
CREATE UNIQUE INDEX roster_teams_number ON roster_teams (number) WHERE number <> '';

-- Everyone on a roster, staff included. deleted_at keeps opted-out members on record.
CREATE TABLE roster_members (
    id                  text PRIMARY KEY,
    team_id             text NOT NULL REFERENCES roster_teams (id),
    name                text NOT NULL,
    phone               text NOT NULL,
    email               text NOT NULL DEFAULT '',
    role                text NOT NULL,
    status              text NOT NULL,
    is_blocked          boolean NOT NULL DEFAULT false,
    dashboard_login     boolean NOT NULL DEFAULT false,
    can_send_broadcasts boolean NOT NULL DEFAULT false,
    created_at          timestamptz NOT NULL,
    updated_at          timestamptz NOT NULL,
    deleted_at          timestamptz
);
CREATE INDEX roster_members_team_created ON roster_members (team_id, created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX roster_members_team_phone ON roster_members (team_id, phone);

-- API keys: only a lookup prefix and a SHA-256 of the key are stored.
CREATE TABLE roster_api_keys (
    id             text PRIMARY KEY,
    team_id        text NOT NULL REFERENCES roster_teams (id),
    member_id      text NOT NULL REFERENCES roster_members (id),
    name           text NOT NULL,
    lookup         text NOT NULL UNIQUE,
    hash           bytea NOT NULL,
    created_at     timestamptz NOT NULL,
    revoked_at     timestamptz,
    revoked_reason text NOT NULL DEFAULT ''
);
CREATE INDEX roster_api_keys_member ON roster_api_keys (team_id, member_id) WHERE revoked_at IS NULL;
