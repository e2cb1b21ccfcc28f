-- Sliding logs of admitted hits, one row per limited subject ("requests:<key id>",
-- "ip:<address>", ...). The row lock taken by INSERT ... ON CONFLICT DO UPDATE
-- serialises checks of one bucket across every node.
CREATE TABLE platform_rate_limits (
    bucket   text PRIMARY KEY,
    hits     timestamptz[] NOT NULL,
    admitted boolean NOT NULL
);
