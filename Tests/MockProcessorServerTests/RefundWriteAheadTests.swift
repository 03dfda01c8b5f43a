import Foundation
import PayPanel
import Testing
import TestSupport

/// A refund is written to the account store as `pending` before the ledger is asked, so a
/// crash in between can neither lose a refund the ledger made nor leave one it never made.
@Suite("processor serve: refunds written ahead of the ledger call")
struct RefundWriteAheadTests {
    /// The one account in the account store beside the ledger in `directory` (`<ledger>.accounts.sqlite`),
    /// as `{"intents": […], "refunds": […]}`: each object's row as JSON, in creation order, and the store's path.
    static func snapshot(in directory: TemporaryDirectory) throws -> (path: String, json: [String: Any]) {
        let path = directory.file("processor.sqlite.accounts.sqlite")
        let database = try Database(path: path, options: Database.Options(create: false))
        let tags = try database.queryAll("SELECT tag FROM accounts") { $0.string(0) }
        #expect(tags.count == 1, "one account: \(tags)")
        let tag = try #require(tags.first)
        var json: [String: Any] = ["tag": tag]
        for (member, kind) in [("intents", "intent"), ("refunds", "refund")] {
            json[member] = try database.queryAll("SELECT body FROM account_objects WHERE account = ? AND kind = ? ORDER BY position", [tag, kind]) { row in
                try JSONSerialization.jsonObject(with: Data(row.string(0).utf8)) as? [String: Any] ?? [:]
            }
        }
        return (path, json)
    }

    /// Puts `account`'s intents and refunds (as `snapshot` gives them) in the store at `path`
    /// in place of those there: what a crash at another moment would have left.
    static func write(_ account: [String: Any], to path: String) throws {
        let database = try Database(path: path, options: Database.Options(create: false))
        let tag = try #require(account["tag"] as? String)
        try database.write {
            for (member, kind) in [("intents", "intent"), ("refunds", "refund")] {
                try database.execute("DELETE FROM account_objects WHERE account = ? AND kind = ?", [tag, kind])
                for (index, object) in (account[member] as? [[String: Any]] ?? []).enumerated() {
                    let body = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
                    try database.execute(
                        "INSERT INTO account_objects (account, kind, id, position, body) VALUES (?, ?, ?, ?, ?)",
                        [tag, kind, object["id"] as? String ?? "", index + 1, body])
                }
            }
        }
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
        // (killed before the answer was written); and one never sent (killed before the ledger
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
        try Self.write(account, to: path)

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
