import Foundation
import PayPanel
import Testing
import TestSupport

/// An intent is written `processing`, and a refund `pending`, before the ledger is asked (to
/// authorize, capture, release or refund), so a crash in between can neither lose what the
/// ledger did nor show what it never did: the next start settles them from the ledger.
@Suite("processor serve: intents and refunds written ahead of the ledger call")
struct RefundWriteAheadTests {
    /// The one account in the ledger in `directory` (its account tables),
    /// as `{"intents": […], "refunds": […]}`: each object's row as JSON, in creation order, and the ledger's path.
    static func snapshot(in directory: TemporaryDirectory) throws -> (path: String, json: [String: Any]) {
        let path = directory.file("processor.sqlite")
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

    @Test("After a crash, an intent left processing by a capture or a cancel is settled from the ledger: succeeded or canceled if the ledger did it, requires_capture if it never got there")
    func capturesAndCancelsAreSettledFromTheLedgerAfterARestart() async throws {
        let directory = try TemporaryDirectory("procserve-capture-ahead")
        let first = try await ServedProcess.processor(directory: directory)
        var client = StripeTestClient(port: first.port, key: "sk_test_capture_ahead")
        var ids: [String] = []
        for attempt in ["att_captured", "att_canceled", "att_never_sent"] {
            ids.append(try #require(try await client.pay(metadata: ["attempt_id": attempt], idempotencyKey: attempt).reply).id)
        }
        #expect(try await client.call("POST", "/v1/payment_intents/\(ids[0])/capture").status_ == "succeeded")
        #expect(try await client.call("POST", "/v1/payment_intents/\(ids[1])/cancel").status_ == "canceled")
        await first.crash()

        // What a crash after the write-ahead leaves: each of the three `processing` with its
        // authorization's amounts, whether or not the ledger call that followed was made.
        let (path, account) = try Self.snapshot(in: directory)
        var intents = try #require(account["intents"] as? [[String: Any]])
        #expect(intents.count == 3)
        for index in intents.indices {
            intents[index]["status"] = "processing"
            intents[index]["amountCapturable"] = 1000
            intents[index]["amountReceived"] = 0
            intents[index]["canceledAt"] = nil
        }
        var written = account
        written["intents"] = intents
        try Self.write(written, to: path)

        let second = try await ServedProcess.processor(directory: directory)
        client = StripeTestClient(port: second.port, key: "sk_test_capture_ahead")
        let captured = try await client.call("GET", "/v1/payment_intents/\(ids[0])")
        #expect(captured.status_ == "succeeded" && captured["amount_received"]?.int64Value == 1000, "\(captured.text)")
        let canceled = try await client.call("GET", "/v1/payment_intents/\(ids[1])")
        #expect(canceled.status_ == "canceled" && canceled["amount_capturable"]?.int64Value == 0, "\(canceled.text)")
        let neverSent = try await client.call("GET", "/v1/payment_intents/\(ids[2])")
        #expect(neverSent.status_ == "requires_capture" && neverSent["amount_capturable"]?.int64Value == 1000, "\(neverSent.text)")
        #expect(try await client.call("POST", "/v1/payment_intents/\(ids[2])/capture").status_ == "succeeded", "the capture it never sent can be made now")
        #expect(await second.terminate() == 0)
    }
}
