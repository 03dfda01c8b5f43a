#if PostgreSQL
import Foundation
import PayPanel
import PayPanelPostgres
import TestSupport
import Testing

/// Two real `paypanel serve` processes on one PostgreSQL schema (and one mock processor
/// ledger), driven at once on the same intents: one winner per race, identical idempotent
/// replays, invariants intact. Needs `$PAYPANEL_TEST_POSTGRES_URL`; skipped without it unless
/// `$PAYPANEL_TEST_POSTGRES_REQUIRED=1`.
@Suite struct TwoServersOnePostgreSQLTests {
    static func databaseURL() throws -> (url: String, schema: String) {
        let environment = ProcessInfo.processInfo.environment
        guard let base = environment["PAYPANEL_TEST_POSTGRES_URL"], !base.isEmpty else {
            if environment["PAYPANEL_TEST_POSTGRES_REQUIRED"] == "1" {
                throw ServerStartError(description: "PAYPANEL_TEST_POSTGRES_URL is not set but PAYPANEL_TEST_POSTGRES_REQUIRED=1")
            }
            try Test.cancel("PAYPANEL_TEST_POSTGRES_URL is not set: two servers on PostgreSQL are not tested")
        }
        let schema = "twoservers_\(UUID().uuidString.prefix(8).lowercased())"
        return (base + (base.contains("?") ? "&" : "?") + "schema=\(schema)", schema)
    }

    @Test func racesAcrossTwoServersHaveOneWinnerAndReplaysAreIdentical() async throws {
        let (url, schema) = try Self.databaseURL()
        let base = try #require(ProcessInfo.processInfo.environment["PAYPANEL_TEST_POSTGRES_URL"])
        defer { try? PostgreSQLSchemaMaintenance.dropSchema(url: base, schema: schema) }
        let directory = try TemporaryDirectory("paypanel-two-servers")
        let first = try await ServerProcess.start(directory: directory, database: url)
        let second = try await ServerProcess.start(directory: directory, key: first.key, database: url)
        let servers = [first, second]

        // Intents made on one server, authorized on the other.
        var ids: [String] = []
        for index in 0..<4 {
            let id = try await servers[index % 2].createIntent(amount: 1000, capture: "manual")
            let confirmed = try await servers[(index + 1) % 2].request(
                "POST", "/v1/payment_intents/\(id)/confirm", json: ServerProcess.card("4242424242424242"))
            #expect(confirmed["status"] == "requires_capture", "\(confirmed.text)")
            ids.append(id)
        }

        // Each intent captured on both servers at once: one capture.
        for id in ids {
            async let a = first.request("POST", "/v1/payment_intents/\(id)/capture", json: "{}")
            async let b = second.request("POST", "/v1/payment_intents/\(id)/capture", json: "{}")
            let statuses = [try await a.status, try await b.status]
            #expect(statuses.filter { $0 == 200 }.count == 1, "\(id): \(statuses)")
        }

        // Two refunds of 600 on each captured 1000, one per server: one refund.
        for id in ids {
            let body = #"{"payment_intent":"\#(id)","amount":600}"#
            async let a = first.request("POST", "/v1/refunds", json: body)
            async let b = second.request("POST", "/v1/refunds", json: body)
            let statuses = [try await a.status, try await b.status]
            #expect(statuses.filter { $0 == 200 }.count == 1, "\(id): \(statuses)")
        }

        // The same Idempotency-Key sent to both servers at once: one intent; every 200 the same.
        let create = #"{"amount":777,"currency":"USD"}"#
        async let a = first.request("POST", "/v1/payment_intents", json: create, headers: ["Idempotency-Key": "shared-key"])
        async let b = second.request("POST", "/v1/payment_intents", json: create, headers: ["Idempotency-Key": "shared-key"])
        let racing = [try await a, try await b]
        let later = [try await first.request("POST", "/v1/payment_intents", json: create, headers: ["Idempotency-Key": "shared-key"]),
                     try await second.request("POST", "/v1/payment_intents", json: create, headers: ["Idempotency-Key": "shared-key"])]
        let succeeded = (racing + later).filter { $0.status == 200 }
        #expect(succeeded.count >= 3, "\(racing.map(\.status)) then \(later.map(\.status))")
        #expect(Set(succeeded.map(\.text)).count == 1, "every replay is byte-for-byte the first answer")
        #expect(racing.allSatisfy { $0.status == 200 || $0.errorCode == "idempotency_key_in_use" })
        #expect(later.allSatisfy { $0.headers["Idempotent-Replayed"] == "true" })

        // What both servers see: the invariants hold on every intent.
        for id in ids {
            for server in servers {
                let intent = try await server.request("GET", "/v1/payment_intents/\(id)")
                #expect(intent["status"] == "succeeded")
                #expect(intent["amount_captured"] == 1000)
                #expect(intent["amount_refunded"]?.int64Value ?? 0 <= 600, "\(intent.text)")
                #expect(intent["refunds"]?.arrayValue?.count == 1 || intent["amount_refunded"] == 600, "\(intent.text)")
            }
        }
        let listed = try await second.request("GET", "/v1/payment_intents?limit=100")
        #expect(listed["data"]?.arrayValue?.count == 5)
        #expect(await first.terminate() == 0)
        #expect(await second.terminate() == 0)
    }
}
#endif
