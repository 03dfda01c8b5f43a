import Foundation
import PayPanel
import Testing
import TestSupport

/// A refund is written to the account's snapshot as `pending` before the ledger is asked, so a
/// crash in between can neither lose a refund the ledger made nor leave one it never made.
@Suite("processor serve: refunds written ahead of the ledger call")
struct RefundWriteAheadTests {
    /// The one account snapshot in `directory`, as JSON, and its path.
    static func snapshot(in directory: TemporaryDirectory) throws -> (path: String, json: [String: Any]) {
        let folder = directory.file("processor.sqlite.accounts")
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasPrefix("acct_") && $0.hasSuffix(".json") })
        let path = folder + "/" + name
        let data = try #require(FileManager.default.contents(atPath: path))
        return (path, try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any]))
    }

    @Test("After a crash, a pending refund the ledger made is succeeded and one it never made is failed, its amount refundable again")
    func pendingRefundsAreSettledFromTheLedgerAfterARestart() async throws {
        let directory = try TemporaryDirectory("procserve-refund-ahead")
        let first = try await ServedProcess.processor(directory: directory)
        var client = StripeTestClient(port: first.port, key: "sk_test_refund_ahead")
        let paid = try #require(try await client.pay(metadata: ["attempt_id": "att_ra1"], idempotencyKey: "att_ra1").reply)
        #expect(try await client.call("POST", "/v1/payment_intents/\(paid.id)/capture").status_ == "succeeded")
        let made = try await client.call("POST", "/v1/refunds", [("payment_intent", paid.id), ("amount", "300")])
        #expect(made.status_ == "succeeded", "\(made.text)")
        await first.crash()

        // What the two crash windows leave on disk: the refund the ledger made, still pending
        // (killed before the answer's snapshot); and one never sent (killed before the ledger
        // call), its amount already counted as refunded by the write-ahead.
        var (path, account) = try Self.snapshot(in: directory)
        var refunds = try #require(account["refunds"] as? [[String: Any]])
        #expect(refunds.count == 1)
        refunds[0]["status"] = "pending"
        var ghost = refunds[0]
        let reference = try #require(ghost["ledgerReference"] as? String)
        let madeID = try #require(ghost["id"] as? String)
        #expect(reference.hasSuffix(madeID))
        ghost["id"] = "re_ghostnevermade"
        ghost["ledgerReference"] = String(reference.dropLast(madeID.count)) + "re_ghostnevermade"
        ghost["amount"] = 200
        refunds.append(ghost)
        account["refunds"] = refunds
        var intents = try #require(account["intents"] as? [[String: Any]])
        intents[0]["refunded"] = 500
        account["intents"] = intents
        try JSONSerialization.data(withJSONObject: account).write(to: URL(fileURLWithPath: path))

        let second = try await ServedProcess.processor(directory: directory)
        client = StripeTestClient(port: second.port, key: "sk_test_refund_ahead")
        let listed = try await client.call("GET", "/v1/refunds", [("payment_intent", paid.id)])
        let statuses = Dictionary(uniqueKeysWithValues: (listed["data"]?.arrayValue ?? []).map {
            ($0["id"]?.stringValue ?? "", $0["status"]?.stringValue ?? "")
        })
        #expect(statuses == [made.id: "succeeded", "re_ghostnevermade": "failed"], "\(listed.text)")
        // The failed one gave its 200 back: everything but the 300 refunded can be refunded.
        let rest = try await client.call("POST", "/v1/refunds", [("payment_intent", paid.id)])
        #expect(rest["amount"]?.int64Value == 700, "\(rest.text)")
        (path, account) = try Self.snapshot(in: directory)
        #expect((account["refunds"] as? [[String: Any]])?.compactMap { $0["status"] as? String }.sorted() == ["failed", "succeeded", "succeeded"])
        #expect(await second.terminate() == 0)
    }
}
