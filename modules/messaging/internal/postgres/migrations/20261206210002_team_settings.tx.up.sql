-- A team's quiet hours (issue 29), beside its HELP reply in the team's
-- messaging settings row. quiet_enabled NULL means "the operator's default"
-- (QUIET_HOURS_DEFAULT), so a team that never chose follows the operator.
-- quiet_start and quiet_end are local times of day, HH:MM, in each
-- recipient's time zone. Expand only: NULL and constant defaults add the
-- columns without rewriting the table, and the previous build's writes
-- (help_text) leave them at their defaults.
ALTER TABLE messaging_settings
    ADD COLUMN quiet_enabled boolean,
    ADD COLUMN quiet_start   text NOT NULL DEFAULT '21:00',
    ADD COLUMN quiet_end     text NOT NULL DEFAULT '08:00';
