-- Carrier accounts: the carrier accounts teams' numbers send through. The
-- default account (cac_default) is the environment's (CARRIER, TWILIO_*):
-- its row holds no credentials and its provider is read from the
-- environment, so that a deployment that never adds an account changes
-- nothing. Other accounts' credentials are sealed (AES-256-GCM under
-- SECRETS_KEY, bound to the row's id); lookup_key is the part that is not
-- secret and tells callbacks apart (a Twilio account's SID). A deleted
-- account keeps its row (deliveries name it) with deleted_at set.
CREATE TABLE messaging_carrier_accounts (
    id          text PRIMARY KEY,
    provider    text NOT NULL,
    name        text NOT NULL,
    api_url     text NOT NULL DEFAULT '',
    sealed      bytea,
    lookup_key  text NOT NULL DEFAULT '',
    is_default  boolean NOT NULL DEFAULT false,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    deleted_at  timestamptz
);
CREATE INDEX messaging_carrier_accounts_list ON messaging_carrier_accounts (created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX messaging_carrier_accounts_lookup ON messaging_carrier_accounts (provider, lookup_key) WHERE deleted_at IS NULL AND lookup_key <> '';
INSERT INTO messaging_carrier_accounts (id, provider, name, is_default, created_at, updated_at)
VALUES ('cac_default', '', 'Default (environment)', true, now(), now());

-- Every number sends through an account; existing numbers keep the
-- default. A constant default adds the column without rewriting the table.
ALTER TABLE messaging_numbers
    ADD COLUMN carrier_account_id text NOT NULL DEFAULT 'cac_default' REFERENCES messaging_carrier_accounts (id);
CREATE INDEX messaging_numbers_account ON messaging_numbers (carrier_account_id) WHERE carrier_account_id <> 'cac_default';
