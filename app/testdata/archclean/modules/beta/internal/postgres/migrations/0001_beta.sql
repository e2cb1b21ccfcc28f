-- beta's tables: the prefix is beta (betas, beta_items)
CREATE TABLE IF NOT EXISTS betas (id text PRIMARY KEY);
CREATE TABLE IF NOT EXISTS beta_items (id text PRIMARY KEY, alpha_id text REFERENCES betas (id));
