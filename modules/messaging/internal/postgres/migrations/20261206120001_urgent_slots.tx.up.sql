-- Urgent alerts are planned ahead of their team's queued texts on the same
-- numbers (outbound.Plan): a slot says whether it holds an urgent send's
-- texts, so a later urgent send queues behind it and the others move.
-- Expand only: the previous build writes no urgent slots (the default) and
-- plans nothing ahead of anything. The partial index finds a number's
-- latest urgent slot without reading its broadcast's slots.
ALTER TABLE messaging_slots ADD COLUMN urgent boolean NOT NULL DEFAULT false;
CREATE INDEX messaging_slots_urgent ON messaging_slots (number_id, due_at) WHERE urgent;
