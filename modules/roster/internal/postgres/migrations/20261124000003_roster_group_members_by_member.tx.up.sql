-- A members page reads its members' group ids with member_id = ANY($1)
-- ORDER BY member_id, group_id: an index-only scan of this index, where the
-- member_id index alone left the planner a sequential scan of every
-- membership (1.8 ms per page of 200 on a 10,000-member team).
CREATE INDEX roster_group_members_member_group ON roster_group_members (member_id, group_id);
DROP INDEX roster_group_members_member;
