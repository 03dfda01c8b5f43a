-- 0003: scheduled notifications (DESIGN §3). A row is one notification the "device" will
-- show: scheduled (delivered_at NULL), delivered when due (delivered_at and delivery_sequence
-- set together, in one BEGIN IMMEDIATE claim, so concurrent deliverers never show it twice),
-- then possibly answered with one of its category's actions.
-- Times are integer milliseconds since the epoch, UTC. JSON columns are written by the library's
-- JSONWriter; they carry no json_valid() CHECK because the connection runs with
-- trusted_schema=OFF, under which SQLite 3.40 refuses JSON functions in the schema.

CREATE TABLE scheduled_notifications (
    id                INTEGER PRIMARY KEY,
    deliver_at        INTEGER NOT NULL,            -- due from this moment
    category          TEXT CHECK (category IS NULL OR length(category) > 0),
    title             TEXT,
    subtitle          TEXT,
    body              TEXT,                        -- kept even while hidden: show-me reveals it
    body_hidden       INTEGER NOT NULL DEFAULT 0 CHECK (body_hidden IN (0, 1)),
    thread_id         TEXT,
    order_reference   TEXT,                        -- the panel's order, for panel updates
    user_info         TEXT NOT NULL DEFAULT '{}',  -- a JSON object (compact)
    payload           TEXT,                        -- the whole APNs payload (compact JSON), for panel pushes
    reveals_id        INTEGER REFERENCES scheduled_notifications (id),  -- the hidden one this re-delivers
    created_at        INTEGER NOT NULL,
    delivered_at      INTEGER,
    delivery_sequence INTEGER UNIQUE,              -- 1, 2, 3… in delivery order: what pollers follow
    responded_at      INTEGER,
    response_action   TEXT,
    CHECK (title IS NOT NULL OR body IS NOT NULL),
    CHECK ((delivered_at IS NULL) = (delivery_sequence IS NULL)),
    CHECK ((responded_at IS NULL) = (response_action IS NULL)),
    CHECK (responded_at IS NULL OR delivered_at IS NOT NULL)
) STRICT;

-- What is due: only undelivered rows, in delivery order.
CREATE INDEX scheduled_notifications_due
    ON scheduled_notifications (deliver_at, id) WHERE delivered_at IS NULL;

-- An open panel polls for deliveries to its thread or order after the last one it saw.
CREATE INDEX scheduled_notifications_thread
    ON scheduled_notifications (thread_id, delivery_sequence) WHERE thread_id IS NOT NULL;
CREATE INDEX scheduled_notifications_order
    ON scheduled_notifications (order_reference, delivery_sequence) WHERE order_reference IS NOT NULL;

-- show-me re-delivers a hidden notification once.
CREATE UNIQUE INDEX scheduled_notifications_one_reveal
    ON scheduled_notifications (reveals_id) WHERE reveals_id IS NOT NULL;
