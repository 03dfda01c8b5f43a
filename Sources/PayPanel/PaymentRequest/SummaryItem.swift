/// One line of the Apple Pay sheet (`PKPaymentSummaryItem`). The last item of a request is the
/// grand total, shown as "Pay <label>".
public struct SummaryItem: Sendable, Equatable, JSONRepresentable {
    /// `final` amounts are known; `pending` ones are estimates (and a pending line item may have no amount yet).
    public enum ItemType: String, Sendable, CaseIterable {
        case final
        case pending
    }

    public let label: String
    /// Nil only for a pending line item whose amount is not known yet.
    public let amount: Amount?
    public let type: ItemType

    public init(label: String, amount: Amount?, type: ItemType = .final) {
        self.label = label
        self.amount = amount
        self.type = type
    }

    public var json: JSONValue {
        var object = JSONObject()
        object["label"] = .string(label)
        if let amount { object["amount"] = .string(amount.decimalString) }
        object["type"] = .string(type.rawValue)
        return .object(object)
    }
}
