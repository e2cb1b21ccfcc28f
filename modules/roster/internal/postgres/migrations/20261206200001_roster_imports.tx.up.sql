-- Browser imports: a CSV file uploaded from the dashboard's roster page is
-- kept here while a River job (roster.import_members) imports it, so that
-- the page can show its progress from any node, and its rejected rows stay
-- downloadable afterwards. The file is dropped once the import finished;
-- the rejected rows (as CSV) and their outcomes are kept. Expand only.
CREATE TABLE IF NOT EXISTS roster_imports (
    id          text PRIMARY KEY,
    team_id     text NOT NULL REFERENCES roster_teams (id),
    member_id   text NOT NULL,
    file_name   text NOT NULL DEFAULT '',
    file        bytea,
    status      text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed')),
    total_rows  integer NOT NULL DEFAULT 0,
    done_rows   integer NOT NULL DEFAULT 0,
    created     integer NOT NULL DEFAULT 0,
    failed      integer NOT NULL DEFAULT 0,
    rejected    jsonb NOT NULL DEFAULT '[]',
    rejected_csv bytea,
    error       text NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz
);
CREATE INDEX IF NOT EXISTS roster_imports_team ON roster_imports (team_id, created_at DESC);
