-- Delivery counts per message, kept by the statements that move deliveries
-- between statuses (in the same statement or transaction). A delivery's
-- status is then in no index, so its two updates (sent, then its final
-- status) are heap-only (HOT) updates that write no index entry, and
-- listing messages reads the counts from their own rows.
ALTER TABLE messaging_messages
    ADD COLUMN queued_count      integer NOT NULL DEFAULT 0,
    ADD COLUMN sent_count        integer NOT NULL DEFAULT 0,
    ADD COLUMN delivered_count   integer NOT NULL DEFAULT 0,
    ADD COLUMN failed_count      integer NOT NULL DEFAULT 0,
    ADD COLUMN unconfirmed_count integer NOT NULL DEFAULT 0;

UPDATE messaging_messages AS m SET
    queued_count = c.queued, sent_count = c.sent, delivered_count = c.delivered,
    failed_count = c.failed, unconfirmed_count = c.unconfirmed
FROM (SELECT message_id,
             count(*) FILTER (WHERE status = 'queued') AS queued,
             count(*) FILTER (WHERE status = 'sent') AS sent,
             count(*) FILTER (WHERE status = 'delivered') AS delivered,
             count(*) FILTER (WHERE status = 'failed') AS failed,
             count(*) FILTER (WHERE status = 'delivery_unconfirmed') AS unconfirmed
      FROM messaging_deliveries GROUP BY message_id) AS c
WHERE m.id = c.message_id;

DROP INDEX messaging_deliveries_message_status;

-- Room in each page for the new row versions of HOT updates.
ALTER TABLE messaging_deliveries SET (fillfactor = 50);

-- Deliveries are written only by the send that creates their message, in
-- that message's transaction, and messages are never deleted: the foreign
-- key's per-row check (a KEY SHARE lock on the message for each of a
-- broadcast's thousands of rows) guarded nothing the code does not.
ALTER TABLE messaging_deliveries DROP CONSTRAINT messaging_deliveries_message_id_fkey;

-- Each delivery's position in its message (1..n, roster order): fan-out
-- jobs name a range of positions instead of carrying every delivery id, and
-- the delivery report lists a message's deliveries in that order.
ALTER TABLE messaging_deliveries ADD COLUMN seq integer NOT NULL DEFAULT 0;
UPDATE messaging_deliveries AS d SET seq = r.n
FROM (SELECT id, row_number() OVER (PARTITION BY message_id ORDER BY id) AS n FROM messaging_deliveries) AS r
WHERE d.id = r.id;
ALTER TABLE messaging_deliveries ALTER COLUMN seq DROP DEFAULT;
DROP INDEX messaging_deliveries_message;
CREATE UNIQUE INDEX messaging_deliveries_message_seq ON messaging_deliveries (message_id, seq);

-- The latest broadcast to a number is found from the team's messages,
-- newest first, each probed on (message_id, phone): one index fewer for
-- every broadcast row to maintain.
DROP INDEX messaging_deliveries_team_phone;
