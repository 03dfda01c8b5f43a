#if PostgreSQL
import Foundation
import PayPanel
import PayPanelPostgres
import PayPanelReliability
import TestSupport
import Testing

/// What only PostgreSQL's webhook store needs showing, beyond the conformance suites
/// (`WebhookRelayTests`, `PushOutboxTests`, which run on it too): the events of some objects
/// (the console's query), and a schema that, as `pg_dump` writes it, holds no endpoint secret in
/// any form.
@Suite struct PostgreSQLWebhookStoreTests {
    /// `pg_dump` of one schema's data; the test is cancelled, with the reason, without the tool.
    static func dump(url: String, schema: String) throws -> String {
        let candidates = ["/usr/bin/pg_dump"] + ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
            .sorted().reversed().map { "/usr/lib/postgresql/\($0)/bin/pg_dump" }
        guard let tool = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            try Test.cancel("pg_dump is not installed: the raw PostgreSQL rows are not scanned")
        }
        let result = try ChildProcess.run(
            tool, ["--data-only", "--schema", schema, "--dbname", url], environment: ProcessInfo.processInfo.environment,
            directory: FileManager.default.temporaryDirectory.path)
        #expect(result.status == 0, "pg_dump exited \(result.termination): \(result.stderr)")
        return result.stdout
    }

    @Test func theEventsAboutSomeObjectsAreNewestFirstAndLimited() async throws {
        let harness = try RelayHarness(kind: .postgreSQL)
        let first = try harness.createIntent()
        let second = try harness.createIntent()
        let third = try harness.createIntent()
        try await harness.relay.runPass()
        let store = try #require(harness.webhookStore as? PostgreSQLWebhookStore)
        let both = try store.events(aboutObjects: [first.id, third.id, first.id], limit: 10)
        #expect(both.map(\.objectID) == [third.id, first.id])
        #expect(try store.events(aboutObjects: [first.id, second.id, third.id], limit: 2).map(\.objectID) == [third.id, second.id])
        #expect(try store.events(aboutObjects: ["pi_unknown"], limit: 10).isEmpty)
        #expect(try store.events(aboutObjects: [], limit: 10).isEmpty)
    }

    @Test func theSchemaHoldsNoEndpointSecretInAnyForm() async throws {
        let harness = try RelayHarness(kind: .postgreSQL)
        let created = try harness.endpoints.create(url: "https://merchant.example/hooks", eventTypes: ["*"], at: harness.clock.now())
        let rotated = try harness.endpoints.rotateSecret(created.record.id, at: harness.clock.now())
        try harness.createIntent()
        try await harness.relay.runPass()
        #expect(harness.transport.sent.count == 1)
        let url = try PostgreSQLTestServer.url()
        let schema = try #require(harness.database.schema)
        let dump = try Self.dump(url: url, schema: schema)
        #expect(dump.contains(created.record.id), "the dump holds the endpoint's row")
        for secret in [created.secret, rotated.secret] {
            let hex = secret.bytes.map { String(format: "%02x", $0) }.joined()
            #expect(!dump.contains(secret.revealed))
            #expect(!dump.contains(String(secret.revealed.dropFirst(6))))
            #expect(!dump.contains(hex), "the secret's bytes, as bytea prints them")
        }
    }
}
#endif
