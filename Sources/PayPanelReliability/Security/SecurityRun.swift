import Foundation
import PayPanel
import PayPanelDemo

/// The security check: runs every flow through the `paypanel` binary — cards, an Apple Pay
/// token, captures, voids, refunds (one asynchronous), an unknown outcome, notifications —
/// with SQL injection strings in order references, idempotency keys, holder names and
/// notification text, provokes errors with card numbers in them, replays and tampers with a
/// token; then searches the raw database, ledger, -wal and -shm files for card data and key
/// material, checks their modes, and checks every command's standard error.
public final class SecurityRun {
    public let executable: String
    public let directory: String
    private var now = Date(timeIntervalSince1970: 1_795_939_200)  // 2026-11-29T08:00:00Z
    private var report = SecurityReport()
    private var outputs: [(arguments: [String], result: ChildProcess.Result)] = []

    /// SQL that must end up stored as text, and harmless.
    public static let injections = [
        "x'); DROP TABLE intents;--", "' OR '1'='1", "Robert\"); DELETE FROM events; --", "1; UPDATE intents SET amount_captured = 0",
    ]
    static let cards = ["4242424242424242", "5555555555554444", "378282246310005"]
    static let dpan = "4000056655665556"

    /// A run of `executable` (the paypanel binary) working in `directory`.
    public init(executable: String, directory: String) {
        self.executable = executable
        self.directory = directory
    }

    private var databasePath: String { directory + "/paypanel.sqlite" }
    private var ledgerPath: String { directory + "/paypanel-processor.sqlite" }

    /// Runs the flows and the checks.
    public func run() throws -> SecurityReport {
        // Held open for the whole run, so the -wal and -shm files stay (and are searched).
        let database = try Database.openMigrated(path: databasePath, set: .main, clock: ManualClock(now))
        let store = SQLitePaymentStore(database: database)
        let paymentLedger = PaymentLedger(store: store)
        var ledgerHolder: Database?

        // Cards, with injection strings everywhere the merchant or payer types text.
        let a = try create(capture: "automatic", order: Self.injections[0], key: "k'); DROP TABLE idempotency_keys;--")
        let replayedA = try create(capture: "automatic", order: Self.injections[0], key: "k'); DROP TABLE idempotency_keys;--")
        check("an idempotency key holding SQL replays the same intent", a != nil && a == replayedA, "first \(a ?? "none"), again \(replayedA ?? "none")")
        if let a {
            try step(["payments", "authorize", a, "--card", Self.cards[0], "--expiry", "12/30", "--holder", "O'Brien\"); DROP TABLE attempts;--"])
            ledgerHolder = try Database(path: ledgerPath)
            try step(["payments", "refund", a, "--amount", "4.00", "--idempotency-key", Self.injections[3]])
            try step(["payments", "refund", a])
        }
        if let b = try create(capture: "manual", order: Self.injections[1], key: nil) {
            try step(["payments", "authorize", b, "--card", Self.cards[1], "--expiry", "11/29"])
            try step(["payments", "capture", b, "--amount", "6.00"])
            try step(["payments", "refund", b, "--amount", "2.00", "--reason", "requested_by_customer"])
        }
        if let c = try create(capture: "manual", order: Self.injections[2], key: nil) {
            try step(["payments", "authorize", c, "--card", Self.cards[2]])
            try step(["payments", "void", c])
        }
        if let f = try create(capture: "automatic", order: "async", key: nil) {
            try step(["payments", "authorize", f, "--card", Self.cards[0], "--holder", "REFUND_ASYNC"])
            try step(["payments", "refund", f])
        }
        if let g = try create(capture: "automatic", order: "unknown", key: nil) {
            try step(["payments", "authorize", g, "--card", Self.cards[0], "--holder", "HTTP_500_AFTER"])
        }

        // An Apple Pay token: paid once, then replayed and tampered with.
        let secrets = try tokenFlow()

        // Notifications with injection strings.
        try step(["notify", "schedule", "--title", Self.injections[0], "--body", Self.injections[2], "--order", Self.injections[1], "--in", "0"])
        try step(["notify", "deliver"])
        try step(["notify", "list"])

        // Errors with card data in the input: the message must not repeat it.
        let errorsFrom = outputs.count
        try step(["payments", "authorize", a ?? "pi_missing", "--card", "4242424242424241"])
        try step(["payments", "authorize", "pi_doesnotexist", "--card", Self.cards[0]])
        try step(["payments", "create", "--amount", "10.00", "--order", Self.cards[0]])
        try step(["payments", "create", "--amount", "10.00", "--order", "order 4242 4242 4242 4242"])
        try step(["payments", "create", "--amount", Self.cards[2]])
        try step(["payments", "authorize", a ?? "pi_missing", "--card", Self.cards[0]])
        try step(["payments", "authorize", "pi_x", "--card", "4242 4242 4242 4242"])
        let refused = outputs[errorsFrom...].filter { $0.result.exitCode != 0 }.count
        check("input with card numbers is refused", refused == outputs.count - errorsFrom, "\(refused) of \(outputs.count - errorsFrom) refused")
        // An idempotency key is the client's to choose and never refused for its digits: one
        // holding a card number works (and replays), and the raw-file scan below proves it was
        // not stored as it is (`IdempotencyStore.storedKey` keeps its digest).
        let keyed = try create(capture: "automatic", order: "keyed", key: Self.cards[1])
        let keyedAgain = try create(capture: "automatic", order: "keyed", key: Self.cards[1])
        check("an idempotency key holding a card number works and replays", keyed != nil && keyed == keyedAgain,
              "first \(keyed ?? "none"), again \(keyedAgain ?? "none")")

        now = now.addingTimeInterval(600)
        try step(["reconcile"])

        // Stored verbatim and harmless.
        var stored: [String] = []
        try store.read { tx in
            try tx.forEachIntent(status: nil, limit: nil) { intent in
                if let reference = intent.orderReference { stored.append(reference) }
            }
        }
        let missing = Self.injections.prefix(3).filter { !stored.contains($0) }
        check("SQL injection strings are stored verbatim", missing.isEmpty, "missing: \(missing)")
        // SQLite-specific on purpose: the check is that no injected `DROP TABLE` reached the
        // file's schema, which only the catalogue can show (the store has no such operation).
        let tables = try database.queryAll("SELECT name FROM sqlite_master WHERE type = 'table'", []) { $0.string(0) }
        let expected = ["intents", "attempts", "refunds", "events", "outbox", "timers", "idempotency_keys", "seen_token_transactions"]
        check("no table was dropped", expected.allSatisfy(tables.contains), "tables: \(tables.sorted())")
        let audit = try PaymentsAudit.run(ledger: paymentLedger, effects: nil, expectSettled: false)
        check("the invariants hold and every history replays", audit.isClean, audit.findings.prefix(5).joined(separator: "; "))

        // Raw files: modes and contents.
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".sqlite") || $0.hasSuffix("-wal") || $0.hasSuffix("-shm") }
            .sorted().map { directory + "/" + $0 }
        report.filesScanned = files.map { ($0 as NSString).lastPathComponent }
        report.bytesScanned = files.reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: $1)[.size] as? Int) ?? 0) }
        check("the database, ledger, -wal and -shm files exist", files.count >= 4 && files.contains { $0.hasSuffix("-wal") }, "files: \(report.filesScanned)")
        let loose = RawFileScanner.looseModes(files)
        check("database and ledger files are 0600", loose.isEmpty, loose.joined(separator: "; "))
        var needles = (Self.cards + [Self.dpan]).map { RawFileScanner.Needle.text("card number ending \($0.suffix(4))", $0) }
        needles += secrets.cryptograms.flatMap { cryptogram -> [RawFileScanner.Needle] in
            [.text("cryptogram", cryptogram)] + (Base64.decode(cryptogram).map { [.bytes("cryptogram bytes", $0)] } ?? [])
        }
        needles += [.text("cardholder name", "Jane Appleseed"), .text("cardholder name", "O'Brien\"); DROP TABLE attempts;--")]
        needles += RawFileScanner.Needle.embeddedPrivateKeys
        report.needles = needles.count
        let leaks = RawFileScanner(needles: needles).findings(in: files)
        check("no PAN, DPAN, cryptogram, cardholder name or private key in the raw files", leaks.isEmpty, leaks.joined(separator: "; "))

        // What the commands printed.
        let detector = CardDataDetector(secrets: Self.cards + [Self.dpan] + secrets.cryptograms)
        var printed: [String] = []
        for (arguments, result) in outputs {
            let shown = arguments.prefix(3).joined(separator: " ")
            // With the text around it, card-like runs redacted, so a finding can be traced to the
            // message that printed it without printing the number.
            let context = SensitiveDigits.redacted(String(result.stderr.prefix(400)))
            printed += detector.findings(in: result.stderr).map { "stderr of \(shown): \($0), in: \(context)" }
            // `token seal` prints the token and `token decrypt` the decrypted card: their job.
            if arguments.first != "token" { printed += detector.findings(in: result.stdout).map { "stdout of \(shown): \($0)" } }
            if result.exitCode != 0 && result.exitCode != 1 && result.exitCode != 64 {
                printed.append("\(shown) ended with \(result.termination)")
            }
        }
        check("no card data in any command's standard error (or output)", printed.isEmpty, printed.prefix(5).joined(separator: "; "))
        report.commands = outputs.count
        _ = ledgerHolder
        return report
    }

    // MARK: - The token

    private func tokenFlow() throws -> (cryptograms: [String], Void) {
        var cryptograms: [String] = []
        guard let d = try create(capture: "automatic", order: "token", key: nil),
            let e = try create(capture: "automatic", order: "token-replay", key: nil)
        else { return (cryptograms, ()) }
        let token = directory + "/token.json"
        let sealed = try step(["token", "seal", "--card", Self.dpan, "--amount", "10.00", "--eci", "05", "--holder", "Jane Appleseed"])
        _ = FileManager.default.createFile(atPath: token, contents: Data(sealed.stdout.utf8), attributes: [.posixPermissions: 0o600])
        defer { unlink(token) }
        if let decrypted = try? ApplePayTokenDecryptor(verifier: ApplePayTestKeys.verifier(checksSigningTime: false)).decrypt(Array(sealed.stdout.utf8), at: now),
            let cryptogram = decrypted.cryptogram?.value
        {
            cryptograms.append(cryptogram)
        }
        let paid = try step(["payments", "authorize", d, "--token", token, "--test-root"])
        check("a sealed Apple Pay token pays", paid.exitCode == 0, paid.stderr)
        try step(["payments", "refund", d, "--amount", "3.00"])
        let replay = try step(["payments", "authorize", e, "--token", token, "--test-root"])
        check("a replayed token is refused", replay.exitCode == 1 && (replay.stderr.contains("token_replayed") || replay.stderr.lowercased().contains("already")),
              "exit \(replay.termination): \(replay.stderr.prefix(200))")
        // Tampering: one character of the data, of the signature, of the transactionId.
        for field in ["data", "signature", "transactionId", "ephemeralPublicKey"] {
            let tampered = Self.tamper(sealed.stdout, field: field)
            _ = FileManager.default.createFile(atPath: token, contents: Data(tampered.utf8), attributes: [.posixPermissions: 0o600])
            let result = try step(["payments", "authorize", e, "--token", token, "--test-root"])
            check("a token with a tampered \(field) is refused", result.exitCode == 1 && tampered != sealed.stdout, "exit \(result.termination): \(result.stderr.prefix(200))")
        }
        return (cryptograms, ())
    }

    /// `token` with one character of the string value of `field` changed.
    static func tamper(_ token: String, field: String) -> String {
        guard let key = token.range(of: "\"\(field)\":\"") else { return token }
        var characters = Array(token)
        let index = token.distance(from: token.startIndex, to: key.upperBound) + 6
        guard index < characters.count, characters[index] != "\"" else { return token }
        characters[index] = characters[index] == "A" ? "B" : "A"
        return String(characters)
    }

    // MARK: - Running

    private func create(capture: String, order: String, key: String?) throws -> String? {
        var arguments = ["payments", "create", "--amount", "10.00", "--capture", capture, "--order", order, "--json"]
        if let key { arguments += ["--idempotency-key", key] }
        let result = try step(arguments)
        return (try? JSONParser().parse(Array(result.stdout.utf8)))?["id"]?.stringValue
    }

    @discardableResult
    private func step(_ arguments: [String]) throws -> ChildProcess.Result {
        let environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": directory, "NO_COLOR": "1",
            "PAYPANEL_DB": databasePath, "PAYPANEL_PROCESSOR_DB": ledgerPath, "PAYPANEL_NOW": Timestamp.format(now),
        ]
        let result = try ChildProcess.run(executable, arguments, environment: environment, directory: directory, timeout: .seconds(60))
        outputs.append((arguments, result))
        now = now.addingTimeInterval(30)
        return result
    }

    private func check(_ name: String, _ passed: Bool, _ detail: @autoclosure () -> String) {
        report.checks.append(SecurityReport.Check(name: name, passed: passed, detail: passed ? "" : detail()))
    }
}

/// What the security check found.
public struct SecurityReport: Sendable, JSONRepresentable {
    /// One check and its result.
    public struct Check: Sendable {
        public let name: String
        public let passed: Bool
        /// Why it failed (empty when it passed).
        public let detail: String
    }

    public var checks: [Check] = []
    public var commands = 0
    public var filesScanned: [String] = []
    public var bytesScanned = 0
    public var needles = 0

    /// An empty report.
    public init() {}

    public var failures: [String] { checks.filter { !$0.passed }.map { "\($0.name): \($0.detail)" } }

    public var json: JSONValue {
        .orderedObject([
            ("check", "security"), ("commands", .number(commands)), ("filesScanned", .array(filesScanned.map(JSONValue.string))),
            ("bytesScanned", .number(bytesScanned)), ("needles", .number(needles)),
            ("checks", .array(checks.map { .orderedObject([("name", .string($0.name)), ("passed", .bool($0.passed)), ("detail", .string($0.detail))]) })),
            ("failures", .array(failures.map(JSONValue.string))), ("result", .string(failures.isEmpty ? "pass" : "fail")),
        ])
    }
}
