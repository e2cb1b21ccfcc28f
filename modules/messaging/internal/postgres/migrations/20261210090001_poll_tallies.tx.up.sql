-- A poll's tallies, kept as counts per option. GET /messages/{id}/responses
-- counted a big poll's answers on every request (10,000 index entries for a
-- 10,000-recipient poll); it now reads a row per option.
--
-- The counts are kept by statement triggers on messaging_responses, from
-- the statement's transition tables: whoever writes answers (this build, or
-- a node of the previous one still running during an upgrade) keeps them
-- exact, and a changed answer moves one count from its old option to its
-- new one with the old row as it really was, whatever ran concurrently.
-- A poll's counts are split over 8 shards, as the daily analytics counters
-- are: a transaction adds its changes to the shard of its transaction id,
-- so concurrent filing batches answering the same poll (which hold their
-- counts' row locks until they commit) seldom wait on each other. Each
-- statement adds its changes in one INSERT ... ON CONFLICT, its rows in
-- (message_id, option) order, so two batches on the same shard wait,
-- never deadlock. A poll's tally is the sum of its shards.
CREATE TABLE IF NOT EXISTS messaging_poll_tallies (
    message_id text NOT NULL REFERENCES messaging_messages (id),
    option     text NOT NULL,
    shard      smallint NOT NULL,
    count      integer NOT NULL,
    PRIMARY KEY (message_id, option, shard)
);

-- The answers recorded before this migration are counted below. The table
-- lock, taken first, keeps a node of the previous build from recording an
-- answer between that count and the triggers (it waits for this
-- migration's commit, and the triggers count its answers).
LOCK TABLE messaging_responses IN SHARE ROW EXCLUSIVE MODE;

CREATE OR REPLACE FUNCTION messaging_poll_tallies_add(message_ids text[], options text[], deltas integer[]) RETURNS void
LANGUAGE sql VOLATILE AS $$
    INSERT INTO messaging_poll_tallies AS t (message_id, option, shard, count)
    SELECT m, o, (txid_current() % 8)::smallint, sum(d) FROM unnest(message_ids, options, deltas) AS v(m, o, d)
    GROUP BY m, o HAVING sum(d) <> 0 ORDER BY m, o
    ON CONFLICT (message_id, option, shard) DO UPDATE SET count = t.count + excluded.count
$$;

CREATE OR REPLACE FUNCTION messaging_poll_tallies_inserted() RETURNS trigger LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM messaging_poll_tallies_add(array_agg(message_id), array_agg(option), array_agg(1)) FROM added HAVING count(*) > 0;
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION messaging_poll_tallies_updated() RETURNS trigger LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM messaging_poll_tallies_add(array_agg(m), array_agg(o), array_agg(d))
    FROM (SELECT message_id, option, 1 FROM now_rows UNION ALL SELECT message_id, option, -1 FROM was_rows) AS v(m, o, d)
    HAVING count(*) > 0;
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION messaging_poll_tallies_deleted() RETURNS trigger LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM messaging_poll_tallies_add(array_agg(message_id), array_agg(option), array_agg(-1)) FROM gone HAVING count(*) > 0;
    RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS messaging_responses_tally_insert ON messaging_responses;
CREATE TRIGGER messaging_responses_tally_insert AFTER INSERT ON messaging_responses
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION messaging_poll_tallies_inserted();
DROP TRIGGER IF EXISTS messaging_responses_tally_update ON messaging_responses;
CREATE TRIGGER messaging_responses_tally_update AFTER UPDATE ON messaging_responses
    REFERENCING OLD TABLE AS was_rows NEW TABLE AS now_rows FOR EACH STATEMENT EXECUTE FUNCTION messaging_poll_tallies_updated();
DROP TRIGGER IF EXISTS messaging_responses_tally_delete ON messaging_responses;
CREATE TRIGGER messaging_responses_tally_delete AFTER DELETE ON messaging_responses
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION messaging_poll_tallies_deleted();

DELETE FROM messaging_poll_tallies;
INSERT INTO messaging_poll_tallies (message_id, option, shard, count)
SELECT message_id, option, 0, count(*) FROM messaging_responses GROUP BY message_id, option;

-- The answers' per-option index served only the count the tallies replace;
-- every answer written paid for it.
DROP INDEX IF EXISTS messaging_responses_option;
