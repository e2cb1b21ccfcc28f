-- Texts the service sends one person on a team's behalf (dashboard sign-in
-- codes) answer no inbound text. Expand only: the previous build never
-- reads a reply without its job, and reads a NULL inbound_id as "".
ALTER TABLE messaging_replies ALTER COLUMN inbound_id DROP NOT NULL;
