-- The latest broadcast handed to the carrier for each of a team's numbers,
-- written by the fan-out before it sends (so a reply always finds the text
-- it answers). Inbound texts read their group_id here in one lookup,
-- instead of probing the team's messages newest first on (message_id,
-- phone); that key then guards nothing (a send's recipients are distinct
-- numbers by construction) and is dropped: it was a third of the cost of
-- writing a broadcast's delivery rows.
CREATE TABLE messaging_latest_broadcasts (
    team_id            text NOT NULL,
    phone              text NOT NULL,
    message_id         text NOT NULL,
    group_id           text NOT NULL,
    message_created_at timestamptz NOT NULL,
    PRIMARY KEY (team_id, phone)
);

INSERT INTO messaging_latest_broadcasts (team_id, phone, message_id, group_id, message_created_at)
SELECT DISTINCT ON (d.team_id, d.phone) d.team_id, d.phone, m.id, m.group_id, m.created_at
FROM messaging_deliveries d JOIN messaging_messages m ON m.id = d.message_id
WHERE d.status <> 'queued'
ORDER BY d.team_id, d.phone, m.created_at DESC, m.id DESC;

ALTER TABLE messaging_deliveries DROP CONSTRAINT messaging_deliveries_message_id_phone_key;
