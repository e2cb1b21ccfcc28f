-- Delivery statuses reported by a carrier and not yet ingested. A carrier's
-- status callback only inserts its row here (and notifies the filers), as
-- an inbound text's does into messaging_inbound_pending; the filers take a
-- lane's rows in batches and ingest each batch in one transaction. One
-- ingestion job per callback cost more than the hand-over it reported on,
-- and every one of them moved its message's counts on the message row, so a
-- broadcast's reports queued on that row one transaction at a time.
--
-- The lane is a hash of the delivery's message (of the delivery id when it
-- is not a broadcast's), and one filer at a time works a lane, so no two
-- batches ever move the counts of one message at once (they would wait on
-- each other, or deadlock taking two messages in opposite orders).
CREATE TABLE IF NOT EXISTS messaging_status_pending (
    id                  bigserial PRIMARY KEY,
    lane                smallint NOT NULL,
    delivery_id         text NOT NULL,
    provider_message_id text NOT NULL,
    status              text NOT NULL,
    carrier_status      text NOT NULL,
    error_code          text NOT NULL,
    error_message       text NOT NULL,
    -- When the carrier says the status happened; null when it did not say.
    reported_at         timestamptz,
    staged_at           timestamptz NOT NULL,
    -- Times the status failed to be ingested on its own (a batch that fails
    -- is ingested again status by status); at MaxAttempts it is set aside,
    -- for an operator to read last_error, and its lane moves on.
    attempts            smallint NOT NULL DEFAULT 0,
    last_error          text
);
CREATE INDEX IF NOT EXISTS messaging_status_pending_lane ON messaging_status_pending (lane, id);
