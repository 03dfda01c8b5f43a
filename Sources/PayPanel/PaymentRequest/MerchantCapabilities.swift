/// What kinds of payment the merchant can process (`PKMerchantCapability`). Raw values match
/// PassKit's bit mask.
public struct MerchantCapabilities: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt

    public init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    /// 3-D Secure: required for every network except China UnionPay.
    public static let threeDSecure = MerchantCapabilities(rawValue: 1)
    /// EMV: China UnionPay's protocol.
    public static let emv = MerchantCapabilities(rawValue: 2)
    public static let credit = MerchantCapabilities(rawValue: 4)
    public static let debit = MerchantCapabilities(rawValue: 8)
    public static let instantFundsOut = MerchantCapabilities(rawValue: 128)

    /// Each capability with its Apple Pay JS name (canonical output), then the other accepted spellings.
    static let names: [(capability: MerchantCapabilities, canonical: String, aliases: [String])] = [
        (.threeDSecure, "supports3DS", ["capability3DS", "threeDSecure"]),
        (.emv, "supportsEMV", ["capabilityEMV", "emv"]),
        (.credit, "supportsCredit", ["capabilityCredit", "credit"]),
        (.debit, "supportsDebit", ["capabilityDebit", "debit"]),
        (.instantFundsOut, "supportsInstantFundsOut", ["capabilityInstantFundsOut", "instantFundsOut"]),
    ]

    /// The spellings of 3-D Secure, the capability every request needs.
    public static var threeDSecureNames: [String] { names.filter { $0.capability == .threeDSecure }.flatMap { [$0.canonical] + $0.aliases } }

    /// Every accepted spelling, for error messages.
    public static var acceptedNames: [String] { names.flatMap { [$0.canonical] + $0.aliases } }

    /// Looks up one capability by an Apple Pay JS name (`supports3DS`) or a PassKit name
    /// (`capability3DS`, `threeDSecure`). Exact spelling, as Apple requires.
    public init?(name: String) {
        guard let entry = MerchantCapabilities.names.first(where: { $0.canonical == name || $0.aliases.contains(name) })
        else { return nil }
        self = entry.capability
    }

    /// A spelling that only differs by case, to suggest in an error message.
    static func suggestion(for name: String) -> String? {
        let lowered = name.lowercased()
        return names.first(where: { entry in
            ([entry.canonical] + entry.aliases).contains { $0.lowercased() == lowered }
        })?.canonical
    }

    /// The Apple Pay JS names of the capabilities in this set, in bit order.
    public var canonicalNames: [String] {
        MerchantCapabilities.names.filter { contains($0.capability) }.map(\.canonical)
    }

    public var description: String { canonicalNames.joined(separator: ", ") }
}
