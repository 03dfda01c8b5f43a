#if PostgreSQL
import Foundation
import PayPanel
import TestSupport
import Testing

/// What only PostgreSQL's webhook and device stores need showing, beyond the conformance suites
/// (`WebhookRelayTests`, `PushOutboxTests`, which run on it too): the schema as `pg_dump` writes
/// it holds no endpoint secret in any form.
@Suite struct PostgreSQLWebhookStoreTests {
    /// `pg_dump` of one schema's data, or nil (with the reason) when the tool is missing.
    static func dump(url: String, schema: String) throws -> String {
        let candidates = ["/usr/bin/pg_dump"] + ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
            .sorted().reversed().map { "/usr/lib/postgresql/\($0)/bin/pg_dump" }
        guard let tool = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            try Test.cancel("pg_dump is not installed: the raw PostgreSQL rows are not scanned")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["--data-only", "--schema", schema, "--dbname", url]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "pg_dump exited \(process.terminationStatus)")
        return String(decoding: data, as: UTF8.self)
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
