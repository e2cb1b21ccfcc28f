-- The import probes a team's live entries one phone at a time. On (team_id,
-- phone), the planner still took other partial indexes led by team_id (the
-- e-mail one, say) with stale statistics and a generic plan, and filtered
-- every member of the team for each phone. An expression over both columns
-- has this index alone to serve it, whatever the statistics say.
DROP INDEX roster_members_team_phone_live;
CREATE INDEX roster_members_team_phone_key ON roster_members ((team_id || ' ' || phone)) WHERE deleted_at IS NULL;
