-- One billing account per team: plan, card on file, payment state, trial.
CREATE TABLE billing_accounts (
    team_id       text PRIMARY KEY,
    plan          text NOT NULL,
    card_on_file  boolean NOT NULL DEFAULT false,
    payment_state text NOT NULL DEFAULT 'ok',
    trial         boolean NOT NULL DEFAULT false,
    trial_credits integer NOT NULL DEFAULT 0,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL
);
