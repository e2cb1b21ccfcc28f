-- The held-texts gauge (teamtext_texts_held_quiet_hours) counts, per team,
-- the texts still queued for their recipients' quiet hours: a partial
-- index holds only those, so the scrape reads a few rows, not the table.
CREATE INDEX IF NOT EXISTS messaging_deliveries_held ON messaging_deliveries (team_id, held_until)
  WHERE held_until IS NOT NULL AND status = 'queued';
