-- Secret rotation (issue 18): the secret a rotation replaced keeps signing
-- deliveries, beside the new one, until previous_secret_until.
ALTER TABLE webhooks
    ADD COLUMN IF NOT EXISTS previous_secret       text,
    ADD COLUMN IF NOT EXISTS previous_secret_until timestamptz;
