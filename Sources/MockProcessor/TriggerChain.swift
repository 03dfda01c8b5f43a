import PayPanel

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
