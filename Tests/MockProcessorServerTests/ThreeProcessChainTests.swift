import Foundation
import PayPanel
import Testing
import TestSupport

/// The whole chain in three processes: `paypanel checkout --server …` (the device, scripted in
/// line mode) → `paypanel serve --processor http://…` (the backend) → `paypanel processor serve`
/// (the processor). Every hop is a real socket on loopback.
@Suite("checkout → serve → processor serve, three processes")
struct ThreeProcessChainTests {
    /// One clock for all three: the device seals its Apple Pay token at this time, serve checks
    /// the token's age at it, the processor records its ledger at it.
    static let now = "2026-12-01T10:00:00Z"

    @Test("A scripted checkout is declined by the processor, then pays with another card; the processor's ledger shows both, and its intent is serve's attempt")
    func aCheckoutPaysThroughTheProcessorService() async throws {
        let directory = try TemporaryDirectory("three-process")
        let processor = try await ServedProcess.processor(directory: directory)
        let serve = try await onThread {
            try ServedProcess(
                arguments: ["serve", "--port", "0", "--db", directory.file("payments.sqlite"), "--test-root", "--now", Self.now,
                            "--processor", "http://127.0.0.1:\(processor.port)", "--processor-key", "sk_test_chain", "--processor-timeout", "20"],
                directory: directory)
        }
        let keyRange = try #require(serve.stderr.range(of: #"sk_[A-Za-z0-9]+"#, options: .regularExpression))
        let apiKey = String(serve.stderr[keyRange])

        // card 4 is declined insufficient_funds, card 1 approved (both sealed as Apple Pay tokens).
        let url = "http://127.0.0.1:\(serve.port)"
        let result = try await onThread {
            try CLIRunner.run(["checkout", "--server", url, "--json", "--now", Self.now], stdin: "expand\nbuy\ncard 4\nconfirm\ncard 1\nconfirm\ndone\n",
                              in: directory, environment: ["PAYPANEL_API_KEY": apiKey], timeout: 120)
        }
        #expect(result.status == 0, "\(result)")
        let events = result.stdoutLines.compactMap { try? JSONParser().parse($0) }
        #expect(events.contains { $0["event"] == "declined" && $0["declineCode"] == "insufficient_funds" }, "\(result.stdout)")
        let exit = try #require(events.last)
        #expect(exit["event"] == "exit" && exit["reason"] == "paid", "\(exit)")
        let intentID = try #require(exit["intentId"]?.stringValue)

        let backend = StripeTestClient(port: serve.port, key: apiKey)
        let intent = try await backend.call("GET", "/v1/payment_intents/\(intentID)")
        #expect(intent.status_ == "succeeded", "\(intent.text)")
        let attempts = intent["attempts"]?.arrayValue ?? []
        #expect(attempts.count == 2, "\(intent.text)")

        // The processor saw the decline, the approval and the capture, on serve's own account.
        let atProcessor = StripeTestClient(port: processor.port, key: "sk_test_chain")
        let ledger = try await atProcessor.call("GET", "/_mock/ledger")
        let entries = ledger["data"]?.arrayValue ?? []
        let summary = entries.map { "\($0["operation"]?.stringValue ?? "?") \($0["status"]?.stringValue ?? "?")" }
        #expect(summary == ["authorize declined", "authorize approved", "capture approved"], "\(ledger.text)")
        #expect(entries.first?["declineCode"] == "insufficient_funds", "\(ledger.text)")
        #expect(entries.last?["amount"]?.int64Value == intent["amount"]?.int64Value, "\(ledger.text)")
        // serve's approved attempt is the processor's PaymentIntent (found by its attempt id).
        let approved = try #require(attempts.first { $0["status"]?.stringValue == "captured" }?["id"]?.stringValue, "\(intent.text)")
        let found = try await atProcessor.search(attempt: approved)
        #expect(found.count == 1 && found.first?["status"]?.stringValue == "succeeded", "\(found)")
        #expect(found.first?["amount_received"]?.int64Value == intent["amount"]?.int64Value)
        // Another account sees none of it.
        let other = try await StripeTestClient(port: processor.port, key: "sk_test_someone_else").call("GET", "/_mock/ledger")
        #expect(other["data"]?.arrayValue?.isEmpty == true, "\(other.text)")

        #expect(await serve.terminate() == 0)
        #expect(await processor.terminate() == 0)
        for text in [result.stdout, result.stderr, serve.stderr, processor.stderr] {
            #expect(!text.contains("4000000000009995") && !text.contains("4242424242424242"), "no card number in any output")
        }
    }
}
