-- Deliveries and attempts name their webhook without a foreign key. A
-- foreign key check takes a KEY SHARE lock on the referenced row: every
-- published event's delivery and every recorded attempt locked its
-- webhook's row, so concurrent publishers and workers of one webhook shared
-- that lock through a multixact and a WAL record each time (a hot row under
-- load). Deleting a webhook deletes its deliveries itself (the repository),
-- and the attempts go with their deliveries (that foreign key stays: a
-- delivery row is locked by its own attempt anyway). A delivery stored by a
-- publisher racing the deletion is removed when its job finds no webhook.
ALTER TABLE webhook_deliveries DROP CONSTRAINT IF EXISTS webhook_deliveries_webhook_id_fkey;
ALTER TABLE webhook_attempts DROP CONSTRAINT IF EXISTS webhook_attempts_webhook_id_fkey;
