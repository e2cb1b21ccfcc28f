-- The import probes a team's live entries by phone, one index probe per
-- phone. With the partial index on (team_id, created_at, id) as its only
-- partial rival, the planner sometimes took that one while the statistics
-- still described a smaller table, and filtered every member of the team
-- for each phone. This index matches the probe exactly whatever the
-- statistics say.
CREATE INDEX roster_members_team_phone_live ON roster_members (team_id, phone) WHERE deleted_at IS NULL;
