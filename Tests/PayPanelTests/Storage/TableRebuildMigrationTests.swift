import Foundation
import PayPanel
import TestSupport
import Testing

/// Migration 0008 rebuilds eight tables to drop their digit CHECKs (SQLite cannot drop a
/// constraint in place). A database written by the previous program, with a row in every
/// rebuilt table and every table that references one, comes out with the same rows, rowids,
/// references, indexes and triggers, and then accepts what the old CHECKs refused.
@Suite struct TableRebuildMigrationTests {
    static let clock = ManualClock(StorageFixtures.start)
    static let rebuilt = ["intents", "attempts", "refunds", "events", "idempotency_keys", "checkouts", "webhook_events", "push_deliveries"]

    /// A payments file migrated up to `0007_devices`, with rows that reference each other.
    static func databaseAt0007(_ path: String) throws {
        let before = MigrationSet(
            name: "main", applicationID: MigrationSet.main.applicationID,
            migrations: MigrationSet.main.migrations.filter { $0.identifier < "0008" })
        #expect(before.migrations.last?.identifier == "0007_devices")
        let database = try Database(path: path)
        try Migrator(set: before, clock: clock).migrate(database)
        let hash = String(repeating: "a", count: 64)
        for statement in [
            "INSERT INTO intents (id, status, amount, currency, capture_method, order_reference, version, created_at, updated_at) VALUES ('pi_a', 'requires_payment_method', 1000, 'USD', 'automatic', 'o-1', 1, 1, 1)",
            "INSERT INTO attempts (id, intent_id, sequence, status, source, card_last4, eci_present, amount, currency, failure_code, failure_message, created_at, updated_at) VALUES ('att_a', 'pi_a', 1, 'failed', 'card', '4242', 0, 1000, 'USD', 'x', 'm', 1, 1)",
            // Two refunds with the same time: their order is their rowid's.
            "INSERT INTO refunds (rowid, id, intent_id, attempt_id, amount, currency, status, created_at, updated_at) VALUES (7, 're_b', 'pi_a', 'att_a', 10, 'USD', 'pending', 5, 5)",
            "INSERT INTO refunds (rowid, id, intent_id, attempt_id, amount, currency, status, created_at, updated_at) VALUES (9, 're_a', 'pi_a', 'att_a', 10, 'USD', 'pending', 5, 5)",
            "INSERT INTO events VALUES ('pi_a', 1, 'intent_created', NULL, 'requires_payment_method', '{}', 1)",
            "INSERT INTO outbox (intent_id, intent_version, topic, refund_id, payload, created_at) VALUES ('pi_a', 1, 't', 're_a', '{}', 1)",
            "INSERT INTO timers (intent_id, kind, due_at, created_at) VALUES ('pi_a', 'abandonment', 9, 1)",
            "INSERT INTO checkouts (id, status, panel, capture_method, client_secret_hash, payment_intent_id, created_at, updated_at, version) VALUES ('co_a', 'open', '{}', 'automatic', randomblob(32), 'pi_a', 1, 1, 1)",
            "INSERT INTO idempotency_keys (key, scope, request_hash, status, outcome, response, created_at, completed_at) VALUES ('legacy-key', 'payments.create', '\(IdempotencyStore.requestHash(.object(JSONObject())))', 'completed', 'succeeded', '{\"id\":\"pi_a\"}', \(Int64(StorageFixtures.start.timeIntervalSince1970 * 1000)), 1)",
            "INSERT INTO devices (id, token, topic, environment, status, created_at) VALUES ('dev_a', '\(hash)', 't', 'production', 'active', 1)",
            "INSERT INTO push_deliveries (id, apns_id, device_id, checkout_id, payload, status, created_at, updated_at) VALUES (3, '\(String(repeating: "a", count: 36))', 'dev_a', 'co_a', '{}', 'sent', 1, 1)",
            "INSERT INTO push_attempts VALUES (3, 1, 1, NULL, 'sent', 200, NULL)",
            "INSERT INTO webhook_events (seq, id, type, object_id, created_at, source, source_id, body) VALUES (4, 'evt_a', 'abc', 'pi_a', 1, 'outbox', 1, '{}')",
            "INSERT INTO webhook_endpoints (id, url, events, status, secret_sealed, secret_version, created_at) VALUES ('we_a', 'https://x.example/z', '[\"*\"]', 'enabled', x'00', 1, 1)",
            "INSERT INTO webhook_deliveries (event_id, endpoint_id, status, updated_at) VALUES ('evt_a', 'we_a', 'delivered', 1)",
        ] {
            try database.execute(statement)
        }
    }

    @Test func aDatabaseAt0007KeepsItsRowsReferencesAndRulesThroughTheRebuild() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("old.sqlite")
        try Self.databaseAt0007(path)
        let database = try Database.openMigrated(path: path, clock: Self.clock)
        #expect(try Migrator(set: .main).status(database).pending.isEmpty)

        // Every row is still there, still pointing at its parent.
        for table in Self.rebuilt + ["outbox", "timers", "push_attempts", "webhook_deliveries"] {
            #expect(try database.queryFirst("SELECT count(*) FROM \(table)") { $0.int(0) } ?? 0 >= 1, "\(table) lost its rows")
        }
        #expect(try database.queryAll("PRAGMA foreign_key_check") { $0.string(0) }.isEmpty)
        #expect(try database.queryFirst("PRAGMA integrity_check") { $0.string(0) } == "ok")
        #expect(try database.queryFirst("PRAGMA foreign_keys") { $0.int(0) } == 1, "foreign keys are on again after the rebuild")
        #expect(try database.queryAll("SELECT id FROM refunds ORDER BY created_at, rowid") { $0.string(0) } == ["re_b", "re_a"])
        #expect(try database.queryFirst("SELECT metadata FROM intents") { $0.string(0) } == "{}")
        // No rebuilt table keeps a "_new" name, and each kept its indexes and triggers.
        let schema = try database.queryAll("SELECT type, name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'") { "\($0.string(0)) \($0.string(1))" }
        #expect(!schema.contains { $0.hasSuffix("_new") }, "\(schema)")
        for object in ["index intents_by_created", "index intents_by_status", "trigger intents_terminal_states_are_final",
                       "trigger intents_version_moves_by_one", "trigger intents_are_never_deleted", "index attempts_by_intent",
                       "index refunds_by_intent", "trigger events_are_append_only_update", "trigger events_are_append_only_delete",
                       "index idempotency_keys_by_created", "index checkouts_due", "trigger checkout_status_to_outbox",
                       "index webhook_events_by_type", "index push_deliveries_due", "index push_deliveries_checkout"] {
            #expect(schema.contains(object), "\(object) is missing")
        }
        // The rules that stay still hold; a parent row cannot go.
        #expect(throws: DatabaseError.self) { try database.execute("DELETE FROM intents") }
        #expect(throws: DatabaseError.self) { try database.execute("DELETE FROM events") }
        #expect(throws: DatabaseError.self) { try database.execute("DELETE FROM checkouts WHERE id = 'co_a'") }
        #expect(throws: DatabaseError.self) { try database.execute("UPDATE intents SET order_reference = '' WHERE id = 'pi_a'") }

        // What the old CHECKs refused is accepted now, and a status change writes its event with the metadata.
        try database.execute("UPDATE intents SET order_reference = 'order-1234567890123', version = 2 WHERE id = 'pi_a'")
        try database.execute("UPDATE checkouts SET metadata = '{\"order\":\"42\"}', status = 'canceled', version = 2, updated_at = 2 WHERE id = 'co_a'")
        #expect(try database.queryFirst("SELECT metadata FROM checkout_outbox WHERE checkout_id = 'co_a'") { $0.string(0) } == #"{"order":"42"}"#)

        // The key stored before the rebuild replays.
        let store = IdempotencyStore(database: database)
        let replay = try store.perform(
            key: "legacy-key", scope: "payments.create", parameters: .object(JSONObject()), at: StorageFixtures.start
        ) { _ in .succeeded(nil) }
        #expect(replay.replayed && replay.result == .succeeded(.version0(["id": "pi_a"])))
    }

    /// A key holding a card number is never refused, and never stored as it is.
    @Test func aKeyHoldingACardNumberIsStoredAsItsDigest() throws {
        let database = try Database.openMigrated(path: ":memory:", clock: Self.clock)
        let store = IdempotencyStore(database: database)
        for key in ["4242424242424242", "order 4242 4242 4242 4242", "uuid-3f2a9c1e-8b7d-4e2f-a1b2-123456789012"] {
            _ = try store.perform(key: key, scope: "s", parameters: .object(JSONObject()), at: StorageFixtures.start) { _ in .succeeded(nil) }
        }
        let stored = try database.queryAll("SELECT key FROM idempotency_keys ORDER BY key") { $0.string(0) }
        #expect(stored.contains("uuid-3f2a9c1e-8b7d-4e2f-a1b2-123456789012"), "a key without a card number is kept as it is")
        #expect(stored.filter { $0.hasPrefix("sha256:") }.count == 2, "\(stored)")
        #expect(!stored.contains { $0.contains("4242") })
    }
}
