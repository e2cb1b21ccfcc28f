-- The dashboard's Analytics chart shows texts that failed per day next to
-- those delivered: delivery status ingestion adds a failed delivery to its
-- day as it adds a delivered one. Expand only: a constant default adds the
-- column without rewriting the table, the previous build never writes it,
-- and days counted before this counter existed read 0 failed.
ALTER TABLE messaging_daily_stats ADD COLUMN failed bigint NOT NULL DEFAULT 0;
