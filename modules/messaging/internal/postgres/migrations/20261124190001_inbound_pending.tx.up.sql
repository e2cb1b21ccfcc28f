-- Inbound texts accepted from the carrier and not yet filed (issue 15). A
-- carrier callback only inserts its row here (and notifies the filers);
-- the filers take rows in batches, lane by lane, and file each batch in one
-- transaction (messaging_inbound, keywords, message.received). The lane is
-- a hash of the sender's number, and one filer at a time works a lane, so
-- a number's texts are filed in the order they came. A text already here
-- under its provider id is a carrier retry: not staged twice.
CREATE TABLE IF NOT EXISTS messaging_inbound_pending (
    id                  bigserial PRIMARY KEY,
    provider_message_id text NOT NULL,
    from_phone          text NOT NULL,
    to_phone            text NOT NULL,
    body                text NOT NULL,
    keyword             boolean NOT NULL,
    lane                smallint NOT NULL,
    received_at         timestamptz NOT NULL,
    -- Times the text failed to be filed on its own (a batch that fails is
    -- filed again text by text); at MaxAttempts it is set aside, for an
    -- operator to read last_error, and its lane moves on.
    attempts            smallint NOT NULL DEFAULT 0,
    last_error          text
);
CREATE UNIQUE INDEX IF NOT EXISTS messaging_inbound_pending_provider ON messaging_inbound_pending (provider_message_id);
CREATE INDEX IF NOT EXISTS messaging_inbound_pending_lane ON messaging_inbound_pending (lane, id);
-- Keyword texts (STOP, START, HELP) go first, with their numbers' earlier texts.
CREATE INDEX IF NOT EXISTS messaging_inbound_pending_keyword ON messaging_inbound_pending (lane, from_phone, id) WHERE keyword;
