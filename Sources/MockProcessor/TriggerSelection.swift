import Foundation
import PayPanel

/// Where an authorization's trigger came from, in precedence order.
enum TriggerSource: String, Sendable {
    /// `AuthorizationRequest.scenario`: tests force an outcome.
    case scenario
    /// The cardholder name: a magic value or a chain.
    case holderName = "holder_name"
    /// The card number (Stripe test cards; anything else approved) and its expiry.
    case card
}

/// The trigger steps an authorization request asks for, and where they came from.
struct TriggerSelection: Equatable {
    let steps: [MockTrigger]
    let source: TriggerSource

    /// The chain's key when there is more than one step (the position must then be tracked).
    var chainKey: String? { steps.count > 1 ? TriggerChain.key(steps) : nil }

    /// Precedence: explicit scenario, then the cardholder name (chain or magic value), then the
    /// card: an expired card (on the processor's clock) is declined `expired_card`, a Stripe test
    /// number means what it means at Stripe, any other valid number is approved.
    static func select(for request: AuthorizationRequest, now: Date) throws(MockTriggerError) -> TriggerSelection {
        if let scenario = request.scenario, !scenario.isEmpty {
            return TriggerSelection(steps: try TriggerChain.parse(scenario), source: .scenario)
        }
        if let holder = request.paymentMethod.holderName, let steps = try TriggerChain.triggers(inHolderName: holder) {
            return TriggerSelection(steps: steps, source: .holderName)
        }
        if let expiry = request.paymentMethod.expiry, CardExpiryCheck.hasExpired(expiry, at: now) {
            return TriggerSelection(steps: [.expiredCard], source: .card)
        }
        let trigger = TestCards.trigger(for: request.paymentMethod.cardNumber) ?? .approve
        return TriggerSelection(steps: [trigger], source: .card)
    }
}

/// Cards are valid through the last day of their expiry month (UTC).
enum CardExpiryCheck {
    static func hasExpired(_ expiry: CardExpiry, at now: Date) -> Bool {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let today = calendar.dateComponents([.year, .month], from: now)
        guard let year = today.year, let month = today.month else { return false }
        return expiry.year * 12 + expiry.month < year * 12 + month
    }
}
