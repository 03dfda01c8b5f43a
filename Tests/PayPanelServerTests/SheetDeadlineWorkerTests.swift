import Foundation
import PayPanel
import Testing
import TestSupport

/// The worker answers an Apple Pay sheet nobody else will: the server died during the device's
/// pay call (SIGKILL at a fault point, after the attempt was opened and before the processor was
/// asked), and the one started after it, 60 virtual seconds later, fires the sheet's 25 s
/// deadline without any request; its lookups of the lost authorization keep to their schedule,
/// and past the grace period "no record" fails the attempt.
@Suite struct SheetDeadlineWorkerTests {
    static let card = #"{"number":"4242424242424242","exp_month":12,"exp_year":2030}"#

    @Test func theWorkerFiresTheSheetDeadlineOfAPayCallWhoseServerDied() async throws {
        let directory = try TemporaryDirectory("paypanel-server")
        let first = try await ServerProcess.start(
            directory: directory, arguments: ["--now", "2026-12-01T10:00:00Z"], environment: ["PAYPANEL_FAULT": "before-authorize"])
        let created = try await first.request("POST", "/v1/checkouts", json: "{}")
        let secret = try #require(created["client_secret"]?.stringValue)
        let paid = try? await first.request("POST", "/v1/checkouts/\(created.id)/pay", json: #"{"amount":1000,"card":\#(Self.card)}"#, key: secret)
        #expect(paid == nil, "the pay call got an answer: \(paid?.text ?? "")")
        #expect(await first.server.process.waitForExit(within: 60))
        #expect(first.server.wasKilled, "the fault point kills the server")

        // A minute later: the sheet's deadline (25 s) and the first lookup (30 s) are due.
        let later = try await ServerProcess.start(directory: directory, arguments: ["--now", "2026-12-01T10:01:00Z"], key: first.key)
        let intentID = try #require(try await later.request("GET", "/v1/checkouts/\(created.id)")["payment_intent"]?.stringValue)
        var types: [String] = []
        let deadline = Date().addingTimeInterval(30)
        while !(types.contains("timer_sheet_deadline") && types.contains("reconciled_authorize_not_found")), Date() < deadline {
            try await Task.sleep(for: .milliseconds(100))
            types = try await Self.eventTypes(intentID, on: later)
        }
        #expect(types.contains("timer_sheet_deadline"), "\(types)")
        // Ten more passes of the worker at the same instant: the processor has no record yet,
        // which within the 5 min grace means "maybe still in transit", so the next lookup waits
        // for its timer (60 s later) instead of coming on every pass.
        try await later.waitForWorkerPasses(10)
        types = try await Self.eventTypes(intentID, on: later)
        #expect(types.filter { $0 == "reconciled_authorize_not_found" }.count == 1, "\(types)")
        #expect(try await later.request("GET", "/v1/payment_intents/\(intentID)")["status"] == "processing")
        #expect(await later.terminate() == 0)
        #expect(later.stderr.contains(#""worker":"reconcile""#))

        // Past the grace period, the lookup's "no record" fails the attempt: the payer may pay again.
        let last = try await ServerProcess.start(directory: directory, arguments: ["--now", "2026-12-01T10:10:00Z"], key: first.key)
        var intent = try await last.request("GET", "/v1/payment_intents/\(intentID)")
        let settled = Date().addingTimeInterval(30)
        while intent["status"] == "processing", Date() < settled {
            try await Task.sleep(for: .milliseconds(100))
            intent = try await last.request("GET", "/v1/payment_intents/\(intentID)")
        }
        #expect(intent["status"] == "requires_payment_method", "\(intent.text)")
        #expect(intent.text.contains("processor_has_no_record"), "\(intent.text)")
        #expect(try await last.request("GET", "/v1/checkouts/\(created.id)")["status"] == "open")
        #expect(await last.terminate() == 0)
    }

    static func eventTypes(_ intentID: String, on server: ServerProcess) async throws -> [String] {
        try await server.request("GET", "/v1/payment_intents/\(intentID)?include=events")["events"]?.arrayValue?.compactMap { $0["type"]?.stringValue } ?? []
    }
}
