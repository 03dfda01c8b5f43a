import Foundation
import MockProcessor
import PayPanel

/// Reads the card of a request: `payment_method` (a Stripe test id such as `pm_card_visa`), or
/// `payment_method_data[card][…]` with a raw test number, or a decrypted Apple Pay network
/// token. The cardholder name (`payment_method_data[billing_details][name]`) picks a trigger,
/// also next to a `pm_card_…` id (a mock extension).
///
/// Apple Pay network tokens have no public Stripe equivalent; this mock's names are
/// `payment_method_data[card][number]` (the DPAN), `[exp_month]`, `[exp_year]`, and
/// `payment_method_data[card][network_token][cryptogram]` (base64 online cryptogram),
/// `[network_token][eci]` (optional) and `[network_token][cryptogram_created]` (optional Unix
/// seconds: when the wallet made it, for the cryptogram lifetime).
enum PaymentMethodParameters {
    /// The names `payment_method_data` takes.
    static let shape = ParameterShape.members([
        "type": .value,
        "card": .members([
            "number": .value, "exp_month": .value, "exp_year": .value,
            // Any CVC passes in Stripe's test mode (the cards that fail its check fail by number).
            "cvc": .ignored,
            "network_token": .members(["cryptogram": .value, "eci": .value, "cryptogram_created": .value]),
        ]),
        "billing_details": .members(["name": .value]),
    ])

    static func read(_ parameters: Parameters, tag: String, idempotencyKey: String?) throws(StripeError) -> PaymentMethodCard? {
        let holder = try parameters.string("payment_method_data", "billing_details", "name")
        if let holder, holder.count > 200 {
            throw .invalidRequest("payment_method_data[billing_details][name] is longer than 200 characters.", param: "payment_method_data[billing_details][name]")
        }
        if let id = try parameters.string("payment_method") {
            guard let number = TestPaymentMethods.number(for: id) else {
                throw .resourceMissing("PaymentMethod", id, param: "payment_method")
            }
            let card = try cardNumber(number, param: "payment_method")
            // A new payment method each time, as at Stripe: the test id is not the object's id.
            let minted = ProcessorService.objectID(prefix: "pm", tag: tag, idempotencyKey: idempotencyKey.map { "pm:" + $0 })
            return PaymentMethodCard(
                id: minted, method: .card(number: card, expiry: try? CardExpiry(month: 12, year: 2034), holderName: holder),
                brand: brand(card), expMonth: 12, expYear: 2034)
        }
        guard parameters.value(["payment_method_data"]) != nil else { return nil }
        if let type = try parameters.string("payment_method_data", "type"), type != "card" {
            throw .invalidRequest("payment_method_data[type] must be card: this mock takes cards only.", param: "payment_method_data[type]")
        }
        guard let numberText = try parameters.string("payment_method_data", "card", "number") else {
            throw .missing("payment_method_data[card][number]")
        }
        let number = try cardNumber(numberText, param: "payment_method_data[card][number]")
        let month = try parameters.integer("payment_method_data", "card", "exp_month", in: 1...12)
        let year = try parameters.integer("payment_method_data", "card", "exp_year", in: 0...2099)
        var expiry: CardExpiry?
        if let month, let year {
            expiry = try? CardExpiry(month: Int(month), year: Int(year < 100 ? 2000 + year : year))
            guard expiry != nil else {
                throw .invalidRequest("payment_method_data[card][exp_year] must be a year from 2000 to 2099.", param: "payment_method_data[card][exp_year]")
            }
        }
        let id = ProcessorService.objectID(prefix: "pm", tag: tag, idempotencyKey: idempotencyKey.map { "pm:" + $0 })
        let method: PaymentMethodData
        if let cryptogram = try parameters.string("payment_method_data", "card", "network_token", "cryptogram") {
            guard let expiry else { throw .missing("payment_method_data[card][exp_month]") }
            guard !cryptogram.isEmpty, cryptogram.count <= 200 else {
                throw .invalidRequest("payment_method_data[card][network_token][cryptogram] must be 1 to 200 characters.", param: "payment_method_data[card][network_token][cryptogram]")
            }
            let eci = try parameters.string("payment_method_data", "card", "network_token", "eci")
            let created = try parameters.integer("payment_method_data", "card", "network_token", "cryptogram_created", in: 0...4_102_444_800)
            method = .networkToken(
                dpan: number, expiry: expiry, cryptogram: Cryptogram(cryptogram, generatedAt: created.map { Date(timeIntervalSince1970: TimeInterval($0)) }),
                eci: eci, holderName: holder)
        } else {
            method = .card(number: number, expiry: expiry, holderName: holder)
        }
        return PaymentMethodCard(id: id, method: method, brand: brand(number), expMonth: month.map(Int.init), expYear: expiry?.year)
    }

    private static func cardNumber(_ text: String, param: String) throws(StripeError) -> CardNumber {
        do {
            return try CardNumber(text)
        } catch {
            // CardNumberError's messages show at most the last four digits.
            throw StripeError(status: .paymentRequired, type: "card_error", code: "incorrect_number", message: "Your card number is incorrect: \(error.message).", param: param)
        }
    }

    /// Stripe's brand names: the test card table's for its numbers (it knows Diners Club, which
    /// `PaymentNetwork` does not), else from the number's range.
    static func brand(_ number: CardNumber) -> String {
        if let card = StripeTestCards.card(number: number.digits) { return card.brand }
        return switch number.network {
        case .visa: "visa"
        case .masterCard: "mastercard"
        case .amex: "amex"
        case .discover: "discover"
        case .jcb: "jcb"
        case .chinaUnionPay: "unionpay"
        default: "unknown"
        }
    }
}
