-- RSVP by reply (issue 28). A broadcast with reply options is a poll,
-- open until reply_until; both are NULL for every other message.
ALTER TABLE messaging_messages ADD COLUMN IF NOT EXISTS reply_options text[];
ALTER TABLE messaging_messages ADD COLUMN IF NOT EXISTS reply_until timestamptz;
-- The roster entries a dispatched poll reached (its no_response counts
-- from it); NULL until then and for every other message.
ALTER TABLE messaging_messages ADD COLUMN IF NOT EXISTS poll_recipients integer;

-- The numbers each poll went to, written when the poll is dispatched (one
-- row per delivery): the inbound poll step finds a number's latest open
-- poll from its team here, newest first, joined to the delivery (by its
-- id) to take only polls whose text was handed over.
CREATE TABLE IF NOT EXISTS messaging_poll_recipients (
    team_id     text NOT NULL,
    phone       text NOT NULL,
    message_id  text NOT NULL REFERENCES messaging_messages (id),
    delivery_id text NOT NULL,
    sent_at     timestamptz NOT NULL,
    reply_until timestamptz NOT NULL,
    PRIMARY KEY (team_id, phone, message_id)
);
CREATE INDEX IF NOT EXISTS messaging_poll_recipients_latest ON messaging_poll_recipients (team_id, phone, sent_at DESC, message_id DESC);

-- Answers: one per roster entry that was a recipient of the poll; the
-- latest answer (by received_at) wins. member is the entry as member.*
-- events show it, when it answered.
CREATE TABLE IF NOT EXISTS messaging_responses (
    message_id  text NOT NULL REFERENCES messaging_messages (id),
    member_id   text NOT NULL,
    team_id     text NOT NULL,
    option      text NOT NULL,
    inbound_id  text NOT NULL,
    member      jsonb NOT NULL,
    received_at timestamptz NOT NULL,
    PRIMARY KEY (message_id, member_id)
);
-- GET /messages/{id}/responses lists newest first (a page's keys read
-- from this index alone, whatever the offset) and counts per option.
CREATE INDEX IF NOT EXISTS messaging_responses_list ON messaging_responses (message_id, received_at DESC, member_id);
CREATE INDEX IF NOT EXISTS messaging_responses_option ON messaging_responses (message_id, option);

-- The poll an inbound text answered (GET /inbound-messages' response_to).
ALTER TABLE messaging_inbound ADD COLUMN IF NOT EXISTS response_to text;
