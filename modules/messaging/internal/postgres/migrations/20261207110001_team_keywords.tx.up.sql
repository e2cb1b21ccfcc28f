-- A team's keywords (issue 28): a word someone texts to a team number to
-- get its automatic reply, and, when they are on the roster, to join its
-- group. keyword is stored upper case (letters and digits), unique per
-- team; group_id is roster's group (no foreign key across modules; a group
-- deleted later leaves the keyword answering without joining anyone).
CREATE TABLE messaging_keywords (
    id         text PRIMARY KEY,
    team_id    text NOT NULL,
    keyword    text NOT NULL,
    reply      text NOT NULL,
    group_id   text,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX messaging_keywords_team_keyword ON messaging_keywords (team_id, keyword);
