-- 0007: devices that receive the payment-action push, and the push deliveries (issue 16).
-- A device is one APNs registration: the token the app got (lower-case hex), its topic (the
-- app's bundle id) and environment. A token APNs calls dead (400 BadDeviceToken or
-- DeviceTokenNotForTopic, 410 Unregistered) is marked so, with APNs' reason and time, and is
-- never pushed again. A delivery is one push, driven like an outbox row: pending until APNs
-- answers for good; each try is a push_attempts row written before the request goes out, so a
-- crash between sending and recording leaves a visible in-flight attempt and the delivery is
-- sent again, with the same apns_id, once its claim lapses. Times are integer milliseconds
-- since the epoch, UTC. 0006 belongs to another migration written beside this one.

CREATE TABLE devices (
    id           TEXT PRIMARY KEY NOT NULL CHECK (id GLOB 'dev_?*' AND length(id) <= 64),
    token        TEXT NOT NULL CHECK (length(token) BETWEEN 64 AND 200 AND token NOT GLOB '*[^0-9a-f]*'),
    topic        TEXT NOT NULL CHECK (length(topic) BETWEEN 1 AND 255),
    environment  TEXT NOT NULL CHECK (environment IN ('development', 'production')),
    status       TEXT NOT NULL CHECK (status IN ('active', 'dead')),
    dead_reason  TEXT CHECK (dead_reason IS NULL OR length(dead_reason) BETWEEN 1 AND 64),
    dead_at      INTEGER,
    created_at   INTEGER NOT NULL,
    UNIQUE (token, topic, environment),
    CHECK ((status = 'dead') = (dead_reason IS NOT NULL AND dead_at IS NOT NULL))
) STRICT;

CREATE TABLE push_deliveries (
    id               INTEGER PRIMARY KEY,
    apns_id          TEXT NOT NULL UNIQUE CHECK (length(apns_id) = 36),
    device_id        TEXT NOT NULL REFERENCES devices (id),
    checkout_id      TEXT REFERENCES checkouts (id),
    collapse_id      TEXT CHECK (collapse_id IS NULL OR length(collapse_id) BETWEEN 1 AND 64),
    payload          TEXT NOT NULL CHECK (length(payload) BETWEEN 2 AND 4096
                         AND payload NOT GLOB '*[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]*'),
    expires_at       INTEGER,
    status           TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'failed', 'device_dead', 'skipped')),
    reason           TEXT CHECK (reason IS NULL OR length(reason) BETWEEN 1 AND 500),
    attempts         INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at  INTEGER,
    claimed_until    INTEGER,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL CHECK (updated_at >= created_at),
    CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL))
) STRICT;

-- The worker's queue: pending deliveries by when they are due.
CREATE INDEX push_deliveries_due ON push_deliveries (next_attempt_at, id) WHERE status = 'pending';
-- A checkout's latest push.
CREATE INDEX push_deliveries_checkout ON push_deliveries (checkout_id, id) WHERE checkout_id IS NOT NULL;

CREATE TABLE push_attempts (
    delivery_id  INTEGER NOT NULL REFERENCES push_deliveries (id),
    attempt      INTEGER NOT NULL CHECK (attempt >= 1),
    started_at   INTEGER NOT NULL,
    finished_at  INTEGER,
    -- in_flight until recorded: a crash leaves it so, and the next attempt says why it exists.
    outcome      TEXT NOT NULL CHECK (outcome IN ('in_flight', 'sent', 'device_dead', 'retry', 'rejected', 'unreachable', 'token_refused')),
    http_status  INTEGER,
    reason       TEXT CHECK (reason IS NULL OR length(reason) BETWEEN 1 AND 500),
    PRIMARY KEY (delivery_id, attempt)
) STRICT;
