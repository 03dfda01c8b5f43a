import Foundation
import MockProcessor
import PayPanel
import PayPanelDemo
import TestSupport
import Testing

/// A token pays once, through the one path a payment takes (`PaymentService.authorize(applePayToken:…)`):
/// verify, decrypt, match the intent's amount, then record the transactionId in the transaction
/// that opens the attempt (`seen_token_transactions`). A refused token (forged, for another
/// amount) records nothing, so the genuine payment still goes through afterwards.
@Suite struct TokenPaymentAcceptanceTests {
    let decryptor = ApplePayTokenDecryptor(verifier: ApplePayTestKeys.verifier())

    /// A token for `minorUnits` USD, sealed now by the test signing identity.
    func token(_ harness: CheckoutHarness, _ minorUnits: Int64 = 1000, seed: String = "acceptance") throws -> [UInt8] {
        let sealer = ApplePayTokenSealer(signer: ApplePayTestKeys.signer, random: SeededRandomBytes(seed: seed), clock: harness.clock)
        let details = TokenCardDetails(
            dpan: try CardNumber("4242424242424242"), expiry: try CardExpiry(month: 12, year: 2029),
            amount: Amount(minorUnits: minorUnits, currency: CheckoutHarness.usd), eci: "05")
        let sealed = try sealer.seal(details, to: ApplePayTestKeys.ecMerchant.certificate)
        return Array(JSONWriter.string(sealed.paymentTokenJSON, style: .compact).utf8)
    }

    func pay(_ harness: CheckoutHarness, _ token: [UInt8], _ intent: PaymentIntent) async throws -> PaymentOutcome {
        try await harness.service.authorize(applePayToken: token, intentID: intent.id, decryptor: decryptor)
    }

    /// The code of the error `body` throws, or nil when it throws none.
    func refusal(_ body: () async throws -> PaymentOutcome) async -> String? {
        do {
            _ = try await body()
            return nil
        } catch {
            return (error as? any PayPanelError)?.code ?? "\(error)"
        }
    }

    @Test func aTokenPaysOnce() async throws {
        let harness = try CheckoutHarness()
        let bytes = try token(harness)
        let first = try await harness.createIntent(1000)
        #expect(try await pay(harness, bytes, first).attempt?.status == .authorized)
        let second = try await harness.createIntent(1000)
        #expect(await refusal { try await pay(harness, bytes, second) } == "token_replayed")
        #expect(harness.processor.calls.map(\.operation) == ["authorize"])
        #expect(try harness.machine(second.id).attempts.isEmpty)
        try harness.check(settled: true)
    }

    @Test func theSameTransactionIdSpelledInUpperCaseIsStillAReplay() async throws {
        let harness = try CheckoutHarness()
        // The signature covers the transactionId's bytes, not its spelling, so an upper-cased
        // copy still verifies: the replay key must be the normalised form.
        let bytes = try token(harness)
        let id = try #require(try TokenFixtures.string("paymentData.header.transactionId", in: bytes))
        let shouted = try TokenFixtures.replacing("paymentData.header.transactionId", with: .string(id.uppercased()), in: bytes)
        _ = try await pay(harness, bytes, try await harness.createIntent(1000))
        let second = try await harness.createIntent(1000)
        #expect(await refusal { try await pay(harness, shouted, second) } == "token_replayed")
        #expect(harness.processor.calls.map(\.operation) == ["authorize"])
    }

    @Test func amountOrCurrencyOtherThanTheIntentsIsRefusedWithoutBurningTheToken() async throws {
        let harness = try CheckoutHarness()
        let bytes = try token(harness, 1000)
        let smaller = try await harness.createIntent(500)
        let error = await #expect(throws: ApplePayTokenError.self) { try await pay(harness, bytes, smaller) }
        #expect(error == .amountMismatch(token: Amount(minorUnits: 1000, currency: CheckoutHarness.usd), expected: smaller.amount))
        #expect(error?.message.contains("10.00 USD") == true)
        let euros = try await harness.service.createIntent(try NewPaymentIntent(
            amount: Amount(minorUnits: 1000, currency: try Currency(code: "EUR")), captureMethod: .manual, orderReference: nil))
        let other = await #expect(throws: ApplePayTokenError.self) { try await pay(harness, bytes, euros) }
        #expect(other == .currencyMismatch(token: CheckoutHarness.usd, expected: try Currency(code: "EUR")))
        #expect(harness.processor.calls.isEmpty)
        // Nothing was recorded: the token still pays the intent it is for.
        #expect(try await pay(harness, bytes, try await harness.createIntent(1000)).attempt?.status == .authorized)
    }

    @Test func aForgedTokenRecordsNothing() async throws {
        let harness = try CheckoutHarness()
        let bytes = try token(harness)
        let forged = try TokenFixtures.replacing("paymentData.header.transactionId", with: "ab", in: bytes)
        let intent = try await harness.createIntent(1000)
        let error = await #expect(throws: ApplePayTokenError.self) { try await pay(harness, forged, intent) }
        #expect(error == .messageDigestMismatch)
        #expect(harness.processor.calls.isEmpty)
        #expect(try await pay(harness, bytes, intent).attempt?.status == .authorized)
    }
}
