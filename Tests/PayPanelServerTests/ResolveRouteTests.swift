import Foundation
import PayPanel
import Testing
import TestSupport

/// `POST /v1/payment_intents/{id}/resolve`, the operator's resolution over HTTP: an intent is
/// driven into requires_merchant_action with the CLI on the server's files (an authorization
/// whose answer was lost, reconciled with lookups slower than the timeout until they ran out),
/// then resolved through the API: refusals first (bad body, the processor's ledger disagreeing),
/// then a resolution it allows, kept in the history with the note and the operator.
@Suite struct ResolveRouteTests {
    static let now = "2026-11-29T12:00:00Z"

    /// Runs `paypanel` on the server's databases at `now` (`payments create` has no processor).
    static func cli(_ directory: TemporaryDirectory, _ arguments: [String]) async throws -> CLIResult {
        var files = ["--db", directory.file("payments.sqlite")]
        if arguments.first != "payments" || arguments.dropFirst().first != "create" && arguments.dropFirst().first != "show" {
            files += ["--processor-db", directory.file("processor.sqlite")]
        }
        let all = arguments + files
        return try await onThread {
            try CLIRunner.run(all, in: directory, environment: ["PAYPANEL_NOW": now], timeout: 120)
        }
    }

    /// A manual-capture intent whose authorization was approved at the processor but whose answer
    /// never reached PayPanel, and whose lookups ran out: requires_merchant_action.
    static func intentNeedingAnOperator(_ directory: TemporaryDirectory) async throws -> String {
        let created = try await cli(directory, ["payments", "create", "--amount", "10", "--capture", "manual", "--json"])
        let id = try #require(try JSONParser().parse(created.stdout)["id"]?.stringValue, "\(created)")
        let lost = try await cli(directory, ["payments", "authorize", id, "--card", "4242424242424242", "--holder", "TIMEOUT_THEN_APPROVED"])
        #expect(lost.status == 1, "\(lost)")
        for _ in 0..<PaymentPolicy.standard.maximumReconciliationLookups {
            let shown = try await cli(directory, ["payments", "show", id, "--json"])
            if try JSONParser().parse(shown.stdout)["status"] == "requires_merchant_action" { break }
            _ = try await cli(directory, ["reconcile", "--latency", "31s"])
        }
        return id
    }

    @Test func anOperatorResolvesOverHTTPAndTheProcessorsLedgerIsHeard() async throws {
        let directory = try TemporaryDirectory("paypanel-server")
        let id = try await Self.intentNeedingAnOperator(directory)
        // First start on these files: the server creates its key (the CLI made none).
        let server = try await ServerProcess.start(directory: directory, arguments: ["--now", Self.now])
        let path = "/v1/payment_intents/\(id)/resolve"
        #expect(try await server.request("GET", "/v1/payment_intents/\(id)")["status"] == "requires_merchant_action")

        let noNote = try await server.request("POST", path, json: #"{"resolution":"authorized"}"#)
        #expect(noNote.status == 400 && noNote.errorCode == "parameter_missing" && noNote.json["error"]?["param"] == "note", "\(noNote.text)")
        let badWay = try await server.request("POST", path, json: #"{"resolution":"paid","note":"x"}"#)
        #expect(badWay.status == 400 && badWay.json["error"]?["param"] == "resolution", "\(badWay.text)")
        let emptyNote = try await server.request("POST", path, json: #"{"resolution":"authorized","note":""}"#)
        #expect(emptyNote.status == 400 && emptyNote.errorCode == "invalid_resolution_note", "\(emptyNote.text)")

        // The processor approved: "retry" (no money held) contradicts its ledger.
        let contradicted = try await server.request("POST", path, json: #"{"resolution":"retry","note":"payer says it failed"}"#)
        #expect(contradicted.status == 409 && contradicted.errorCode == "resolution_contradicts_processor", "\(contradicted.text)")

        let resolved = try await server.request(
            "POST", path, json: #"{"resolution":"authorized","note":"ledger shows the approval","operator":"ada"}"#,
            headers: ["Idempotency-Key": "resolve-1"])
        #expect(resolved.status == 200, "\(resolved.text)")
        #expect(resolved["status"] == "requires_capture" && resolved["amount_capturable"] == 1000, "\(resolved.text)")
        #expect(resolved["resolution"]?["as"] == "authorized" && resolved["resolution"]?["operator"] == "ada")
        #expect(resolved["resolution"]?["forced"] == false)
        let replay = try await server.request(
            "POST", path, json: #"{"resolution":"authorized","note":"ledger shows the approval","operator":"ada"}"#,
            headers: ["Idempotency-Key": "resolve-1"])
        #expect(replay.headers["Idempotent-Replayed"] == "true" && replay["status"] == "requires_capture")

        // Resolved once: a second resolution is a state conflict.
        let again = try await server.request("POST", path, json: #"{"resolution":"canceled","note":"again"}"#)
        #expect(again.status == 409, "\(again.text)")
        let history = try await server.request("GET", "/v1/payment_intents/\(id)?include=events")
        let types = history["events"]?.arrayValue?.compactMap { $0["type"]?.stringValue } ?? []
        #expect(types.filter { $0.contains("resolved") }.count == 1, "\(types)")
        #expect(history.text.contains("ledger shows the approval"))
        #expect(await server.terminate() == 0)
    }
}
