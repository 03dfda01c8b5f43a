-- 0008 (PostgreSQL dialect of Migrations/0008_card_number_rule_and_metadata.sql): one rule for
-- card numbers in text, and metadata.
--
-- The digit CHECKs (`!~ '[0-9]{13}'`) refused ordinary values the program accepts, with a
-- constraint failure (an HTTP 500). The rule is now one function in the program
-- (`SensitiveDigits`: 13 to 19 digits that pass the Luhn check, contiguous or in groups), applied
-- to every free text (refused with a 400 naming the field) and every processor text (redacted)
-- before anything is written; the database does not repeat it, as on SQLite, so the two stores
-- accept the same values. The constraints are dropped and, where they also bounded a length,
-- put back with the length alone (the names PostgreSQL gave them in 0002, 0005, 0006 and 0007).
--
-- Metadata: `intents.metadata` and `checkouts.metadata` hold the merchant's key-value pairs as a
-- JSON object written by the library's JSONWriter ('{}' for none), kept as TEXT like every other
-- JSON column here; `checkout_outbox.metadata` keeps them in the checkout's snapshot, written by
-- the status trigger.

ALTER TABLE intents DROP CONSTRAINT intents_order_reference_check;
ALTER TABLE intents ADD CONSTRAINT intents_order_reference_check CHECK (length(order_reference) BETWEEN 1 AND 200);
ALTER TABLE intents DROP CONSTRAINT intents_last_error_message_check;
-- At most 50 keys of 40 characters and values of 500 (`Metadata`): about 27,000 characters.
ALTER TABLE intents ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}' CHECK (length(metadata) BETWEEN 2 AND 60000);

ALTER TABLE attempts DROP CONSTRAINT attempts_processor_id_check;
ALTER TABLE attempts DROP CONSTRAINT attempts_failure_message_check;
ALTER TABLE refunds DROP CONSTRAINT refunds_processor_id_check;
ALTER TABLE events DROP CONSTRAINT events_data_check;

ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_key_check;
ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_key_check CHECK (length(key) BETWEEN 1 AND 255);

ALTER TABLE checkouts DROP CONSTRAINT checkouts_panel_check;
ALTER TABLE checkouts ADD CONSTRAINT checkouts_panel_check CHECK (length(panel) BETWEEN 2 AND 4096);
ALTER TABLE checkouts ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}' CHECK (length(metadata) BETWEEN 2 AND 60000);
ALTER TABLE checkout_outbox ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';

CREATE OR REPLACE FUNCTION checkout_status_to_outbox() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    INSERT INTO checkout_outbox (checkout_id, topic, status, panel, capture_method, expires_at, client_secret_hash,
                                 payment_intent_id, created_at, updated_at, version, metadata)
    VALUES (NEW.id, 'checkout.' || NEW.status, NEW.status, NEW.panel, NEW.capture_method, NEW.expires_at,
            NEW.client_secret_hash, NEW.payment_intent_id, NEW.created_at, NEW.updated_at, NEW.version, NEW.metadata);
    RETURN NULL;
END;
$$;

ALTER TABLE webhook_events DROP CONSTRAINT webhook_events_body_check;
ALTER TABLE webhook_events ADD CONSTRAINT webhook_events_body_check CHECK (length(body) >= 2);

ALTER TABLE push_deliveries DROP CONSTRAINT push_deliveries_payload_check;
ALTER TABLE push_deliveries ADD CONSTRAINT push_deliveries_payload_check CHECK (length(payload) BETWEEN 2 AND 4096);
