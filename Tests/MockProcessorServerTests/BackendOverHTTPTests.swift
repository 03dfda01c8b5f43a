import Foundation
import PayPanel
import Testing
import TestSupport

/// `paypanel serve --processor http://…` against `paypanel processor serve`: the backend meets
/// a real network between itself and the processor, in two processes.
@Suite("serve → processor serve over HTTP")
struct BackendOverHTTPTests {
    struct Backend {
        let server: ServedProcess
        let key: String

        func call(_ method: String, _ path: String, json: String? = nil) async throws -> Reply {
            let client = StripeTestClient(port: server.port, key: key)
            return try await client.call(method, path, rawBody: json.map { Array($0.utf8) }, headers: json == nil ? [:] : ["Content-Type": "application/json"])
        }
    }

    static func startBackend(processorPort: Int, directory: TemporaryDirectory) async throws -> Backend {
        let server = try await onThread {
            try ServedProcess(
                arguments: ["serve", "--port", "0", "--db", directory.file("payments.sqlite"), "--worker-interval", "100",
                            "--processor", "http://127.0.0.1:\(processorPort)", "--processor-key", "sk_test_backend", "--processor-timeout", "3"],
                directory: directory)
        }
        let range = try #require(server.stderr.range(of: #"sk_[A-Za-z0-9]+"#, options: .regularExpression))
        return Backend(server: server, key: String(server.stderr[range]))
    }

    static func card(_ number: String, holder: String? = nil) -> String {
        let holderText = holder.map { #","holder_name":"\#($0)""# } ?? ""
        return #"{"payment_method":{"type":"card","number":"\#(number)","exp_month":12,"exp_year":2030\#(holderText)}}"#
    }

    @Test("A payment through serve is authorized and captured at the processor service; a decline keeps its payer message")
    func approveAndDecline() async throws {
        let directory = try TemporaryDirectory("procserve-e2e")
        let processor = try await ServedProcess.processor(directory: directory)
        let backend = try await Self.startBackend(processorPort: processor.port, directory: directory)
        let created = try await backend.call("POST", "/v1/payment_intents", json: #"{"amount":1000,"currency":"USD","capture_method":"automatic"}"#)
        #expect(created.status == 200, "\(created.text)")
        let paid = try await backend.call("POST", "/v1/payment_intents/\(created.id)/confirm", json: Self.card("4242424242424242"))
        #expect(paid.status_ == "succeeded", "\(paid.text)")

        let processorClient = StripeTestClient(port: processor.port, key: "sk_test_backend")
        let ledger = try await processorClient.call("GET", "/_mock/ledger")
        #expect(ledger["data"]?.arrayValue?.compactMap { $0["operation"]?.stringValue } == ["authorize", "capture"], "\(ledger.text)")

        let other = try await backend.call("POST", "/v1/payment_intents", json: #"{"amount":500,"currency":"USD"}"#)
        let declined = try await backend.call("POST", "/v1/payment_intents/\(other.id)/confirm", json: Self.card("4000000000009995"))
        #expect(declined.status == 402, "\(declined.text)")
        #expect(declined.text.contains("insufficient"))
        #expect(await backend.server.terminate() == 0)
        #expect(await processor.terminate() == 0)
    }

    @Test("The processor drops the connection after approving: serve holds the intent as unknown and its worker reconciles it by search")
    func droppedConnectionIsReconciled() async throws {
        let directory = try TemporaryDirectory("procserve-e2e")
        let processor = try await ServedProcess.processor(directory: directory)
        let backend = try await Self.startBackend(processorPort: processor.port, directory: directory)
        let created = try await backend.call("POST", "/v1/payment_intents", json: #"{"amount":1000,"currency":"USD","capture_method":"manual"}"#)
        let confirmed = try await backend.call("POST", "/v1/payment_intents/\(created.id)/confirm", json: Self.card("4242424242424242", holder: "DROP_AFTER"))
        #expect(confirmed.status_ == "processing" || confirmed.status_ == "requires_capture", "\(confirmed.text)")
        // The worker looks the attempt up once the call is older than the processor timeout + 5 s.
        let deadline = Date().addingTimeInterval(60)
        var status = confirmed.status_
        while status == "processing", Date() < deadline {
            try await Task.sleep(for: .milliseconds(200))
            status = try await backend.call("GET", "/v1/payment_intents/\(created.id)").status_
        }
        #expect(status == "requires_capture")
        let processorClient = StripeTestClient(port: processor.port, key: "sk_test_backend")
        let ledger = try await processorClient.call("GET", "/_mock/ledger")
        #expect(ledger["data"]?.arrayValue?.count == 1, "authorized once: \(ledger.text)")
        #expect(await backend.server.terminate() == 0)
        #expect(await processor.terminate() == 0)
    }
}
