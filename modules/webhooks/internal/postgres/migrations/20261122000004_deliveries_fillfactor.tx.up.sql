-- A delivery row is updated once or more after its insert (each attempt
-- records state, attempts, next_attempt_at and updated_at, none of them
-- indexed). Room left in each page lets those updates be HOT: the new row
-- version stays on the page and none of the table's three indexes gets a
-- new entry.
ALTER TABLE webhook_deliveries SET (fillfactor = 80);
