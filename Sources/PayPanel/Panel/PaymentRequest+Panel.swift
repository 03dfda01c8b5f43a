extension PaymentRequest {
    /// The request for the amount selected on a panel. With a merchant name, the product is a
    /// line item and the total is labelled with the name ("Pay <name>"); without one (as in the
    /// seed panel) the product is the only item, and the validator warns about its label.
    public init(panel: PanelConfig, selection: AmountSelector) {
        let amount = selection.selected
        var items = [SummaryItem(label: panel.productLabel, amount: amount)]
        if let merchantName = panel.merchantName {
            items.append(SummaryItem(label: merchantName, amount: amount))
        }
        self.init(
            merchantIdentifier: panel.merchantIdentifier, country: panel.country, currency: panel.currency,
            supportedNetworks: panel.supportedNetworks, merchantCapabilities: panel.merchantCapabilities,
            summaryItems: items)
    }
}
