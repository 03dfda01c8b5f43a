#if PostgreSQL
import Foundation
import PayPanel
import PayPanelPostgres
import TestSupport
import Testing

/// Webhooks, events and devices on PostgreSQL: two real `paypanel serve` processes on one
/// schema, both relaying to one `webhooks listen` endpoint, deliver every event exactly once
/// between them (their claims skip each other's rows); and the webhook and device commands work
/// with `--db postgresql://…`, refusing clearly without the webhook key file. Needs
/// `$PAYPANEL_TEST_POSTGRES_URL`; skipped without it unless `$PAYPANEL_TEST_POSTGRES_REQUIRED=1`.
@Suite struct TwoServersOnePostgreSQLWebhookTests {
    /// 32 random bytes, 0600: the key every server is given.
    static func writeKeyFile(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("webhook.key")
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes), attributes: [.posixPermissions: 0o600]))
        return path
    }

    @Test func twoServersDeliverEachEventToTheEndpointExactlyOnce() async throws {
        let (url, schema) = try TwoServersOnePostgreSQLTests.databaseURL()
        let base = try #require(ProcessInfo.processInfo.environment["PAYPANEL_TEST_POSTGRES_URL"])
        defer { try? PostgreSQLSchemaMaintenance.dropSchema(url: base, schema: schema) }
        let directory = try TemporaryDirectory("paypanel-two-servers-webhooks")
        let key = try Self.writeKeyFile(in: directory)
        let secretFile = directory.file("endpoint.secret")
        let listener = try await ListenerProcess.start(directory: directory, arguments: ["--secret-file", secretFile])
        let options = ["--allow-private-webhooks", "--webhook-key-file", key]
        let first = try await ServerProcess.start(directory: directory, arguments: options, database: url)
        let second = try await ServerProcess.start(directory: directory, arguments: options, key: first.key, database: url)
        let servers = [first, second]

        // The endpoint is made on one server; the other opens its secret with the same key file.
        let created = try await first.request(
            "POST", "/v1/webhook_endpoints",
            json: #"{"url":"http://127.0.0.1:\#(listener.port)/hooks","events":["payment_intent.created","payment_intent.succeeded"]}"#)
        #expect(created.status == 200, "\(created.text)")
        let secret = try #require(created["secret"]?.stringValue)
        try Data(secret.utf8).write(to: URL(fileURLWithPath: secretFile))
        #expect(try await second.request("GET", "/v1/webhook_endpoints/\(created.id)")["url"]?.stringValue?.hasSuffix("/hooks") == true)

        // Intents made on one server and paid on the other: 2 events each.
        var intents: [String] = []
        for index in 0..<6 {
            let id = try await servers[index % 2].createIntent()
            let paid = try await servers[(index + 1) % 2].request(
                "POST", "/v1/payment_intents/\(id)/confirm", json: ServerProcess.card("4242424242424242"))
            #expect(paid["status"] == "succeeded", "\(paid.text)")
            intents.append(id)
        }

        // Both servers list the same events: one per outbox message, whichever published it.
        var expected: Set<String> = []
        for type in ["payment_intent.created", "payment_intent.succeeded"] {
            let lists = [try await first.request("GET", "/v1/events?type=\(type)&limit=100"),
                         try await second.request("GET", "/v1/events?type=\(type)&limit=100")]
            let ids = lists.map { Set(($0["data"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }) }
            #expect(ids[0] == ids[1] && ids[0].count == intents.count, "\(type): \(ids.map(\.count))")
            expected.formUnion(ids[0])
        }
        #expect(expected.count == 2 * intents.count)

        // Every event arrives; then several more worker passes of both servers send nothing again.
        for id in expected { try await listener.waitFor(id) }
        // Each pass of a worker runs its webhook relay first: five finished passes of each.
        for server in [first, second] { try await server.waitForWorkerPasses(5) }
        let received = listener.stdout.split(separator: "\n").filter { $0.hasPrefix("evt_") }
        let receivedIDs = received.compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(Set(receivedIDs) == expected)
        #expect(receivedIDs.count == expected.count, "a delivery was sent twice:\n\(listener.stdout)")
        #expect(!listener.stdout.contains("(duplicate)"))
        #expect(received.allSatisfy { $0.hasSuffix("→ 200") })

        #expect(await first.terminate() == 0)
        #expect(await second.terminate() == 0)
        #expect(await listener.terminate() == 0)
        #expect(!first.stderr.contains(secret) && !second.stderr.contains(secret))
    }

    @Test func theWebhookAndDeviceCommandsWorkOnPostgreSQLAndNeedTheKeyFile() async throws {
        let (url, schema) = try TwoServersOnePostgreSQLTests.databaseURL()
        let base = try #require(ProcessInfo.processInfo.environment["PAYPANEL_TEST_POSTGRES_URL"])
        defer { try? PostgreSQLSchemaMaintenance.dropSchema(url: base, schema: schema) }
        let directory = try TemporaryDirectory("paypanel-pg-webhook-commands")
        let key = try Self.writeKeyFile(in: directory)

        let refused = try CLIRunner.run(["webhooks", "add", "https://merchant.example/hooks", "--db", url], in: directory)
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stderr.contains("--webhook-key-file") && refused.stderr.contains("PAYPANEL_WEBHOOK_KEY_FILE"), "\(refused)")
        let short = directory.file("short.key")
        #expect(FileManager.default.createFile(atPath: short, contents: Data([1, 2, 3])))
        let wrongSize = try CLIRunner.run(["webhooks", "add", "https://merchant.example/hooks", "--db", url, "--webhook-key-file", short], in: directory)
        #expect(wrongSize.status == 1 && wrongSize.stderr.contains("not 32"), "\(wrongSize)")

        let added = try CLIRunner.run(
            ["webhooks", "add", "https://merchant.example/hooks", "--db", url, "--json"], in: directory,
            environment: ["PAYPANEL_WEBHOOK_KEY_FILE": key])
        #expect(added.status == 0, "\(added)")
        let endpoint = try JSONParser().parse(Array(added.stdout.utf8))
        let id = try #require(endpoint["id"]?.stringValue)
        let listed = try CLIRunner.run(["webhooks", "list", "--db", url, "--webhook-key-file", key], in: directory)
        #expect(listed.status == 0 && listed.stdout.contains(id), "\(listed)")
        let rotated = try CLIRunner.run(["webhooks", "rotate-secret", id, "--db", url, "--webhook-key-file", key], in: directory)
        #expect(rotated.status == 0 && rotated.stdout.contains("secret version 2"), "\(rotated)")

        // A payment's events, listed and replayed from the command line.
        let payment = try CLIRunner.run(["payments", "create", "--amount", "5", "--db", url], in: directory)
        #expect(payment.status == 0, "\(payment)")
        let events = try CLIRunner.run(["events", "list", "--db", url, "--webhook-key-file", key, "--json"], in: directory)
        #expect(events.status == 0, "\(events)")
        let event = try #require(try JSONParser().parse(Array(events.stdout.utf8)).arrayValue?.first)
        let eventID = try #require(event["id"]?.stringValue)
        #expect(event["type"] == "payment_intent.created")
        let shown = try CLIRunner.run(["events", "show", eventID, "--db", url, "--webhook-key-file", key], in: directory)
        #expect(shown.status == 0 && shown.stdout.contains(id) && shown.stdout.contains("pending"), "\(shown)")
        let replayed = try CLIRunner.run(["webhooks", "replay", eventID, "--db", url, "--webhook-key-file", key], in: directory)
        #expect(replayed.status == 0 && replayed.stdout.contains("queued \(eventID) for \(id)"), "\(replayed)")
        let removed = try CLIRunner.run(["webhooks", "remove", id, "--db", url, "--webhook-key-file", key], in: directory)
        #expect(removed.status == 0, "\(removed)")

        // Another key file does not open the secrets: serve refuses to start with it.
        let otherDirectory = try TemporaryDirectory("paypanel-pg-other-key")
        let other = try Self.writeKeyFile(in: otherDirectory)
        let again = try CLIRunner.run(
            ["webhooks", "add", "https://merchant.example/again", "--db", url, "--webhook-key-file", key], in: directory)
        #expect(again.status == 0, "\(again)")
        let mismatched = try CLIRunner.run(["serve", "--port", "0", "--db", url, "--webhook-key-file", other], in: directory)
        #expect(mismatched.status == 1 && mismatched.stderr.contains("same key file"), "\(mismatched)")

        // Devices.
        let token = String(repeating: "ab", count: 32)
        let device = try CLIRunner.run(
            ["devices", "add", "--token", token, "--topic", "com.example.app", "--db", url, "--json"], in: directory)
        #expect(device.status == 0, "\(device)")
        let deviceID = try #require(try JSONParser().parse(Array(device.stdout.utf8))["id"]?.stringValue)
        let sameAgain = try CLIRunner.run(["devices", "add", "--token", token, "--topic", "com.example.app", "--db", url, "--json"], in: directory)
        #expect(try JSONParser().parse(Array(sameAgain.stdout.utf8))["id"]?.stringValue == deviceID)
        let devices = try CLIRunner.run(["devices", "list", "--db", url], in: directory)
        #expect(devices.status == 0 && devices.stdoutLines.count == 1 && devices.stdout.contains(deviceID), "\(devices)")
    }
}
#endif
