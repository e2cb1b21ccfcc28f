-- Issue 18. skipped_undeliverable: the audience's numbers a send did not
-- text because they are marked undeliverable (counted, charged nothing).
-- resend_of: the message a resend ({"only": "failed"}) went out for.
ALTER TABLE messaging_messages ADD COLUMN IF NOT EXISTS skipped_undeliverable integer NOT NULL DEFAULT 0;
ALTER TABLE messaging_messages ADD COLUMN IF NOT EXISTS resend_of text NOT NULL DEFAULT '';
CREATE INDEX IF NOT EXISTS messaging_messages_resend_of ON messaging_messages (resend_of) WHERE resend_of <> '';
