import Foundation
import MockProcessor
import PayPanel
import PayPanelDemo
import TestSupport
import Testing

/// A `CheckoutHarness` (its own databases, the mock processor, virtual time) with a
/// `CheckoutDesk` on its service (and so on the service's store).
final class CheckoutDeskHarness: Sendable {
    let base: CheckoutHarness
    let desk: CheckoutDesk

    init() throws {
        base = try CheckoutHarness()
        desk = CheckoutDesk(service: base.service, clock: base.clock, randomSeed: 7)
    }

    var clock: ManualClock { base.clock }

    /// A created checkout from a JSON body.
    func create(_ body: String = "{}") async throws -> CreatedCheckout {
        try await desk.create(json: try JSONParser().parse(Array(body.utf8)))
    }

    static func card(_ number: String = "4242424242424242", holder: String? = nil) throws -> SubmittedPaymentMethod {
        .card(.card(number: try CardNumber(number), expiry: try CardExpiry("12/30"), holderName: holder))
    }

    /// An Apple Pay token for `amount` sealed now by the test signing identity to the EC test merchant.
    func token(amount: Int64, currency: String = "USD", seed: String = "checkout") throws -> SubmittedPaymentMethod {
        let sealer = ApplePayTokenSealer(signer: ApplePayTestKeys.signer, random: SeededRandomBytes(seed: seed), clock: clock)
        let details = TokenCardDetails(
            dpan: try CardNumber("4242424242424242"), expiry: try CardExpiry(month: 12, year: 2029),
            amount: Amount(minorUnits: amount, currency: try Currency(code: currency)), eci: "05")
        let sealed = try sealer.seal(details, to: ApplePayTestKeys.ecMerchant.certificate)
        let bytes = Array(JSONWriter.string(sealed.paymentTokenJSON, style: .compact).utf8)
        return .applePayToken(bytes, decryptor: ApplePayTokenDecryptor(verifier: ApplePayTestKeys.verifier()))
    }
}
