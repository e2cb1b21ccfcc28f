-- Self-serve recovery and the per-endpoint throttle (issue 18). Every
-- statement is idempotent, so the module's history can be applied again.

-- max_per_second: at most this many deliveries a second to the webhook
-- (null: no limit). A throttled webhook's deliveries wait their turn in its
-- queue (below) and go out one at a time, in order.
ALTER TABLE webhooks ADD COLUMN IF NOT EXISTS max_per_second integer;
DO $$ BEGIN
    ALTER TABLE webhooks ADD CONSTRAINT webhooks_max_per_second CHECK (max_per_second BETWEEN 1 AND 100);
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;

-- round_from: the attempts a delivery had when its current round began (0
-- for its first; a retry or recovery starts a new round with the spec's
-- whole retry schedule). queued: the delivery waits in its webhook's queue,
-- sent in order (created_at, id) by the webhook's pump job.
ALTER TABLE webhook_deliveries
    ADD COLUMN IF NOT EXISTS round_from integer NOT NULL DEFAULT 0,
    ADD COLUMN IF NOT EXISTS queued boolean NOT NULL DEFAULT false;

-- The deliveries list (newest first) and recovery (by time) read a
-- webhook's deliveries by created_at; this index also serves every lookup
-- by webhook_id alone, so it replaces webhook_deliveries_webhook (a
-- delivery still has three indexes, and its updates stay HOT).
CREATE INDEX IF NOT EXISTS webhook_deliveries_webhook_created ON webhook_deliveries (webhook_id, created_at, id);
DROP INDEX IF EXISTS webhook_deliveries_webhook;
-- The queue, in order; only queued rows are in it.
CREATE INDEX IF NOT EXISTS webhook_deliveries_queued ON webhook_deliveries (webhook_id, created_at, id) WHERE queued;

-- One row per webhook that has ever had a queue: next_slot_at is the
-- earliest time its next delivery may go (the throttle's schedule, shared
-- by every node); pump is true while a pump job exists for it.
CREATE TABLE IF NOT EXISTS webhook_queues (
    webhook_id   text PRIMARY KEY,
    team_id      text NOT NULL,
    next_slot_at timestamptz,
    pump         boolean NOT NULL DEFAULT false
);
