import Foundation
import MockProcessor
import PayPanel

/// The end of the soaks with the processor in its own process (`soak processor`, `soak
/// chaos`): processor serve's ledger in serve's references, so `PaymentsAudit` can lay the two
/// ledgers side by side, and the check that no card number reached either server's output.
public enum SoakLedger {
    /// A ledger effect with serve's references: `acct_…/pi_…/n` becomes the attempt id in the
    /// intent's `metadata[attempt_id]`, `acct_…/re_…` the refund reference in the refund's
    /// metadata. An entry with no such intent keeps the processor's reference, so the audit
    /// reports it as belonging to no attempt (money held or moved that serve cannot know of).
    package static func translated(_ effect: ProcessorEffect, attempts: [String: String], refunds: [String: String]) -> ProcessorEffect {
        func withoutAccount(_ reference: String) -> Substring {
            reference.firstIndex(of: "/").map { reference[reference.index(after: $0)...] } ?? Substring(reference)
        }
        let intent = withoutAccount(effect.reference).split(separator: "/").first.map(String.init) ?? effect.reference
        let refund = effect.refundReference.map { String(withoutAccount($0)) }
        return ProcessorEffect(
            processorID: effect.processorID, reference: attempts[intent] ?? effect.reference, operation: effect.operation,
            refundReference: refund.map { refunds[$0] ?? $0 }, amount: effect.amount, status: effect.status,
            declineCode: effect.declineCode, last4: effect.last4)
    }

    /// PaymentIntent id → `metadata[attempt_id]` and Refund id → `metadata[refund_reference]`,
    /// read page by page from processor serve's API (on `port`) with serve's key.
    static func processorDirectory(port: Int, key: String) throws -> (attempts: [String: String], refunds: [String: String]) {
        var attempts: [String: String] = [:]
        var refunds: [String: String] = [:]
        try processorPages("/v1/payment_intents", port: port, key: key) { object in
            if let id = object["id"]?.stringValue, let attempt = object["metadata"]?["attempt_id"]?.stringValue { attempts[id] = attempt }
        }
        try processorPages("/v1/refunds", port: port, key: key) { object in
            if let id = object["id"]?.stringValue, let reference = object["metadata"]?["refund_reference"]?.stringValue { refunds[id] = reference }
        }
        return (attempts, refunds)
    }

    private static func processorPages(_ path: String, port: Int, key: String, each: (JSONValue) -> Void) throws {
        var after: String?
        for _ in 0..<1000 {
            let client = try BenchmarkHTTPClient(port: port, timeoutSeconds: 60)
            let response = try client.request("GET", path + "?limit=100" + (after.map { "&starting_after=\($0)" } ?? ""), bearer: key, body: nil)
            let page = (try? JSONParser().parse(response.body)) ?? .null
            guard response.status == 200, let data = page["data"]?.arrayValue else {
                throw ProcessorSoakError(code: "soak_processor_list_failed", message: "GET \(path) at processor serve answered \(response.status): \(String(decoding: response.body.prefix(300), as: UTF8.self))")
            }
            data.forEach(each)
            guard page["has_more"]?.boolValue == true, let last = data.last?["id"]?.stringValue else { return }
            after = last
        }
    }

    /// Any test card number in the servers' standard error and output (access logs, worker
    /// lines) in `directory`.
    static func cardDataInOutput(directory: String, numbers: [String] = ["4242424242424242", "5555555555554444", "4000000000000002"]) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".err") || $0.hasSuffix(".out") }.sorted().compactMap { name in
            let text = (try? String(contentsOfFile: directory + "/" + name, encoding: .utf8)) ?? ""
            return numbers.contains { text.contains($0) } ? "\(name) holds a card number" : nil
        }
    }
}
