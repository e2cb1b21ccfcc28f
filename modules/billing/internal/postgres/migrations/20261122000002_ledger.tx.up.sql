-- Credits consumed by sends: one row per message, in the send's transaction.
-- period is the UTC calendar month the send belongs to; trial marks credits
-- drawn from the trial allowance.
CREATE TABLE billing_credit_entries (
    id         bigserial PRIMARY KEY,
    team_id    text NOT NULL,
    period     text NOT NULL,
    ref        text NOT NULL,
    credits    integer NOT NULL CHECK (credits >= 0),
    trial      boolean NOT NULL,
    created_at timestamptz NOT NULL,
    UNIQUE (team_id, ref)
);
CREATE INDEX billing_credit_entries_team_period ON billing_credit_entries (team_id, period);
