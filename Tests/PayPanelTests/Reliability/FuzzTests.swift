import Foundation
@testable import PayPanel
import PayPanelReliability
import TestSupport
import Testing

/// The fuzzers: seeded and bounded mutants, a quick campaign per reader with zero failures,
/// and every input ever saved under fixtures/fuzz replayed as a regression test.
@Suite struct FuzzTests {
    @Test func theSameSeedMakesTheSameMutants() throws {
        let seed = try #require(try FuzzTarget.make(.request).seeds.first)
        var first = JSONMutator(seed: 42)
        var second = JSONMutator(seed: 42)
        for _ in 0..<50 {
            let a = first.mutate(seed)
            let b = second.mutate(seed)
            #expect(a.bytes == b.bytes && a.mutations == b.mutations)
        }
    }

    @Test func everyMutationIsUsedAndMutantsStayBounded() throws {
        let seed = try #require(try FuzzTarget.make(.payload).seeds.first)
        var mutator = JSONMutator(seed: 7)
        var used = Set<JSONMutator.Mutation>()
        var deepest = 0
        for _ in 0..<600 {
            let mutant = mutator.mutate(seed)
            used.formUnion(mutant.mutations)
            #expect(mutant.bytes.count <= JSONMutator.maximumBytes)
            var depth = 0
            for byte in mutant.bytes {
                if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") { depth += 1; deepest = max(deepest, depth) }
                if byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") { depth -= 1 }
            }
        }
        #expect(used == Set(JSONMutator.Mutation.allCases))
        #expect(deepest > 64, "the parser's depth limit is reached")
    }

    @Test(arguments: FuzzKind.allCases)
    func aQuickCampaignFindsNothing(kind: FuzzKind) throws {
        // The limit only catches a pathological input (a hang or a quadratic blow-up), never a
        // busy machine: the slowest mutant (a 700 kB panel of thousands of capabilities, 2.5 s in
        // a debug build on a quiet machine) took 28.7 s with other builds at load 20, 21 s under
        // ASan and 25 s under TSan. `paypanel fuzz` keeps its own, tighter limit.
        let limit: Duration = Sanitizers.areActive ? .seconds(300) : .seconds(60)
        let campaign = FuzzCampaign(target: try FuzzTarget.make(kind), iterations: 150, seed: 11, timeLimit: limit)
        let report = campaign.run()
        #expect(report.inputsTried == 150)
        #expect(report.rejected > 100, "most mutants are refused")
        #expect(report.failures.isEmpty, "\(report.failures.map { "\($0.mutations): \($0.problems)" })")
    }

    @Test(arguments: FuzzKind.allCases)
    func savedInputsStayFixed(kind: FuzzKind) throws {
        let directory = RepositoryPaths.fixture("fuzz/\(kind.rawValue)")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { !$0.hasPrefix(".") }.sorted()
        #expect(!names.isEmpty, "fixtures/fuzz/\(kind.rawValue) holds the inputs that once failed")
        let target = try FuzzTarget.make(kind)
        for name in names {
            let bytes = try #require(FileManager.default.contents(atPath: directory + "/" + name))
            let (_, problems) = target.problems(with: Array(bytes))
            #expect(problems.isEmpty, "\(name): \(problems)")
        }
    }

    @Test func aFailingInputIsSavedUnderItsHash() throws {
        let directory = try TemporaryDirectory()
        let failure = FuzzFailure(kind: .payload, iteration: 3, mutations: ["truncation"], problems: ["x"], input: Array("{\"aps\":".utf8))
        let path = try failure.save(in: directory.file("payload"))
        #expect(path.hasSuffix("/payload/" + failure.fileName))
        #expect(failure.fileName.hasPrefix("payload-") && failure.fileName.hasSuffix(".input"))
        #expect(FileManager.default.contents(atPath: path) == Data("{\"aps\":".utf8))
    }

    @Test func cardDataAndBrokenLinesInMessagesAreProblems() throws {
        let detector = CardDataDetector(secrets: ["AgAAAAAAAIR8CQrXSohbQAANAAAAAA=="])
        #expect(detector.findings(in: "card 4242424242424242 declined") == ["a 16-digit card-like number ending 4242"])
        #expect(detector.findings(in: "amount 99999999999999999999 too large").isEmpty, "a 20-digit run is not a card number")
        #expect(detector.findings(in: "order 4242424242424241").isEmpty, "fails the Luhn check")
        #expect(detector.findings(in: "visa •••• 4242").isEmpty)
        #expect(detector.findings(in: "cryptogram AgAAAAAAAIR8CQrXSohbQAANAAAAAA== leaked").count == 1)
    }
}

/// Found by fuzzing: validators quoted whole inputs into their messages — 600 KB "one-line"
/// messages, and card numbers typed into a label or an amount repeated back.
@Suite struct MessageBoundsTests {
    @Test func quotingCutsLongInputAndSaysHowLong() {
        let quoted = JSONWriter.quoted(String(repeating: "A", count: 300_000))
        #expect(quoted.utf8.count < 140)
        #expect(quoted.hasSuffix("…\" (300000 characters)"))
        #expect(JSONWriter.quoted("Some Product") == "\"Some Product\"")
    }

    @Test func quotingEscapesUntilTheCutAndKeepsOneLine() {
        let quoted = JSONWriter.quoted(String(repeating: "\u{0}", count: 500) + "\u{2028}")
        #expect(quoted.utf8.count < 140)
        #expect(!quoted.contains("\u{2028}"))
        #expect(JSONWriter.quoted("a\u{2028}b\u{85}c") == "\"a\\u2028b\\u0085c\"")
    }

    @Test func quotingRedactsCardNumbers() {
        #expect(JSONWriter.quoted("4242424242424242") == "\"[redacted]\"")
        #expect(JSONWriter.quoted("pay 4242 4242 4242 4242 now") == "\"pay [redacted] now\"")
    }

    @Test func numbersInMessagesAreBoundedAndRedacted() throws {
        let long = try #require(try JSONParser().parse(Array(("[" + String(repeating: "9", count: 5000) + "]").utf8)).arrayValue?.first?.numberValue)
        // Forty nines are no card number (13 to 19 digits that pass the Luhn check): shown, cut.
        #expect(long.messageText == String(repeating: "9", count: 40) + "… (5000 characters)")
        let card = try #require(try JSONParser().parse(Array("[4242424242424242]".utf8)).arrayValue?.first?.numberValue)
        #expect(card.messageText == "[redacted]")
        #expect(JSONNumber(1000).messageText == "1000")
    }

    static func request(label: String, amount: String = "10.00") -> [UInt8] {
        Array("""
            {"merchantIdentifier": "merchant.com.sample.ApplePayAction", "countryCode": "US", "currencyCode": "USD",
             "supportedNetworks": ["visa"], "merchantCapabilities": ["supports3DS"],
             "paymentSummaryItems": [{"label": \(JSONWriter.string(.string(label))), "amount": "\(amount)", "type": "final"}]}
            """.utf8)
    }

    @Test(arguments: [String(repeating: "x", count: 70_000), "4242424242424242", "Box of 378282246310005 pens"])
    func requestMessagesStayShortAndCardFree(label: String) {
        let result = PaymentRequestValidator.validate(data: Self.request(label: label))
        let messages = (result.report.errors + result.report.warnings).map(\.description)
        #expect(!messages.isEmpty)
        for message in messages {
            #expect(message.utf8.count <= FuzzTarget.maximumMessageBytes, "\(message.prefix(200))")
            #expect(CardDataDetector().findings(in: message).isEmpty, "\(message)")
        }
    }

    @Test func anAmountThatLooksLikeACardNumberIsNotRepeated() throws {
        let result = PaymentRequestValidator.validate(data: Self.request(label: "Shop", amount: "378282246310005"))
        let message = try #require(result.report.errors.first?.description)
        #expect(message.contains("above the maximum"))
        #expect(!message.contains("378282246310005"))
        do {
            _ = try NewPaymentIntent(amount: Amount(minorUnits: 4_242_424_242_424_242, currency: PaymentFixture.usd))
            Issue.record("an amount above the maximum was accepted")
        } catch {
            #expect(!error.message.contains("4242424242424242"), "\(error.message)")
        }
    }
}

/// The raw-file scanner of the security check must find what it looks for.
@Suite struct RawFileScannerTests {
    @Test func findsTextInUTF8AndUTF16AndRawBytes() throws {
        let directory = try TemporaryDirectory()
        let utf8 = directory.file("a.sqlite")
        let utf16 = directory.file("b.sqlite-wal")
        let raw = directory.file("c.sqlite-shm")
        _ = FileManager.default.createFile(atPath: utf8, contents: Data("xx4242424242424242yy".utf8))
        _ = FileManager.default.createFile(atPath: utf16, contents: Data("zz4000056655665556".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }))
        _ = FileManager.default.createFile(atPath: raw, contents: Data([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]))
        let scanner = RawFileScanner(needles: [
            .text("pan", "4242424242424242"), .text("dpan", "4000056655665556"), .bytes("key", [2, 3, 4, 5, 6, 7, 8, 9]),
            .text("absent", "5555555555554444"),
        ])
        #expect(scanner.findings(in: [utf8, utf16, raw]) == ["pan in a.sqlite at byte 2", "dpan in b.sqlite-wal at byte 4", "key in c.sqlite-shm at byte 2"])
    }

    @Test func looseModesAreReported() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("open.sqlite")
        _ = FileManager.default.createFile(atPath: path, contents: Data(), attributes: [.posixPermissions: 0o644])
        let database = directory.file("db.sqlite")
        _ = try Database.openMigrated(path: database)
        #expect(RawFileScanner.looseModes([path, database]) == ["open.sqlite is mode 644, not 600"])
    }

    @Test func theEmbeddedPrivateKeysAreNeedles() {
        let needles = RawFileScanner.Needle.embeddedPrivateKeys
        #expect(needles.count >= 6)
        #expect(needles.allSatisfy { !$0.patterns.isEmpty })
    }
}
