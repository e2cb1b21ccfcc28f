-- The rate-limit rings are written on every authenticated request: as an
-- unlogged table they write no WAL, so a request's limiter check no longer
-- waits for a WAL flush at its commit. What that gives up: after a crash of
-- Postgres the table is emptied (every bucket starts afresh, as after an
-- idle window), and a streaming standby holds no rows (after a fail-over,
-- likewise). Limits stay exact across nodes: every node checks the same
-- primary. Re-running this on an unlogged table changes nothing.
ALTER TABLE platform_rate_limits SET UNLOGGED;
