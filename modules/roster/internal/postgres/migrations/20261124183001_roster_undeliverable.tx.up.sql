-- Numbers that keep failing (issue 18). One row per team and number with a
-- streak of permanent delivery failures (a landline, no such number...):
-- since is set once the streak reaches UNDELIVERABLE_AFTER, and from then
-- on the number is undeliverable on every roster entry of the team with it.
-- A delivered text, an inbound text from the number or the admin's clear
-- delete the row. Keyed by number, not by member: the mark follows the
-- number onto entries added later.
CREATE TABLE IF NOT EXISTS roster_undeliverable (
  team_id        text        NOT NULL,
  phone          text        NOT NULL,
  failures       integer     NOT NULL,
  last_code      text        NOT NULL DEFAULT '',
  last_failed_at timestamptz NOT NULL,
  since          timestamptz,
  PRIMARY KEY (team_id, phone)
);
