-- A team's sending numbers (issue 13). The team's own number (roster) is
-- its primary; the row for it is written the first time messaging needs it.
-- throughput NULL means the default (TWILIO_RATE). The other columns are
-- the number's pacing schedule (domain.Schedule), changed only under the
-- row's lock: the latest planned slot (last_at, last_segments), the
-- hand-over guard (free_at), a stalled number's catch-up horizon, and
-- next_at, when a pump should next look at the number (NULL: nothing
-- planned), which pumps select on.
CREATE TABLE messaging_numbers (
    id               text PRIMARY KEY,
    team_id          text NOT NULL,
    number           text NOT NULL,
    kind             text NOT NULL,
    throughput       double precision,
    is_primary       boolean NOT NULL DEFAULT false,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    last_at          timestamptz,
    last_segments    integer NOT NULL DEFAULT 0,
    free_at          timestamptz,
    catch_up_until   timestamptz,
    next_at          timestamptz,
    backlog_segments bigint NOT NULL DEFAULT 0
);
-- A number sends for one team only, and inbound texts to it reach that team.
CREATE UNIQUE INDEX messaging_numbers_number ON messaging_numbers (number);
CREATE INDEX messaging_numbers_team ON messaging_numbers (team_id, created_at, id);
CREATE UNIQUE INDEX messaging_numbers_primary ON messaging_numbers (team_id) WHERE is_primary;
CREATE INDEX messaging_numbers_next ON messaging_numbers (next_at) WHERE next_at IS NOT NULL;

-- Planned hand-overs of paced numbers: one row per send, number and slot,
-- naming the send's deliveries by position. A pump hands a slot over when
-- it is due and deletes it in the same transaction.
CREATE TABLE messaging_slots (
    id         bigserial PRIMARY KEY,
    number_id  text NOT NULL,
    message_id text NOT NULL,
    due_at     timestamptz NOT NULL,
    seqs       integer[] NOT NULL,
    segments   integer NOT NULL
);
CREATE INDEX messaging_slots_number_due ON messaging_slots (number_id, due_at, id);

-- For teams with several numbers: the number each recipient is texted
-- from, so replies stay in one thread.
CREATE TABLE messaging_senders (
    team_id   text NOT NULL,
    phone     text NOT NULL,
    number_id text NOT NULL,
    PRIMARY KEY (team_id, phone)
);

-- When the send's last text is planned to reach the carrier, and how many
-- of its deliveries were never handed over (the recipient opted out first).
ALTER TABLE messaging_messages
    ADD COLUMN estimated_completion timestamptz,
    ADD COLUMN skipped_count integer NOT NULL DEFAULT 0;

-- The carrier simulator's profile (NULL: SIMULATOR_PROFILE) and its
-- parameters. error_code '' means each outcome's own default code.
ALTER TABLE messaging_sim_outcomes
    ADD COLUMN profile text,
    ADD COLUMN profile_params jsonb NOT NULL DEFAULT '{}';
UPDATE messaging_sim_outcomes SET error_code = '' WHERE error_code = '30003';

-- The realistic profile: each sending number's carrier queue (when it is
-- free to send the next segment), the reports the carrier will post and
-- when, and the recipients that texted STOP to a number (the carrier then
-- refuses texts from that number to them, as Twilio does: 21610).
CREATE TABLE messaging_sim_queues (
    from_phone text PRIMARY KEY,
    free_at    timestamptz NOT NULL
);
CREATE TABLE messaging_sim_reports (
    id     bigserial PRIMARY KEY,
    due_at timestamptz NOT NULL,
    report jsonb NOT NULL
);
CREATE INDEX messaging_sim_reports_due ON messaging_sim_reports (due_at, id);
CREATE TABLE messaging_sim_stops (
    from_phone text NOT NULL,
    to_phone   text NOT NULL,
    PRIMARY KEY (from_phone, to_phone)
);
ALTER TABLE messaging_sim_outbox
    ADD COLUMN segments integer NOT NULL DEFAULT 1,
    ADD COLUMN departs_at timestamptz;
