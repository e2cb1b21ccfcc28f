-- When each API key was last used (the dashboard's key list): set by the
-- key check itself, in its one statement, at most once a minute per key.
-- Expand only; NULL until the key's next use.
ALTER TABLE roster_api_keys ADD COLUMN IF NOT EXISTS last_used_at timestamptz;
