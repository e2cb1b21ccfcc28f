-- Quiet hours (issue 29): a text held for its recipient's night stays
-- queued with held_until, the instant its slot is due; a message counts
-- how many of its texts were held when it was planned. Expand only: NULL
-- and 0 mean "not held", as for every text before.
ALTER TABLE messaging_deliveries ADD COLUMN IF NOT EXISTS held_until timestamptz;
ALTER TABLE messaging_messages ADD COLUMN IF NOT EXISTS held_for_quiet_hours integer NOT NULL DEFAULT 0;
