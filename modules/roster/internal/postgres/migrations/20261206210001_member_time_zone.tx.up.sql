-- A member's own time zone (issue 29, quiet hours): an IANA name such as
-- America/Chicago, '' when unset (the phone's area code decides). Expand
-- only: every existing member is unset.
ALTER TABLE roster_members ADD COLUMN IF NOT EXISTS time_zone text NOT NULL DEFAULT '';
