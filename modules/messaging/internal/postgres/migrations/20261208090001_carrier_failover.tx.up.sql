-- Failover between a team's carrier accounts. Expand only: the previous
-- build never reads these columns or the table, and their defaults (off,
-- NULL) are what it did.
--
-- carrier_failover: the team's choice to move its queued texts to its
-- numbers on healthy accounts while one account is down.
ALTER TABLE messaging_settings ADD COLUMN carrier_failover boolean NOT NULL DEFAULT false;

-- Carrier accounts whose breaker is open on some node: since when (the
-- first node to open it), and when a node last saw a call fail. A node's
-- first successful call to the account deletes the row. The times are the
-- database's clock, so every node compares them alike.
CREATE TABLE messaging_carrier_outages (
    account_id text PRIMARY KEY,
    since      timestamptz NOT NULL,
    seen_at    timestamptz NOT NULL
);

-- The number a delivery was handed over from (E.164 or a short code), set
-- with its hand-over; NULL before, and for deliveries handed over by
-- earlier builds. A nullable column without a default is added without
-- rewriting the table.
ALTER TABLE messaging_deliveries ADD COLUMN sent_from text;
