-- A message's sent, delivered, failed and unconfirmed counts are spread
-- over shard rows, so that the status reports of one broadcast, ingested
-- at once on every node, do not all queue on its messaging_messages row.
-- A count is the message row's column plus the sum of its shards; the
-- queued count stays on the message row alone (the hand-over completes a
-- send when it reaches 0).
--
-- Expand only: the previous build neither reads nor writes this table, and
-- keeps every count on the message row, which this build adds in. While
-- both builds run, the previous one shows the counts it moved itself.
--
-- No foreign key to messaging_messages: checking one would take a lock on
-- the message row with every new shard row, the very wait this avoids
-- (and messages are never deleted).
CREATE TABLE messaging_message_counts (
    message_id  text NOT NULL,
    shard       smallint NOT NULL,
    sent        integer NOT NULL DEFAULT 0,
    delivered   integer NOT NULL DEFAULT 0,
    failed      integer NOT NULL DEFAULT 0,
    unconfirmed integer NOT NULL DEFAULT 0,
    PRIMARY KEY (message_id, shard)
);
