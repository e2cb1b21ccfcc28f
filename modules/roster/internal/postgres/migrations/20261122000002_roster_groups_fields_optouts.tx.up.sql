-- Groups and membership.
CREATE TABLE roster_groups (
    id         text PRIMARY KEY,
    team_id    text NOT NULL REFERENCES roster_teams (id),
    name       text NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX roster_groups_team_name ON roster_groups (team_id, lower(name));

CREATE TABLE roster_group_members (
    group_id   text NOT NULL REFERENCES roster_groups (id) ON DELETE CASCADE,
    member_id  text NOT NULL REFERENCES roster_members (id) ON DELETE CASCADE,
    team_id    text NOT NULL,
    PRIMARY KEY (group_id, member_id)
);
CREATE INDEX roster_group_members_member ON roster_group_members (member_id);

-- Custom roster columns and their values.
CREATE TABLE roster_custom_fields (
    id         text PRIMARY KEY,
    team_id    text NOT NULL REFERENCES roster_teams (id),
    label      text NOT NULL,
    key        text NOT NULL,
    private    boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX roster_custom_fields_team_key ON roster_custom_fields (team_id, key);
CREATE UNIQUE INDEX roster_custom_fields_team_label ON roster_custom_fields (team_id, lower(label));

CREATE TABLE roster_custom_values (
    field_id  text NOT NULL REFERENCES roster_custom_fields (id) ON DELETE CASCADE,
    member_id text NOT NULL REFERENCES roster_members (id) ON DELETE CASCADE,
    value     text NOT NULL,
    PRIMARY KEY (member_id, field_id)
);

-- Every opted-out number of a team, on the roster or not: the API will not
-- add it again. Removed only by an inbound START.
CREATE TABLE roster_opt_outs (
    team_id    text NOT NULL REFERENCES roster_teams (id),
    phone      text NOT NULL,
    source     text NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (team_id, phone)
);
CREATE INDEX roster_opt_outs_team_created ON roster_opt_outs (team_id, created_at, phone);

-- Filters of GET /members.
CREATE INDEX roster_members_team_email ON roster_members (team_id, lower(email)) WHERE deleted_at IS NULL;
CREATE INDEX roster_members_team_role ON roster_members (team_id, role, created_at, id) WHERE deleted_at IS NULL;
