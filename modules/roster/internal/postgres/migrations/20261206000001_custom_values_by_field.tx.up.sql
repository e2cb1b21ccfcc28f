-- Merge tags (issue 26) read a team's values of a few fields:
-- roster_custom_values by field_id. Its primary key leads with member_id,
-- so without this index the read scans every value. Expand only.
CREATE INDEX IF NOT EXISTS roster_custom_values_field ON roster_custom_values (field_id);
