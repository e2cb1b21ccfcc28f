-- Merge tags (issue 26): a dashboard send's texts differ per recipient.
-- Each delivery of such a send keeps its own text and segment count, and
-- the message its exact credits. Expand only: NULL means "the message's
-- rendered text and segments, credits = recipients × segments", which is
-- what the previous build reads and writes.
ALTER TABLE messaging_deliveries ADD COLUMN IF NOT EXISTS body text;
ALTER TABLE messaging_deliveries ADD COLUMN IF NOT EXISTS segments integer;
ALTER TABLE messaging_messages ADD COLUMN IF NOT EXISTS credits integer;
