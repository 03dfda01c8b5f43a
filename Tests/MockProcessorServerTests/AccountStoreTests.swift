import Foundation
import MockProcessor
import MockProcessorServer
import PayPanel
import PayPanelHTTP
import Testing
import TestSupport

/// `processor serve` keeps its accounts as one row per object in the ledger file itself: a
/// request writes what it changed, whatever the account holds; a SIGKILL loses no answered
/// change and leaves no temporary file; an earlier version's files beside the ledger (a second
/// SQLite file, or JSON snapshots) are taken over.
@Suite("processor serve: the account store")
struct AccountStoreTests {
    /// What the account store wrote while `body` ran.
    static func written(by writes: AccountStoreWrites, _ body: () async throws -> Void) async rethrows -> AccountStoreWrites.Totals {
        let before = writes.totals
        try await body()
        let after = writes.totals
        return AccountStoreWrites.Totals(
            transactions: after.transactions - before.transactions, rows: after.rows - before.rows, bytes: after.bytes - before.bytes,
            accountRows: after.accountRows - before.accountRows)
    }

    @Test("An authorization, a capture and a refund write the same rows and bytes in an account of 1,000 intents as in one of 10; a list writes nothing")
    func aRequestsWriteDoesNotGrowWithTheAccount() async throws {
        let directory = try TemporaryDirectory("procserve-store-writes")
        // A fixed clock: every timestamp written has the same digits in both accounts.
        let clock = ManualClock(try Timestamp.parse("2026-12-01T10:00:00Z"))
        let processor = try MockProcessor(ledgerPath: directory.file("processor.sqlite"), clock: clock)
        try await ProcessorServer.seedAccounts([(key: "sk_test_small", intents: 10), (key: "sk_test_large", intents: 1000)], processor: processor, clock: clock)
        let writes = AccountStoreWrites()
        var options = ProcessorServer.Options()
        options.accountStoreWrites = writes
        let server = try await ProcessorServer.start(
            processor: processor, clock: clock, configuration: HTTPServer.Configuration(host: "127.0.0.1", port: 0), options: options)

        var figures: [String: [AccountStoreWrites.Totals]] = [:]
        for key in ["sk_test_small", "sk_test_large"] {
            let client = StripeTestClient(port: server.port, key: key)
            var intent: Reply?
            let authorization = try await Self.written(by: writes) {
                intent = try await client.pay(2500, metadata: ["attempt_id": "att_same"], idempotencyKey: "order-same").reply
            }
            let id = try #require(intent).id
            #expect(intent?.status_ == "requires_capture", "\(intent?.text ?? "")")
            var captured: Reply?
            let capture = try await Self.written(by: writes) {
                captured = try await client.call("POST", "/v1/payment_intents/\(id)/capture")
            }
            #expect(captured?.status_ == "succeeded", "\(captured?.text ?? "")")
            var refunded: Reply?
            let refund = try await Self.written(by: writes) {
                refunded = try await client.call("POST", "/v1/refunds", [("payment_intent", id), ("amount", "700")])
            }
            #expect(refunded?.status_ == "succeeded", "\(refunded?.text ?? "")")
            var listed: Reply?
            let list = try await Self.written(by: writes) {
                listed = try await client.call("GET", "/v1/payment_intents", [("limit", "3")])
            }
            #expect(listed?["data"]?.arrayValue?.count == 3, "\(listed?.text ?? "")")
            figures[key] = [authorization, capture, refund, list]
        }
        let small = try #require(figures["sk_test_small"])
        let large = try #require(figures["sk_test_large"])
        for (step, (few, many)) in zip(["authorization", "capture", "refund", "list"], zip(small, large)) {
            #expect(few.transactions == many.transactions, "\(step): \(few) at 10 intents, \(many) at 1,000")
            #expect(few.rows == many.rows, "\(step): \(few) at 10 intents, \(many) at 1,000")
            // Ids are random but of fixed length, and every time comes from the fixed clock.
            #expect(few.bytes == many.bytes, "\(step): \(few) at 10 intents, \(many) at 1,000")
            // Proportional to the change: a handful of rows (the intent written ahead of the
            // ledger call and after it, its payment method and charge, the idempotency key,
            // the refund), a few KiB.
            #expect(many.rows <= 6 && many.bytes < 8192, "\(step) at 1,000 intents: \(many)")
            // The stored account's own row did not change: it is not rewritten.
            #expect(few.accountRows == 0 && many.accountRows == 0, "\(step): \(few) at 10 intents, \(many) at 1,000")
        }
        #expect(large[3] == AccountStoreWrites.Totals(), "a GET writes nothing")
        await server.shutdown(grace: .seconds(5))
    }

    @Test("A new account's first write carries its own row; later writes leave it alone until its test clock moves")
    func theAccountsOwnRowIsWrittenWhenNewAndWhenItsClockMoves() async throws {
        let directory = try TemporaryDirectory("procserve-account-row")
        let clock = ManualClock(try Timestamp.parse("2026-12-01T10:00:00Z"))
        let ledger = directory.file("processor.sqlite")
        let writes = AccountStoreWrites()
        var options = ProcessorServer.Options()
        options.accountStoreWrites = writes
        let server = try await ProcessorServer.start(
            processor: try MockProcessor(ledgerPath: ledger, clock: clock), clock: clock,
            configuration: HTTPServer.Configuration(host: "127.0.0.1", port: 0), options: options)
        let client = StripeTestClient(port: server.port, key: "sk_test_account_row")
        var intent: Reply?
        let first = try await Self.written(by: writes) { intent = try await client.pay(2500).reply }
        let id = try #require(intent).id
        #expect(first.accountRows == 1, "the new account's row, once: \(first)")
        var answers: [Reply] = []
        let capture = try await Self.written(by: writes) {
            answers.append(try await client.call("POST", "/v1/payment_intents/\(id)/capture"))
        }
        #expect(capture.transactions > 0 && capture.accountRows == 0, "\(capture)")
        let advance = try await Self.written(by: writes) {
            answers.append(try await client.call("POST", "/_mock/clock/advance", [("seconds", "60")]))
        }
        #expect(advance.accountRows == 1, "the moved clock is written: \(advance)")
        let refund = try await Self.written(by: writes) {
            answers.append(try await client.call("POST", "/v1/refunds", [("payment_intent", id)]))
        }
        #expect(refund.transactions > 0 && refund.accountRows == 0, "\(refund)")
        #expect(answers.map(\.status) == [200, 200, 200], "\(answers.map(\.text))")
        #expect(answers.map(\.status_) == ["succeeded", "", "succeeded"], "\(answers.map(\.text))")
        await server.shutdown(grace: .seconds(5))

        // The clock the row holds is the one a restart reads back.
        let restarted = try await ProcessorServer.start(
            processor: try MockProcessor(ledgerPath: ledger, clock: clock), clock: clock,
            configuration: HTTPServer.Configuration(host: "127.0.0.1", port: 0))
        let again = StripeTestClient(port: restarted.port, key: "sk_test_account_row")
        let advanced = try await again.call("POST", "/_mock/clock/advance", [("seconds", "1")])
        #expect(advanced["advanced_seconds"]?.int64Value == 61, "\(advanced.text)")
        await restarted.shutdown(grace: .seconds(5))
    }

    /// Every file under `directory` whose name ends in `.tmp`.
    static func temporaryFiles(in directory: TemporaryDirectory) throws -> [String] {
        try FileManager.default.subpathsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".tmp") }
    }

    @Test("SIGKILL while requests are in flight: after a restart every answered intent and replay is there, and no .tmp file is left (stale ones of earlier versions are removed)")
    func aKillLosesNoAnsweredChangeAndLeavesNoTemporaryFile() async throws {
        let directory = try TemporaryDirectory("procserve-store-kill")
        let first = try await ServedProcess.processor(directory: directory)
        let port = first.port
        // Two clients create intents as fast as they can; the server is killed under them.
        let answered = Recorder<(key: String, id: String)>()
        let clients = (0..<2).map { client in
            Task {
                let stripe = StripeTestClient(port: port, key: "sk_test_kill")
                for index in 0..<400 {
                    let key = "order-\(client)-\(index)"
                    guard case .response(let reply)? = try? await stripe.pay(metadata: ["attempt_id": key], idempotencyKey: key, timeout: 10),
                        reply.status == 200
                    else { return }
                    answered.record((key, reply.id))
                }
            }
        }
        // Bounded: clients that stop answering (they return at their first failure) fail the
        // test here instead of hanging it.
        let deadline = Date().addingTimeInterval(60)
        while answered.all.count < 20, Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        try #require(answered.all.count >= 20, "only \(answered.all.count) payments were answered before the kill")
        await first.crash()
        for client in clients { await client.value }

        // What an earlier version killed mid-write left beside the ledger.
        try FileManager.default.createDirectory(atPath: directory.file("processor.sqlite.accounts"), withIntermediateDirectories: true)
        try directory.write("processor.sqlite.accounts/.acct_0123456789abcdef.json.k3x9q.tmp", "{\"tag\":\"acct_01")

        let second = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: second.port, key: "sk_test_kill")
        #expect(try Self.temporaryFiles(in: directory) == [])
        #expect(!FileManager.default.fileExists(atPath: directory.file("processor.sqlite.accounts")), "the emptied directory of snapshots is removed")
        for (key, id) in answered.all {
            let found = try await client.call("GET", "/v1/payment_intents/\(id)")
            #expect(found.status_ == "requires_capture", "\(key): \(found.text)")
            let replay = try #require(try await client.pay(metadata: ["attempt_id": key], idempotencyKey: key).reply)
            #expect(replay.id == id && replay.headers["Idempotent-Replayed"] == "true", "\(key): \(replay.text)")
        }
        #expect(await second.terminate() == 0)
        #expect(try Self.temporaryFiles(in: directory) == [])
    }

    /// An account snapshot exactly as the version before the account store wrote it (recorded
    /// from its `processor serve` under key `sk_test_legacy_import`): an intent authorized with
    /// an Idempotency-Key, one captured and partly refunded, a card chain, the clock advanced 60 s.
    static let legacySnapshot = #"""
        {"refunds":[{"paymentIntent":"pi_fux0Z0HuvVdx4YhNj0re3ne4","currency":"USD","id":"re_uQuGySdOC5FYqTxBrfEGdZHC","metadata":[],"status":"succeeded","ledgerReference":"acct_055e41819dc546a3\/re_uQuGySdOC5FYqTxBrfEGdZHC","created":1796119200,"charge":"ch_fux0Z0HuvVdx4YhNj0re3ne41","amount":500}],"keys":[{"createdAt":1796119200,"fingerprint":"POST \/v1\/payment_intents {\"amount\":\"1500\",\"currency\":\"usd\",\"confirm\":\"true\",\"capture_method\":\"manual\",\"payment_method\":\"pm_card_visa\",\"metadata\":{\"attempt_id\":\"att_legacy\"}}","status":200,"body":"{\"id\":\"pi_I9ry84nQt193J3T6MIwwyUun\",\"object\":\"payment_intent\",\"amount\":1500,\"amount_capturable\":1500,\"amount_received\":0,\"canceled_at\":null,\"cancellation_reason\":null,\"capture_method\":\"manual\",\"client_secret\":\"pi_I9ry84nQt193J3T6MIwwyUun_secret_R4ZOxZFPu3ViQzA9Zr86znd1\",\"confirmation_method\":\"automatic\",\"created\":1796119200,\"currency\":\"usd\",\"customer\":null,\"description\":null,\"last_payment_error\":null,\"latest_charge\":\"ch_I9ry84nQt193J3T6MIwwyUun1\",\"livemode\":false,\"metadata\":{\"attempt_id\":\"att_legacy\"},\"next_action\":null,\"payment_method\":\"pm_card_visa\",\"payment_method_types\":[\"card\"],\"status\":\"requires_capture\"}","key":"att_legacy"}],"clockOffset":60,"chains":[{"card":"2f725bbd1f405a1ed0336abaf85ddfeb6902a9984a76fd877c3b5cc3b5085a82","next":0,"steps":["GENERIC_DECLINE","APPROVE"]}],"intents":[{"currency":"USD","amount":1500,"clientSecret":"pi_I9ry84nQt193J3T6MIwwyUun_secret_R4ZOxZFPu3ViQzA9Zr86znd1","paymentMethodID":"pm_card_visa","refunded":0,"id":"pi_I9ry84nQt193J3T6MIwwyUun","metadata":[["attempt_id","att_legacy"]],"created":1796119200,"authorizations":1,"status":"requires_capture","latestCharge":"ch_I9ry84nQt193J3T6MIwwyUun1","captureBefore":1796724000,"amountReceived":0,"captureMethod":"manual","amountCapturable":1500},{"currency":"USD","amount":2000,"clientSecret":"pi_fux0Z0HuvVdx4YhNj0re3ne4_secret_3ttZmSBmq77X5TFGiZjaZw30","paymentMethodID":"pm_card_visa","refunded":500,"id":"pi_fux0Z0HuvVdx4YhNj0re3ne4","metadata":[],"created":1796119200,"authorizations":1,"status":"succeeded","latestCharge":"ch_fux0Z0HuvVdx4YhNj0re3ne41","captureBefore":1796724000,"amountReceived":2000,"captureMethod":"automatic","amountCapturable":0}],"tag":"acct_055e41819dc546a3"}
        """#

    @Test("An earlier version's snapshot file is taken into the store once: intents, search, replays, refunds, chains and clock carry on; the file and its directory are gone")
    func anEarlierSnapshotIsImported() async throws {
        let directory = try TemporaryDirectory("procserve-store-legacy")
        try FileManager.default.createDirectory(atPath: directory.file("processor.sqlite.accounts"), withIntermediateDirectories: true)
        try directory.write("processor.sqlite.accounts/acct_055e41819dc546a3.json", Self.legacySnapshot)
        let first = try await ServedProcess.processor(directory: directory)
        #expect(!FileManager.default.fileExists(atPath: directory.file("processor.sqlite.accounts")))
        #expect(!first.stderr.contains("warning"), "\(first.stderr)")
        var client = StripeTestClient(port: first.port, key: "sk_test_legacy_import")

        let authorized = try await client.call("GET", "/v1/payment_intents/pi_I9ry84nQt193J3T6MIwwyUun")
        #expect(authorized.status_ == "requires_capture" && authorized["amount_capturable"]?.int64Value == 1500, "\(authorized.text)")
        #expect(try await client.search(attempt: "att_legacy").first?["id"]?.stringValue == "pi_I9ry84nQt193J3T6MIwwyUun")
        let replay = try #require(try await client.pay(1500, metadata: ["attempt_id": "att_legacy"], idempotencyKey: "att_legacy").reply)
        #expect(replay.id == "pi_I9ry84nQt193J3T6MIwwyUun" && replay.headers["Idempotent-Replayed"] == "true", "\(replay.text)")
        let refunds = try await client.call("GET", "/v1/refunds", [("payment_intent", "pi_fux0Z0HuvVdx4YhNj0re3ne4")])
        #expect(refunds["data"]?.arrayValue?.map { $0["id"]?.stringValue ?? "" } == ["re_uQuGySdOC5FYqTxBrfEGdZHC"], "\(refunds.text)")
        // 500 of the 2,000 captured was refunded: 1,500 is left, and no more.
        let tooMuch = try await client.call("POST", "/v1/refunds", [("payment_intent", "pi_fux0Z0HuvVdx4YhNj0re3ne4"), ("amount", "1501")])
        #expect(tooMuch.status == 400, "\(tooMuch.text)")
        let listed = try await client.call("GET", "/v1/payment_intents")
        #expect(listed["data"]?.arrayValue?.map { $0["id"]?.stringValue ?? "" } == ["pi_fux0Z0HuvVdx4YhNj0re3ne4", "pi_I9ry84nQt193J3T6MIwwyUun"], "newest first, as written")
        #expect(try await client.pay(method: "5555555555554444").reply?.status == 402, "the chain's first step, GENERIC_DECLINE")
        let advanced = try await client.call("POST", "/_mock/clock/advance", [("seconds", "1")])
        #expect(advanced["advanced_seconds"]?.int64Value == 61, "\(advanced.text)")
        #expect(await first.terminate() == 0)

        // Restarted: the same account, now read from the store.
        let second = try await ServedProcess.processor(directory: directory)
        client = StripeTestClient(port: second.port, key: "sk_test_legacy_import")
        #expect(try await client.call("GET", "/v1/payment_intents/pi_I9ry84nQt193J3T6MIwwyUun").status_ == "requires_capture")
        #expect(try await client.pay(method: "5555555555554444").reply?.status_ == "requires_capture", "the chain went on: APPROVE")
        #expect(await second.terminate() == 0)
    }

    @Test("An unreadable snapshot file of an earlier version is reported by name and left in place; the other accounts load")
    func anUnreadableSnapshotIsReportedAndKept() async throws {
        let directory = try TemporaryDirectory("procserve-store-legacy-bad")
        try FileManager.default.createDirectory(atPath: directory.file("processor.sqlite.accounts"), withIntermediateDirectories: true)
        try directory.write("processor.sqlite.accounts/acct_055e41819dc546a3.json", Self.legacySnapshot)
        try directory.write("processor.sqlite.accounts/acct_ffffffffffffffff.json", "{\"tag\": \"acct_ffff")
        let server = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: server.port, key: "sk_test_legacy_import")
        #expect(try await client.call("GET", "/v1/payment_intents/pi_I9ry84nQt193J3T6MIwwyUun").status == 200)
        #expect(server.stderr.contains("processor.sqlite.accounts/acct_ffffffffffffffff.json"), "\(server.stderr)")
        #expect(FileManager.default.fileExists(atPath: directory.file("processor.sqlite.accounts/acct_ffffffffffffffff.json")))
        #expect(!FileManager.default.fileExists(atPath: directory.file("processor.sqlite.accounts/acct_055e41819dc546a3.json")))
        #expect(await server.terminate() == 0)
    }

    /// The schema of the second file earlier versions kept beside the ledger,
    /// `<ledger>.accounts.sqlite` ('PAY4', its migrations 0001 and 0002 applied).
    static let legacyStoreSchema = """
        PRAGMA application_id = 1346459956;
        CREATE TABLE schema_migrations (identifier TEXT PRIMARY KEY NOT NULL, checksum TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT;
        CREATE TABLE accounts (tag TEXT PRIMARY KEY NOT NULL, clock_offset REAL NOT NULL) STRICT;
        CREATE TABLE account_objects (
            account TEXT NOT NULL REFERENCES accounts (tag) ON DELETE CASCADE,
            kind TEXT NOT NULL CHECK (kind IN ('intent', 'refund', 'idempotency_key', 'card_chain', 'charge', 'customer', 'payment_method')),
            id TEXT NOT NULL, position INTEGER NOT NULL, body TEXT NOT NULL, UNIQUE (account, kind, id)) STRICT;
        """

    /// Writes `<ledger>.accounts.sqlite` in `directory` as an earlier version left it, holding
    /// the account of `legacySnapshot`: one row per intent, refund, stored answer and chain.
    static func writeLegacyStore(in directory: TemporaryDirectory) throws {
        let snapshot = try #require(try JSONSerialization.jsonObject(with: Data(legacySnapshot.utf8)) as? [String: Any])
        let tag = try #require(snapshot["tag"] as? String)
        let database = try Database(path: directory.file("processor.sqlite.accounts.sqlite"))
        try database.executeScript(legacyStoreSchema)
        try database.write {
            try database.execute("INSERT INTO accounts (tag, clock_offset) VALUES (?, ?)", [tag, snapshot["clockOffset"] as? Double ?? 0])
            for (member, kind, idField) in [("intents", "intent", "id"), ("refunds", "refund", "id"), ("keys", "idempotency_key", "key"), ("chains", "card_chain", "card")] {
                for (index, object) in (snapshot[member] as? [[String: Any]] ?? []).enumerated() {
                    let body = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
                    let position = kind == "intent" || kind == "refund" ? index + 1 : 0
                    try database.execute(
                        "INSERT INTO account_objects (account, kind, id, position, body) VALUES (?, ?, ?, ?, ?)",
                        [tag, kind, object[idField] as? String ?? "", position, body])
                }
            }
        }
    }

    @Test("An earlier version's second file, <ledger>.accounts.sqlite, is moved into the ledger once: intents, replays, refunds, chains and clock carry on; the file is gone, and a copy left by a crash mid-import adds nothing")
    func anEarlierStoreFileIsMovedIntoTheLedger() async throws {
        let directory = try TemporaryDirectory("procserve-store-legacy-file")
        try Self.writeLegacyStore(in: directory)
        let first = try await ServedProcess.processor(directory: directory)
        for suffix in ["", "-wal", "-shm"] {
            #expect(!FileManager.default.fileExists(atPath: directory.file("processor.sqlite.accounts.sqlite" + suffix)), "\(suffix)")
        }
        #expect(!first.stderr.contains("warning"), "\(first.stderr)")
        let client = StripeTestClient(port: first.port, key: "sk_test_legacy_import")
        let authorized = try await client.call("GET", "/v1/payment_intents/pi_I9ry84nQt193J3T6MIwwyUun")
        #expect(authorized.status_ == "requires_capture" && authorized["amount_capturable"]?.int64Value == 1500, "\(authorized.text)")
        let replay = try #require(try await client.pay(1500, metadata: ["attempt_id": "att_legacy"], idempotencyKey: "att_legacy").reply)
        #expect(replay.id == "pi_I9ry84nQt193J3T6MIwwyUun" && replay.headers["Idempotent-Replayed"] == "true", "\(replay.text)")
        let refunds = try await client.call("GET", "/v1/refunds", [("payment_intent", "pi_fux0Z0HuvVdx4YhNj0re3ne4")])
        #expect(refunds["data"]?.arrayValue?.map { $0["id"]?.stringValue ?? "" } == ["re_uQuGySdOC5FYqTxBrfEGdZHC"], "\(refunds.text)")
        #expect(try await client.pay(method: "5555555555554444").reply?.status == 402, "the chain's first step, GENERIC_DECLINE")
        let advanced = try await client.call("POST", "/_mock/clock/advance", [("seconds", "1")])
        #expect(advanced["advanced_seconds"]?.int64Value == 61, "\(advanced.text)")
        #expect(await first.terminate() == 0)

        // The rows are in the ledger file itself.
        let ledger = try Database(path: directory.file("processor.sqlite"), options: Database.Options(create: false))
        let objects = try ledger.queryFirst("SELECT count(*) FROM account_objects WHERE account = 'acct_055e41819dc546a3' AND kind = 'intent'") { $0.int64(0) }
        #expect((objects ?? 0) >= 3, "the two imported intents and the one paid since: \(objects ?? 0)")

        // A crash between the import's commit and the file's removal leaves the file: the next
        // start finds the account already in the ledger and only removes the file.
        try Self.writeLegacyStore(in: directory)
        let second = try await ServedProcess.processor(directory: directory)
        #expect(!FileManager.default.fileExists(atPath: directory.file("processor.sqlite.accounts.sqlite")))
        let again = StripeTestClient(port: second.port, key: "sk_test_legacy_import")
        #expect(try await again.pay(method: "5555555555554444").reply?.status_ == "requires_capture", "the chain went on from the ledger's copy: APPROVE")
        let clock = try await again.call("POST", "/_mock/clock/advance", [("seconds", "1")])
        #expect(clock["advanced_seconds"]?.int64Value == 62, "the ledger's clock, not the file's 60: \(clock.text)")
        #expect(await second.terminate() == 0)
    }

    @Test("A file at <ledger>.accounts.sqlite that is not an earlier account store is reported by name and left in place")
    func aForeignStoreFileIsReportedAndKept() async throws {
        let directory = try TemporaryDirectory("procserve-store-legacy-foreign")
        try directory.write("processor.sqlite.accounts.sqlite", "not a database")
        let server = try await ServedProcess.processor(directory: directory)
        #expect(server.stderr.contains("processor.sqlite.accounts.sqlite"), "\(server.stderr)")
        #expect(FileManager.default.fileExists(atPath: directory.file("processor.sqlite.accounts.sqlite")))
        let client = StripeTestClient(port: server.port, key: "sk_test_foreign")
        #expect(try await client.pay().reply?.status == 200, "the server runs on")
        #expect(await server.terminate() == 0)
    }

    @Test("A SQLite file of another program at <ledger>.accounts.sqlite is named and left exactly as it was (not switched to WAL)")
    func aForeignDatabaseFileIsLeftAsItWas() async throws {
        let directory = try TemporaryDirectory("procserve-store-legacy-other-db")
        let path = directory.file("processor.sqlite.accounts.sqlite")
        do {
            let other = try Database(path: path, options: Database.Options(writeAheadLog: false))
            try other.execute("CREATE TABLE notes (text TEXT)")
        }
        let before = try #require(FileManager.default.contents(atPath: path))
        let server = try await ServedProcess.processor(directory: directory)
        #expect(server.stderr.contains("processor.sqlite.accounts.sqlite"), "\(server.stderr)")
        #expect(await server.terminate() == 0)
        #expect(FileManager.default.contents(atPath: path) == before, "the file's bytes are unchanged")
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }
}
