-- The shared test clock: wall-clock time plus this offset (CLOCK=test).
CREATE TABLE platform_clock (
    id        int PRIMARY KEY CHECK (id = 1),
    offset_us bigint NOT NULL DEFAULT 0
);
INSERT INTO platform_clock (id, offset_us) VALUES (1, 0);
