import Foundation
import PayPanel

/// Stripe test card numbers and the triggers they stand for. Any other valid number is approved.
public enum TestCards {
    /// In table order. The numbers are public test numbers, not customer data.
    public static let numbers: [(digits: String, trigger: MockTrigger)] = [
        ("4242424242424242", .approve),
        ("5555555555554444", .approve),
        ("378282246310005", .approve),
        ("6011111111111117", .approve),
        ("4000000000000002", .genericDecline),
        ("4000000000009995", .insufficientFunds),
        ("4000000000009987", .lostCard),
        ("4000000000009979", .stolenCard),
        ("4000000000000069", .expiredCard),
        ("4000000000000119", .processingError),
        ("4000002760003184", .challenge),
        ("4000008260003178", .challengeThenInsufficientFunds),
        ("4000008400001629", .challengeThenGenericDecline),
    ]

    /// The trigger of a test card, or nil for any other number.
    public static func trigger(for card: CardNumber) -> MockTrigger? {
        numbers.first { $0.digits == card.digits }?.trigger
    }

    /// The test cards that choose `trigger`.
    public static func numbers(for trigger: MockTrigger) -> [String] {
        numbers.filter { $0.trigger == trigger }.map(\.digits)
    }
}

/// Parsing the names of triggers: single names and chains `A|B|C`.
public enum TriggerChain {
    /// The longest chain accepted; a longer one is almost certainly a mistake.
    public static let maximumSteps = 20

    /// Parses a scenario or chain: one trigger name, or several separated by `|`. Names are
    /// case-insensitive; spaces around a step are ignored.
    public static func parse(_ text: String) throws(MockTriggerError) -> [MockTrigger] {
        let steps = text.split(separator: "|", omittingEmptySubsequences: false)
        guard steps.count <= maximumSteps else {
            throw MockTriggerError(text: text, step: String(steps[maximumSteps]))
        }
        var triggers: [MockTrigger] = []
        for step in steps {
            guard let trigger = MockTrigger(name: String(step)) else {
                throw MockTriggerError(text: text, step: steps.count > 1 || String(step).trimmingWhitespace().isEmpty ? String(step) : nil)
            }
            triggers.append(trigger)
        }
        return triggers
    }

    /// What a cardholder name asks of the mock: nil for an ordinary name (no trigger name, no
    /// `|`), the triggers for a magic value or a chain. Throws for a chain with an unknown step,
    /// so a typo is reported instead of silently paying with the card's behaviour.
    public static func triggers(inHolderName holderName: String) throws(MockTriggerError) -> [MockTrigger]? {
        if holderName.contains("|") { return try parse(holderName) }
        return MockTrigger(name: holderName).map { [$0] }
    }

    /// The canonical text of a chain: the position in it is kept under this key.
    static func key(_ triggers: [MockTrigger]) -> String {
        triggers.map(\.name).joined(separator: "|")
    }
}

/// Where an authorization's trigger came from, in precedence order.
public enum TriggerSource: String, Sendable {
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
