-- Issue 15: an import writes a member and its group membership per row, and
-- each row's foreign-key checks were a third of Postgres's work per
-- imported member (three per row: the member's team, the membership's
-- group and member — an SPI query and a tuple lock each; 74–83 µs of
-- Postgres CPU per member with them, 52 µs without, in the bench's
-- roster-copy-all rows). The rules they kept are kept here, set-based:
--
-- * A membership's group and member exist when it is written: the writers
--   lock them FOR KEY SHARE themselves, as the check did — AddToGroup in its
--   INSERT ... SELECT, the import once per chunk for the chunk's groups (its
--   members are written in the same transaction). A group or member deleted
--   first makes the insert write nothing; one deleted after waits for the
--   writer's commit, then takes its memberships with it (below).
-- * Deleting a group or member deletes its memberships (was ON DELETE
--   CASCADE): a statement trigger, so every writer gets it. Its DELETE runs
--   with a fresh snapshot (the function is VOLATILE), after the rows' locks
--   were waited for, so it sees the memberships of a writer that committed
--   meanwhile.
-- * A member's team exists: teams are never deleted (no statement deletes
--   from roster_teams), and every path that adds members reads the team
--   first (the gate's key, the admin API's team lookup).
ALTER TABLE roster_members DROP CONSTRAINT IF EXISTS roster_members_team_id_fkey;
ALTER TABLE roster_group_members DROP CONSTRAINT IF EXISTS roster_group_members_group_id_fkey;
ALTER TABLE roster_group_members DROP CONSTRAINT IF EXISTS roster_group_members_member_id_fkey;

CREATE OR REPLACE FUNCTION roster_drop_memberships_of_groups() RETURNS trigger LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    DELETE FROM roster_group_members gm USING gone WHERE gm.group_id = gone.id;
    RETURN NULL;
END
$$;
DROP TRIGGER IF EXISTS roster_groups_drop_memberships ON roster_groups;
CREATE TRIGGER roster_groups_drop_memberships AFTER DELETE ON roster_groups
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION roster_drop_memberships_of_groups();

CREATE OR REPLACE FUNCTION roster_drop_memberships_of_members() RETURNS trigger LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    DELETE FROM roster_group_members gm USING gone WHERE gm.member_id = gone.id;
    RETURN NULL;
END
$$;
DROP TRIGGER IF EXISTS roster_members_drop_memberships ON roster_members;
CREATE TRIGGER roster_members_drop_memberships AFTER DELETE ON roster_members
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION roster_drop_memberships_of_members();
