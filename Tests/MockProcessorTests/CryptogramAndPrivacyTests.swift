import Foundation
import MockProcessor
import PayPanel
import Testing

/// Network-token cryptograms are single-use and short-lived, and the ledger never holds a card
/// number or a cryptogram.
@Suite struct CryptogramAndPrivacyTests {
    @Test func theSameCryptogramTwiceIsDeclinedInvalid() async throws {
        let harness = try ProcessorHarness()
        let token = try Requests.token("AgAAAAAAAIR8CQrXcIhbQAAAAAAAAAA=", generatedAt: ProcessorHarness.start)
        let first = await harness.processor.authorize(Requests.authorization("att_1", method: token), timeout: callerTimeout)
        #expect(first.approval != nil)
        // The same reference again is a replay of the first answer, not a second use.
        #expect(await harness.processor.authorize(Requests.authorization("att_1", method: token), timeout: callerTimeout) == first)

        let second = await harness.processor.authorize(Requests.authorization("att_2", method: token), timeout: callerTimeout)
        #expect(second == .declined(.invalidCryptogram))
        #expect(try harness.entries().map(\.status) == [.approved, .declined])
        #expect(await harness.processor.lookup(reference: "att_2", operation: .authorize, timeout: callerTimeout) == .found(.declined(.invalidCryptogram)))
    }

    @Test func aCryptogramUsedByAnotherInstanceIsAlsoInvalid() async throws {
        let harness = try ProcessorHarness()
        let token = try Requests.token("crypt-shared", generatedAt: ProcessorHarness.start)
        _ = await harness.processor.authorize(Requests.authorization("att_1", method: token), timeout: callerTimeout)
        let other = try harness.secondProcessor()
        #expect(await other.authorize(Requests.authorization("att_2", method: token), timeout: callerTimeout) == .declined(.invalidCryptogram))
    }

    @Test(arguments: [(TimeInterval(0), true), (600, true), (601, false), (3600, false)])
    func aCryptogramOlderThanItsLifetimeIsDeclinedExpired(_ age: TimeInterval, _ accepted: Bool) async throws {
        let harness = try ProcessorHarness()
        let token = try Requests.token("crypt-\(age)", generatedAt: ProcessorHarness.start.addingTimeInterval(-age))
        let outcome = await harness.processor.authorize(Requests.authorization("att_1", method: token), timeout: callerTimeout)
        #expect(accepted ? outcome.approval != nil : outcome == .declined(.expiredCryptogram))
        #expect(try harness.entries().first?.declineCode == (accepted ? nil : .expiredCryptogram))
    }

    @Test func aCryptogramWithoutCreationTimeIsNotJudgedStale() async throws {
        let harness = try ProcessorHarness()
        let token = try Requests.token("crypt-undated", generatedAt: nil)
        #expect(await harness.processor.authorize(Requests.authorization("att_1", method: token), timeout: callerTimeout).approval != nil)
    }

    @Test func aRequestRefusedBeforeProcessingDoesNotUseUpTheCryptogram() async throws {
        let harness = try ProcessorHarness()
        let token = try Requests.token("crypt-retry", generatedAt: ProcessorHarness.start, holder: "HTTP_503|APPROVE")
        let request = Requests.authorization("att_1", method: token)
        #expect(await harness.processor.authorize(request, timeout: callerTimeout).isNotProcessed)
        #expect(await harness.processor.authorize(request, timeout: callerTimeout).approval != nil)
    }

    @Test func theLedgerNeverHoldsTheCardNumberOrTheCryptogram() async throws {
        let harness = try ProcessorHarness()
        let pan = "4000056655665556"
        let cryptogram = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo="
        let token = try Requests.token(cryptogram, generatedAt: ProcessorHarness.start, dpan: pan, holder: "Jane Appleseed")
        #expect(await harness.processor.authorize(Requests.authorization("att_1", method: token), timeout: callerTimeout).approval != nil)
        _ = await harness.processor.authorize(Requests.authorization("att_2", method: token), timeout: callerTimeout)
        _ = await harness.processor.capture(CaptureRequest(reference: "att_1", amount: Requests.amount(1000)), timeout: callerTimeout)

        var stored: [UInt8] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: harness.directory.path) {
            stored += Array(try Data(contentsOf: URL(fileURLWithPath: harness.directory.file(name))))
        }
        #expect(!stored.isEmpty)
        for secret in [pan, cryptogram, "Jane Appleseed"] {
            #expect(!Self.contains(stored, Array(secret.utf8)), "the ledger files hold \(secret.prefix(4))…")
        }
        // What is kept instead: the last four digits and the cryptogram's SHA-256.
        #expect(Self.contains(stored, SHA256.hash(cryptogram)))
        let entries = try harness.entries()
        #expect(entries.allSatisfy { $0.last4 == "5556" && $0.network == "visa" })
        let json = JSONWriter.string(.array(entries.map(\.json)))
        #expect(!json.contains(pan) && !json.contains(cryptogram))
    }

    @Test func fileModeIsOwnerOnly() throws {
        let harness = try ProcessorHarness()
        let attributes = try FileManager.default.attributesOfItem(atPath: harness.ledgerPath)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { start in
            haystack[start..<(start + needle.count)].elementsEqual(needle)
        }
    }
}
