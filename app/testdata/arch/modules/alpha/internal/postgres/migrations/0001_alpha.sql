-- alpha's tables: the prefix is alpha_
CREATE TABLE IF NOT EXISTS alpha_things (id text PRIMARY KEY, beta_id text);
CREATE TABLE alpha_other (id text PRIMARY KEY);
