/// The panel's segmented amount control (5 / 10 / 20): a fixed list of amounts and the
/// selected one. Segments are numbered from 1, as the keys and the CLI show them.
public struct AmountSelector: Sendable, Equatable {
    public private(set) var options: [Amount]
    /// 0-based index of the selected option.
    public private(set) var selectedIndex: Int

    /// A selector on `options` (at least one) with segment `defaultSegment` (1-based) selected.
    public init(options: [Amount], defaultSegment: Int = 1) throws(PanelError) {
        guard !options.isEmpty else { throw PanelError("the amount selector needs at least one amount") }
        guard (1...options.count).contains(defaultSegment) else {
            throw PanelError("default segment \(defaultSegment) is out of range: choose 1 to \(options.count)")
        }
        self.options = options
        self.selectedIndex = defaultSegment - 1
    }

    public var selected: Amount { options[selectedIndex] }
    /// The selected segment, numbered from 1.
    public var selectedSegment: Int { selectedIndex + 1 }

    /// Selects segment `segment` (1-based).
    public mutating func select(segment: Int) throws(PanelError) {
        guard (1...options.count).contains(segment) else {
            throw PanelError("segment \(segment) does not exist: choose 1 to \(options.count) (\(optionList))")
        }
        selectedIndex = segment - 1
    }

    /// Selects the option equal to `amount`.
    public mutating func select(amount: Amount) throws(PanelError) {
        guard let index = options.firstIndex(of: amount) else {
            throw PanelError("\(amount) is not one of the panel's amounts: choose \(optionList)")
        }
        selectedIndex = index
    }

    /// Selects by a decimal string in the panel's currency, e.g. `"20"` or `"20.00"`.
    public mutating func select(amountText: String) throws(PanelError) {
        let currency = options[0].currency
        let amount: Amount
        do {
            amount = try Amount.parse(amountText, currency: currency)
        } catch {
            throw PanelError("\(error.message); choose one of \(optionList)")
        }
        try select(amount: amount)
    }

    /// Moves the selection one segment left or right, stopping at the ends (← / →).
    public mutating func move(by offset: Int) {
        selectedIndex = min(max(selectedIndex + offset, 0), options.count - 1)
    }

    /// Replaces the options (a panel update), keeping the selected amount when it still exists
    /// and falling back to `defaultSegment` otherwise.
    public mutating func replaceOptions(_ newOptions: [Amount], defaultSegment: Int) throws(PanelError) {
        let previous = selected
        var replacement = try AmountSelector(options: newOptions, defaultSegment: defaultSegment)
        if let index = newOptions.firstIndex(of: previous) { replacement.selectedIndex = index }
        self = replacement
    }

    /// "5.00, 10.00 or 20.00 USD".
    public var optionList: String {
        let values = options.map(\.decimalString)
        let list = values.count > 1 ? values.dropLast().joined(separator: ", ") + " or " + values.last! : values[0]
        return "\(list) \(options[0].currency.code)"
    }
}

/// A panel configuration or selection problem, with what to do about it.
public struct PanelError: PayPanelError, Equatable {
    public let message: String
    public var code: String { "invalid_panel" }

    public init(_ message: String) {
        self.message = message
    }
}
