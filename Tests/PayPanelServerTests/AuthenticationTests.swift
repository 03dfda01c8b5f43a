import Foundation
import PayPanel
import Testing
import TestSupport

/// Secret keys: missing, wrong, revoked → 401; health and the OpenAPI document need none.
@Suite struct AuthenticationTests {
    @Test func missingWrongAndRevokedKeysAre401() async throws {
        let server = try await ServerProcess.start()
        #expect(server.key.hasPrefix("sk_"))
        let missing = try await server.request("GET", "/v1/payment_intents", key: "")
        #expect(missing.status == 401)
        #expect(missing.errorType == "authentication_error")
        #expect(missing.headers["Request-Id"] != nil)
        let wrong = try await server.request("GET", "/v1/payment_intents", key: "sk_wrongwrongwrong")
        #expect(wrong.status == 401)
        #expect(!wrong.text.contains("sk_wrong"))
        #expect(try await server.request("GET", "/v1/payment_intents").status == 200)

        // A second key, made by the CLI beside the running server, works at once; revoked, it stops.
        let made = try await onThread { try CLIRunner.run(["keys", "create", "--name", "ci", "--json", "--db", server.databasePath], in: server.directory) }
        #expect(made.status == 0, "\(made)")
        let madeJSON = try JSONParser().parse(made.stdout)
        let second = madeJSON["key"]?.stringValue ?? ""
        #expect(try await server.request("GET", "/v1/payment_intents", key: second).status == 200)
        let listed = try await onThread { try CLIRunner.run(["keys", "list", "--db", server.databasePath], in: server.directory) }
        #expect(!listed.stdout.contains(second) && !listed.stdout.contains(server.key))
        let revoked = try await onThread { try CLIRunner.run(["keys", "revoke", madeJSON["id"]?.stringValue ?? "", "--db", server.databasePath], in: server.directory) }
        #expect(revoked.status == 0, "\(revoked)")
        #expect(try await server.request("GET", "/v1/payment_intents", key: second).status == 401)

        #expect(try await server.request("GET", "/healthz", key: "").status == 200)
        #expect(try await server.request("GET", "/readyz", key: "").status == 200)
        #expect(try await server.request("GET", "/openapi.json", key: "").status == 200)
        #expect(await server.terminate() == 0)
        #expect(!server.stderr.contains(second))
    }
}
