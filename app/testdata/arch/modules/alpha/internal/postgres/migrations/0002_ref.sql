ALTER TABLE alpha_things ADD CONSTRAINT fk FOREIGN KEY (beta_id) REFERENCES beta_items (id);
